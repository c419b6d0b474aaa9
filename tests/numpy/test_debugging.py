"""Debugging, as JAX 0.10.2 does it: `jax_debug_nans`/`jax_debug_infs`, `debug.print` and
`debug.callback` inside jit, vmap and grad, `disable_jit`, `eval_shape` and
`ShapeDtypeStruct`, `device_get` and `block_until_ready` on pytrees, and the errors of
tracer conversions with the traced function's context. Each is compared with JAX."""

import operator
import threading

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import errors, lax
from jaxwg.frontend.trace import Tracer

jax = pytest.importorskip("jax")


@pytest.fixture
def option():
    """`option(name, value)` sets a config option for the test; reset afterwards."""
    names = []

    def update(name, value):
        names.append(name)
        jaxwg.config.update(name, value)

    yield update
    for name in names:
        jaxwg.config.update(name, False)


def _raised(fn, *args) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn(*args)
    return type(info.value), str(info.value)


# -- jax_debug_nans, jax_debug_infs ------------------------------------------------------


@pytest.mark.parametrize("name, fn, arg", [
    ("jax_debug_nans", lambda np_, x: np_.log(x), -1.0),
    ("jax_debug_nans", lambda np_, x: x / np_.zeros(2), 0.0),
    ("jax_debug_infs", lambda np_, x: np_.log(x), 0.0),
    ("jax_debug_infs", lambda np_, x: 1.0 / np_.asarray(x), np.zeros(2, np.float32)),
])
def test_eager_invalid_values_raise_jaxs_error(platform, option, name, fn, arg):
    option(name, True)
    jax.config.update(name, True)
    # JAX's compiled-call cache skips the check for a jitted jnp function called before
    # with the option off (an earlier test dividing by zeros): start from empty caches.
    jax.clear_caches()
    try:
        expected = _raised(fn, jax.numpy, arg)
    finally:
        jax.config.update(name, False)
    assert _raised(fn, jnp, arg) == expected
    assert expected[0] is FloatingPointError


def test_checks_are_off_by_default_and_skip_integers(platform, option):
    assert np.isnan(jnp.log(-1.0).item())
    option("jax_debug_nans", True)
    option("jax_debug_infs", True)
    assert jnp.floor_divide(jnp.ones(2, jnp.int32), 0).shape == (2,)  # no NaN in integers


def test_a_jitted_function_runs_again_op_by_op_to_name_the_primitive(platform, option, capsys):
    option("jax_debug_nans", True)

    def f(x):
        return jnp.log(x - 3) * 2

    assert _raised(jaxwg.jit(f), jnp.ones(3)) == (FloatingPointError,
                                                   "invalid value (nan) encountered in log")
    assert capsys.readouterr().out == ("Invalid nan value encountered in the output of a jax.jit "
                                       "function. Calling the de-optimized version.\n")
    assert jaxwg.jit(f)(jnp.full(3, 4.0)).tolist() == [0.0, 0.0, 0.0]  # valid: no rerun


def test_a_clean_op_by_op_run_says_so_as_jax(platform, option, capsys):
    option("jax_debug_nans", True)
    kind, message = _raised(jaxwg.jit(lambda x: x), jnp.array([np.nan]))
    assert kind is FloatingPointError
    assert message.startswith("invalid value (nan) encountered in jit(<lambda>). Because ")
    assert "did not produce invalid values during its execution" in message


# -- debug.print, debug.callback -------------------------------------------------------------


def _program(debug):
    """A function printing and calling back through `debug` (jax.debug or jaxwg.debug)."""
    def f(x):
        debug.print("x={x} twice={}", x * 2, x=x)
        debug.callback(lambda v, tag: print("callback", tag, np.asarray(v)), x + 1, "tag")
        return x * 3

    return f


@pytest.mark.parametrize("transform", [
    lambda jx, f: f,
    lambda jx, f: jx.jit(f),
    lambda jx, f: jx.vmap(f),
    lambda jx, f: jx.jit(jx.vmap(f)),
    lambda jx, f: jx.grad(lambda x: f(x).sum()),
    lambda jx, f: jx.jit(lambda x: jx.lax.scan(lambda c, y: (c + f(y), None), 0.0, x)[0]),
], ids=["eager", "jit", "vmap", "jit-vmap", "grad", "jit-scan"])
def test_debug_output_is_jaxs(platform, capsys, transform):
    x = np.arange(3.0, dtype=np.float32)
    expected = transform(jax, _program(jax.debug))(x)
    jax.effects_barrier()
    jax_lines = capsys.readouterr().out.splitlines()
    out = transform(jaxwg, _program(jaxwg.debug))(jnp.asarray(x))
    lines = capsys.readouterr().out.splitlines()
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))
    # JAX may reorder unordered callbacks inside a program; jaxwg runs them in order.
    assert sorted(lines) == sorted(jax_lines)
    assert lines[0].startswith("x=")


