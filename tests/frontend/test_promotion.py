"""JAX's dtype promotion (jaxwg.frontend.promotion).

Two layers: a hand-written table copied from JAX's documentation ("Type promotion
semantics", docs/type_promotion.rst) plus documented examples, which run without JAX; and,
where JAX is installed, every pair (and triple) of argument kinds compared with JAX itself
under both settings of jax_enable_x64.
"""

import itertools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import dtypes as jd

from jaxwg.core import dtypes as wg
from jaxwg.frontend import promotion as P

try:
    import ml_dtypes  # noqa: F401

    HAVE_BF16 = True
except ImportError:  # pragma: no cover
    HAVE_BF16 = False

SHORT = {
    "b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "bf": "bfloat16",
    "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
    "i*": "i*", "f*": "f*", "c*": "c*",
}  # fmt: skip

# The binary promotion table of JAX's documentation (the join on the lattice with x64 on;
# i*, f*, c* are Python int/float/complex or weakly typed values). Copied from the docs.
DOC_TABLE = """
     b1  u1  u2  u4  u8  i1  i2  i4  i8  bf  f2  f4  f8  c8  c16 i*  f*  c*
b1   b1  u1  u2  u4  u8  i1  i2  i4  i8  bf  f2  f4  f8  c8  c16 i*  f*  c*
u1   u1  u1  u2  u4  u8  i2  i2  i4  i8  bf  f2  f4  f8  c8  c16 u1  f*  c*
u2   u2  u2  u2  u4  u8  i4  i4  i4  i8  bf  f2  f4  f8  c8  c16 u2  f*  c*
u4   u4  u4  u4  u4  u8  i8  i8  i8  i8  bf  f2  f4  f8  c8  c16 u4  f*  c*
u8   u8  u8  u8  u8  u8  f*  f*  f*  f*  bf  f2  f4  f8  c8  c16 u8  f*  c*
i1   i1  i2  i4  i8  f*  i1  i2  i4  i8  bf  f2  f4  f8  c8  c16 i1  f*  c*
i2   i2  i2  i4  i8  f*  i2  i2  i4  i8  bf  f2  f4  f8  c8  c16 i2  f*  c*
i4   i4  i4  i4  i8  f*  i4  i4  i4  i8  bf  f2  f4  f8  c8  c16 i4  f*  c*
i8   i8  i8  i8  i8  f*  i8  i8  i8  i8  bf  f2  f4  f8  c8  c16 i8  f*  c*
bf   bf  bf  bf  bf  bf  bf  bf  bf  bf  bf  f4  f4  f8  c8  c16 bf  bf  c8
f2   f2  f2  f2  f2  f2  f2  f2  f2  f2  f4  f2  f4  f8  c8  c16 f2  f2  c8
f4   f4  f4  f4  f4  f4  f4  f4  f4  f4  f4  f4  f4  f8  c8  c16 f4  f4  c8
f8   f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  c16 c16 f8  f8  c16
c8   c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c8  c16 c8  c16 c8  c8  c8
c16  c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16
i*   i*  u1  u2  u4  u8  i1  i2  i4  i8  bf  f2  f4  f8  c8  c16 i*  f*  c*
f*   f*  f*  f*  f*  f*  f*  f*  f*  f*  bf  f2  f4  f8  c8  c16 f*  f*  c*
c*   c*  c*  c*  c*  c*  c*  c*  c*  c*  c8  c8  c8  c16 c8  c16 c*  c*  c*
"""

WEAK_SPEC = {"i*": int, "f*": float, "c*": complex}
DEFAULT_X64 = {"i*": "int64", "f*": "float64", "c*": "complex128"}


def _doc_table():
    rows = [line.split() for line in DOC_TABLE.strip().splitlines()]
    header = [SHORT[c] for c in rows[0]]
    table = {}
    for row in rows[1:]:
        for col, cell in zip(header, row[1:]):
            table[SHORT[row[0]], col] = SHORT[cell]
    assert len(table) == 18 * 18
    return table


DOC = _doc_table()
DOC_PAIRS = [(a, b) for (a, b) in DOC if HAVE_BF16 or "bfloat16" not in (a, b)]


def _spec(node):
    return WEAK_SPEC.get(node, node)


# --- without JAX ------------------------------------------------------------------------------


@pytest.mark.parametrize("a,b", list(DOC))
def test_join_is_the_documented_table(a, b):
    assert P.join(a, b, x64=True) == DOC[a, b]