def test_each_run_of_a_jitted_function_prints_in_program_order(platform, capsys):
    @jaxwg.jit
    def f(x):
        jaxwg.debug.print("first {}", x)
        y = lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)
        jaxwg.debug.print("then {}", y)
        return y

    f(jnp.ones(2))
    f(-jnp.ones(2))
    assert capsys.readouterr().out == ("first [1. 1.]\nthen [2. 2.]\n"
                                       "first [-1. -1.]\nthen [-2. -2.]\n")


def test_the_callback_gets_concrete_arrays(platform):
    seen = []
    jaxwg.jit(lambda x: jaxwg.debug.callback(seen.append, x) or x)(jnp.arange(2))
    assert isinstance(seen[0], jaxwg.Array) and seen[0].tolist() == [0, 1]


def test_callbacks_get_complex_values_as_complex(capsys):
    """Complex arrays are stored as float pairs on the device: callbacks see complex
    values, as JAX's, eagerly and under jit (printed as JAX prints them)."""
    z = np.array([1 + 2j, -3j], np.complex64)
    jax.debug.print("z={}", jax.numpy.asarray(z) * 2)
    jax.effects_barrier()
    want = capsys.readouterr().out
    for run in (lambda f: f, jaxwg.jit):
        run(lambda v: jaxwg.debug.print("z={}", v * 2))(jnp.asarray(z))
        assert capsys.readouterr().out == want
        flipped = run(lambda v: jaxwg.pure_callback(
            lambda h: h * 1j, jaxwg.ShapeDtypeStruct(v.shape, v.dtype), v))(jnp.asarray(z))
        np.testing.assert_array_equal(np.asarray(flipped), z * 1j)


def test_two_call_forms_and_argument_errors_are_jaxs(capsys):
    jaxwg.debug.print(ordered=True)("{a}", a=1)
    jaxwg.debug.callback(ordered=True)(print, "x")
    jaxwg.debug.print("no placeholders", 1, 2.5, skip_format_check=True)
    assert capsys.readouterr().out == "1\nx\nno placeholders 1 2.5\n"
    for bad in [lambda d: d.print("{}", 1, 2), lambda d: d.print("{a}", a=1, b=2),
                lambda d: d.callback(1), lambda d: d.print(ordered=True, a=1)]:
        assert _raised(bad, jaxwg.debug) == _raised(bad, jax.debug)


# -- disable_jit -----------------------------------------------------------------------------


def test_disable_jit_runs_the_python_function(platform, option):
    seen = []
    f = jaxwg.jit(lambda x: seen.append(type(x)) or x + 1)
    with jaxwg.disable_jit():
        assert f(jnp.ones(2)).tolist() == [2.0, 2.0]
    f(jnp.ones(2))
    option("jax_disable_jit", True)
    f(jnp.ones(2))
    traced = [issubclass(t, Tracer) for t in seen]
    assert traced == [False, True, False]


def test_disable_jit_is_per_thread():
    seen = []
    f = jaxwg.jit(lambda x: seen.append(type(x)) or x)
    with jaxwg.disable_jit():
        thread = threading.Thread(target=f, args=(jnp.ones(2),))
        thread.start()
        thread.join()
        assert jaxwg.config.jax_disable_jit
    assert issubclass(seen[0], Tracer) and not jaxwg.config.jax_disable_jit


# -- eval_shape, ShapeDtypeStruct, device_get, block_until_ready ----------------------------


def test_eval_shape_gives_jaxs_structs():
    def f(x, y, s):
        return {"a": x @ y, "b": (x.sum() + s, None)}

    args = [((2, 3), np.float32), ((3, 4), np.float32)]
    ours = jaxwg.eval_shape(f, *[jaxwg.ShapeDtypeStruct(*a) for a in args], 1.0)
    theirs = jax.eval_shape(f, *[jax.ShapeDtypeStruct(*a) for a in args], 1.0)
    assert repr(ours) == repr(theirs)
    assert repr(jaxwg.eval_shape(jnp.sum, np.ones(3, np.int64))) == repr(
        jax.eval_shape(jax.numpy.sum, np.ones(3, np.int64)))


def test_eval_shape_computes_nothing_and_raises_jaxs_errors(platform):
    before = jaxwg.frontend.execute.counters["kernels"]
    jaxwg.eval_shape(lambda x: jnp.exp(x) * 2, jnp.ones(4))
    assert jaxwg.frontend.execute.counters["kernels"] == before
    spec = jaxwg.ShapeDtypeStruct((2, 3), np.float32)
    with pytest.raises(TypeError, match="contracting dimensions"):
        jaxwg.eval_shape(lambda x: x @ x, spec)