@pytest.mark.parametrize("a,b", DOC_PAIRS)
def test_result_type_x64_is_the_documented_table(a, b):
    cell = DOC[a, b]
    if cell in DEFAULT_X64:
        expected = (np.dtype(DEFAULT_X64[cell]), True)
    else:
        expected = (P._np(cell), False)
    assert P.result_type_and_weak(_spec(a), _spec(b), x64=True) == expected
    if not {a, b} & set(WEAK_SPEC):
        assert P.promote_types(a, b, x64=True) == expected[0]


def test_documented_examples():
    # jnp.result_type / jnp.promote_types docstrings and the weak-type section of the docs
    # (jax_enable_x64 off, the default).
    assert P.result_type("int32", "float32") == np.float32
    assert P.result_type(np.uint16, np.dtype("int32")) == np.int32
    assert P.result_type(np.zeros(4, np.int32), np.zeros(4, np.float32)) == np.float32
    assert P.result_type("float64") == np.float32
    assert P.promote_types("uint8", int) == np.uint8
    assert P.promote_types("float16", float) == np.float16
    assert P.promote_types(np.int32, np.float32) == np.float32
    assert P.result_type(np.zeros(5, np.int8), 2) == np.int8  # 2 * x stays int8
    assert P.result_type_and_weak(2) == (np.dtype("int32"), True)  # jnp.asarray(2)
    assert P.result_type_and_weak(np.int16(1), 1) == (np.dtype("int16"), False)
    # "jnp.int16(1) + np.array(1) will return int64" (x64 on); int32 with x64 off
    assert P.result_type(np.int16(1), np.array(1), x64=True) == np.int64
    assert P.result_type(np.int16(1), np.array(1)) == np.int32
    # With x64 off uint32 and int32 meet at int32 (JAX's lattice source), not int64.
    assert P.promote_types("uint32", "int32") == np.int32
    assert P.result_type("uint32", "int16") == np.int32
    assert P.result_type("uint64", "int64") == np.int32  # both narrowed first
    assert P.result_type("uint64", "int64", x64=True) == np.float64


@pytest.mark.skipif(not HAVE_BF16, reason="bfloat16 needs ml_dtypes")
def test_bfloat16_examples():
    assert P.result_type(1.0, "bfloat16") == P._np("bfloat16")
    assert P.promote_types("bfloat16", "float16") == np.float32
    assert P.result_type_and_weak(P._np("bfloat16"), 2) == (P._np("bfloat16"), False)


def test_defaults_and_weak_values():
    for x64, (i, f, c) in [
        (False, ("int32", "float32", "complex64")),
        (True, ("int64", "float64", "complex128")),
    ]:
        assert P.result_type_and_weak(3, x64=x64) == (np.dtype(i), True)
        assert P.result_type_and_weak(int, x64=x64) == (np.dtype(i), True)
        assert P.result_type_and_weak(2.5, x64=x64) == (np.dtype(f), True)
        assert P.result_type_and_weak(1j, x64=x64) == (np.dtype(c), True)
        assert P.result_type_and_weak(None, x64=x64) == (np.dtype(f), False)
        assert P.result_type_and_weak(True, x64=x64) == (np.dtype(bool), False)
        assert P.result_type_and_weak(True, False, x64=x64) == (np.dtype(bool), False)
        assert P.result_type_and_weak(1, 2.0, x64=x64) == (np.dtype(f), True)
        assert P.result_type_and_weak("int8", 1.0, x64=x64) == (np.dtype(f), True)
    # np.float64 scalars subclass float but are strong, as in JAX
    assert P.result_type_and_weak(np.float64(1.0), x64=True) == (np.dtype("float64"), False)
    assert P.result_type_and_weak(np.float16(1.0), 1.0) == (np.dtype("float16"), False)


class Aval:
    """An abstract value: a dtype and a weak_type flag (read as JAX reads x.aval.weak_type)."""

    def __init__(self, dtype, weak_type=False):
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type
        self.aval = self


def test_objects_with_dtype_and_weak_type():
    assert P.result_type_and_weak(Aval("int32", True), Aval("int16")) == (np.dtype("int16"), False)
    assert P.result_type_and_weak(Aval("float32", True), "int8") == (np.dtype("float32"), True)
    assert P.result_type_and_weak(Aval("float16", True)) == (np.dtype("float32"), True)
    assert P.result_type_and_weak(Aval("int16", True), Aval("int16", True)) == (np.dtype("int32"), True)
    assert P.result_type_and_weak(Aval("bool", True)) == (np.dtype("bool"), False)
    assert P.result_type(wg.int32, 1.0) == np.float32
    assert P.result_type(wg.float16, wg.uint32) == np.float16
    assert P.promote_types(wg.float16, wg.float32) == np.float32
    assert P.result_type(np.zeros(2, np.int64)) == np.int32
    assert P.result_type(np.zeros(2, np.int64), x64=True) == np.int64