def test_shape_dtype_struct_is_jaxs():
    ours, theirs = jaxwg.ShapeDtypeStruct([2, 3], "float32"), jax.ShapeDtypeStruct([2, 3], "float32")
    assert (repr(ours), ours.ndim, ours.size, ours.weak_type) == (
        repr(theirs), theirs.ndim, theirs.size, theirs.weak_type)
    assert ours == jaxwg.ShapeDtypeStruct((2, 3), np.float32) and len({ours, ours}) == 1
    assert _raised(jaxwg.ShapeDtypeStruct, (2,), None) == _raised(jax.ShapeDtypeStruct, (2,), None)


def test_device_get_and_block_until_ready_take_pytrees(platform):
    tree = {"a": jnp.arange(3) * 2, "b": [jnp.float32(1.5), "text"], "c": None}
    got = jaxwg.device_get(tree)
    assert isinstance(got["a"], np.ndarray) and got["a"].tolist() == [0, 2, 4]
    assert got["b"][0] == np.float32(1.5) and got["b"][1] == "text" and got["c"] is None
    assert jaxwg.block_until_ready(tree) is tree


# -- tracer conversions ----------------------------------------------------------------------

CONVERSIONS = {
    "bool": lambda x: bool(x > 0),
    "int": lambda x: int(x),
    "float": lambda x: float(x),
    "complex": lambda x: complex(x),
    "index": lambda x: operator.index(x),
    "array": lambda x: np.asarray(x),
    "item": lambda x: x.item(),
    "tolist": lambda x: x.tolist(),
}


def _without_jaxs_extras(message: str) -> str:
    """JAX's message less what jaxwg does not say: the link to JAX's documentation (and a
    context line JAX repeats for tolist)."""
    lines = []
    for line in message.replace("jax.Array", "jaxwg.Array").splitlines():
        if line and not line.startswith("See https://") and line not in lines:
            lines.append(line)
    return "\n".join(lines)


def _depends_on(jit, fn, *args, **kwargs) -> tuple[str, str]:
    """The type of a tracer error and its sentence naming what the value depends on."""
    with pytest.raises(Exception) as info:
        jit(fn)(*args, **kwargs)
    return info.type.__name__, next(line.split(" for jit. ")[-1]
                                    for line in str(info.value).splitlines()
                                    if "while tracing" in line)


@pytest.mark.parametrize("case", ["two", "pytree", "varargs", "static_and_keyword", "three"])
def test_tracer_errors_name_the_arguments_the_value_depends_on(case):
    """As JAX's debug info: parameters by name, pytree leaves by key path, varargs by
    index, static arguments skipped, keywords by name; only what the value depends on."""
    def two(x, y, unused):
        return bool(x + y > 0)

    def pytree(p, q):
        return bool(p["a"].sum() + p["b"][1] > 0)

    def varargs(*args):
        return int(args[1])

    def static_and_keyword(n, x, w=1.0):
        return bool(w * x)

    def three(x, y, z):
        return float(x + y + z)

    calls = {
        "two": (two, (1.0, 2.0, 3.0), {}, {}),
        "pytree": (pytree, ({"a": np.ones(2, np.float32), "b": (1.0, 2.0)}, 3.0), {}, {}),
        "varargs": (varargs, (1.0, 2.0, 3.0), {}, {}),
        "static_and_keyword": (static_and_keyword, (2, 1.0), {"w": 3.0}, {"static_argnums": 0}),
        "three": (three, (1.0, 2.0, 3.0), {}, {}),
    }
    fn, args, kwargs, jit_kwargs = calls[case]
    ours = _depends_on(lambda f: jaxwg.jit(f, **jit_kwargs), fn, *args, **kwargs)
    theirs = _depends_on(lambda f: jax.jit(f, **jit_kwargs), fn, *args, **kwargs)
    assert ours == theirs
    assert "depends on the value" in ours[1]


@pytest.mark.parametrize("what", sorted(CONVERSIONS))
def test_tracer_conversion_errors_are_jaxs_with_the_context(what):
    fn = CONVERSIONS[what]
    arg = 1 if what in ("index", "item", "tolist") else 1.0
    kind, message = _raised(jaxwg.jit(fn), arg)
    jax_kind, jax_message = _raised(jax.jit(fn), arg)
    assert kind.__name__ == jax_kind.__name__ and issubclass(kind, errors.JAXTypeError)
    assert message == _without_jaxs_extras(jax_message)
    assert f"while tracing the function <lambda> at {__file__}:" in message