def test_canonicalize_dtype():
    for big, small in [
        ("int64", "int32"),
        ("uint64", "uint32"),
        ("float64", "float32"),
        ("complex128", "complex64"),
        ("int8", "int8"),
        ("bool", "bool"),
    ]:
        assert P.canonicalize_dtype(big) == np.dtype(small)
        assert P.canonicalize_dtype(big, x64=True) == np.dtype(big)


@pytest.mark.parametrize("bad", ["float128", "U3", object, np.dtype("datetime64[s]"), [1, 2]])
def test_unknown_types_raise_type_error_naming_them(bad):
    for call in (
        lambda: P.result_type(bad),
        lambda: P.promote_types(bad, "int32"),
        lambda: P.can_cast(bad, "int32"),
        lambda: P.finfo(bad),
        lambda: P.iinfo(bad),
    ):
        with pytest.raises(TypeError, match="not a dtype jaxwg can promote") as info:
            call()
        assert repr(bad) in str(info.value)
    with pytest.raises(TypeError, match="not a dtype"):
        P.result_type("int32", object())


def test_unsupported_dtypes_are_not_listed_as_supported():
    """The dtypes the message lists are those arrays can have (no bfloat16, no float8)."""
    with pytest.raises(TypeError) as info:
        P.result_type(np.dtype("datetime64[s]"))
    listed = str(info.value).split("supported: ")[1]
    assert "bfloat16" not in listed and "float8" not in listed and "int32" in listed


def test_what_is_no_dtype_raises_numpys_error_as_jax():
    with pytest.raises(TypeError, match="data type 'nonsense' not understood"):
        P.result_type("nonsense")
    with pytest.raises(TypeError, match="data type 'nonsense' not understood"):
        P.promote_types("nonsense", "int32")


def test_argument_errors():
    with pytest.raises(ValueError, match="at least one"):
        P.result_type()
    with pytest.raises(TypeError, match="'q\\*'"):
        P.join("int8", "q*")
    with pytest.raises(TypeError, match="Python ints"):
        P.can_cast(1, "int8")
    with pytest.raises(ValueError, match="casting must be one of"):
        P.can_cast("int8", "int16", "sometimes")
    with pytest.raises(ValueError, match="not inexact"):
        P.finfo("int32")
    with pytest.raises(ValueError, match="Invalid integer"):
        P.iinfo("float32")
    with pytest.raises(ValueError, match="Invalid integer"):
        P.iinfo(bool)


def test_can_cast_documented_examples():
    # numpy.can_cast's documented examples (jnp.can_cast is numpy.can_cast)
    assert P.can_cast(np.int32, np.int64)
    assert P.can_cast(np.float64, complex)
    assert not P.can_cast(complex, float)
    assert P.can_cast("i8", "f8")
    assert not P.can_cast("i8", "f4")
    assert P.can_cast("float64", "float16", "same_kind")
    assert not P.can_cast("float32", "int32", "same_kind")
    assert P.can_cast("uint64", "int8", "same_kind")
    assert not P.can_cast("int8", "uint64", "same_kind")
    assert not P.can_cast("int8", "int16", "no") and P.can_cast("int8", "int8", "no")
    assert P.can_cast("complex128", "bool", "unsafe")
    assert P.can_cast(np.zeros(2, np.int16), "float32")


def test_finfo_iinfo_values():
    f32 = P.finfo("float32")
    assert f32.bits == 32 and float(f32.eps) == 2.0**-23 and float(f32.max) == float(np.float32(3.4028235e38))
    f16 = P.finfo(np.float16)
    assert float(f16.eps) == 2.0**-10 and float(f16.max) == 65504.0
    assert P.finfo("complex64").dtype == np.float32
    assert P.finfo(wg.float64).bits == 64
    assert P.finfo(np.zeros(2, np.float16)).bits == 16
    i8 = P.iinfo("int8")
    assert (i8.bits, int(i8.min), int(i8.max)) == (8, -128, 127)
    assert int(P.iinfo(wg.uint32).max) == 2**32 - 1
    if HAVE_BF16:
        bf = P.finfo("bfloat16")
        assert bf.bits == 16 and float(bf.eps) == 2.0**-7


def test_tables_are_consistent():
    assert set(P._EDGES_X64) == set(P._KINDS) == set(P._EDGES_X32)
    assert set(P._SAFE_EDGES) == set(P._STRONG)
    for edges in (P._EDGES_X64, P._EDGES_X32):
        assert all(m in P._KINDS for targets in edges.values() for m in targets)
    # the join is commutative and associative (the lattice is well formed)
    for x64 in (False, True):
        nodes = list(P._KINDS)
        for a, b in itertools.product(nodes, repeat=2):
            assert P.join(a, b, x64=x64) == P.join(b, a, x64=x64)
        for a, b, c in itertools.product(nodes, repeat=3):
            assert P.join(P.join(a, b, x64=x64), c, x64=x64) == P.join(a, P.join(b, c, x64=x64), x64=x64)


# --- against JAX ------------------------------------------------------------------------------

STRONG = [n for n in P._STRONG if HAVE_BF16 or n != "bfloat16"]
DTYPE_SPECS = STRONG + [int, float, complex, bool]


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def jax_x64(request):
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", request.param)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # JAX warns when x64 narrows an explicit dtype
            yield request.param
    finally:
        jax.config.update("jax_enable_x64", old)


def _jax_or_error(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception is the answer being compared
        return type(e)


def _mine_or_error(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e)


def test_promote_types_against_jax(jax_x64):
    for a, b in itertools.product(DTYPE_SPECS, repeat=2):
        assert P.promote_types(a, b, x64=jax_x64) == jnp.promote_types(a, b), (a, b)


def _result_type_args(jnp):
    """Every kind of argument: dtype names and types, Python scalars, None, NumPy values,
    weak and strong abstract values of every dtype, and JAX arrays (made in this x64 mode)."""
    args = list(DTYPE_SPECS) + [3, 2.5, 1j, True, None, np.float16(1), np.zeros(2, np.uint8)]
    args += [Aval(P._np(n), weak_type=True) for n in STRONG]
    args += [Aval(P._np(n)) for n in ("int16", "float16", "uint32")]
    args += [jnp.asarray(2), jnp.asarray(2.0), jnp.asarray(2j), jnp.zeros(2, jnp.int8)]
    return args


def test_result_type_pairs_against_jax(jax_x64):
    args = _result_type_args(jnp)
    for a, b in itertools.product(args, repeat=2):
        expected = _jax_or_error(lambda *x: jd.result_type(*x, return_weak_type_flag=True), a, b)
        got = _mine_or_error(P.result_type_and_weak, a, b, x64=jax_x64)
        assert got == expected, (a, b)
        if not isinstance(expected, type):
            assert P.result_type(a, b, x64=jax_x64) == jnp.result_type(a, b)
    for a in args:
        assert P.result_type_and_weak(a, x64=jax_x64) == jd.result_type(a, return_weak_type_flag=True), a


def test_result_type_triples_against_jax(jax_x64):
    args = STRONG + [int, float, complex, bool] + [Aval(P._np(n), True) for n in ("int16", "float16")]
    for triple in itertools.product(args, repeat=3):
        expected = jd.result_type(*triple, return_weak_type_flag=True)
        assert P.result_type_and_weak(*triple, x64=jax_x64) == expected, triple


def test_can_cast_against_jax():
    for a, b in itertools.product(STRONG, repeat=2):
        for casting in P._CASTINGS:
            expected = jnp.can_cast(P._np(a), P._np(b), casting)
            assert P.can_cast(a, b, casting) == expected, (a, b, casting)


@pytest.mark.parametrize("name", STRONG)
def test_finfo_iinfo_against_jax(name):
    kind = P._KINDS[name][0]
    if kind in "fc":
        mine, theirs = P.finfo(name), jnp.finfo(P._np(name))
        for attr in (
            "bits",
            "eps",
            "epsneg",
            "max",
            "min",
            "tiny",
            "smallest_normal",
            "smallest_subnormal",
            "resolution",
            "precision",
            "nmant",
            "nexp",
            "maxexp",
            "minexp",
            "dtype",
        ):
            assert getattr(mine, attr) == getattr(theirs, attr), attr
    else:
        with pytest.raises(ValueError):
            jnp.finfo(P._np(name))
        with pytest.raises(ValueError):
            P.finfo(name)
    if kind in "iu":
        mine, theirs = P.iinfo(name), jnp.iinfo(P._np(name))
        assert (mine.bits, mine.min, mine.max, mine.dtype) == (
            theirs.bits,
            theirs.min,
            theirs.max,
            theirs.dtype,
        )
    else:
        with pytest.raises(ValueError):
            jnp.iinfo(P._np(name))
        with pytest.raises(ValueError):
            P.iinfo(name)
