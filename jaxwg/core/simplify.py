"""Simplification of AluExp: constant folding, identities, ranges and index arithmetic.

Lowered views turn one flat output index into per-axis indices with `//` and `%`
and back into a flat buffer index with strides. Left alone, a reshape of a
contiguous array reads `((gidx // 4) % 3) * 4 + gidx % 4` where `gidx % 12` would
do. The rules here undo that: every integer node knows the range of values it can
take (`value_range`), sums of terms are kept in a canonical affine form, and
division and remainder of an affine form by a constant split it into the part that
divides exactly and a remainder whose range decides the rest. Comparisons of an
index with a constant shed offsets and divisions (`gidx // 4 < 3` is `gidx < 12`),
so the padding checks of a view stay cheap too.

Each rule is one small function with a comment stating its algebra. `simplify`
applies them bottom-up, memoised, until nothing changes. All rules preserve
values under the semantics of `jaxwg.core.alu` (truncating integer division, no
float identity that would change -0.0, NaN or infinities).

>>> from jaxwg.core import alu
>>> i = alu.gidx(24)
>>> (((i // 4) % 3) * 4 + i % 4).simplify()
(gidx % 12)
"""

from __future__ import annotations

import hashlib
import math

from . import alu
from . import dtypes as dt
from .alu import AluExp, Op
from .alu_eval import evaluate_scalar

_INF = (-math.inf, math.inf)
_INT32_MIN, _INT32_MAX = dt.bounds(dt.int32)


def _clamped(dtype: dt.DType, lo, hi) -> tuple:
    """(lo, hi) if it fits the dtype, else the dtype's full range (the op may wrap)."""
    full = dt.bounds(dtype)
    return (lo, hi) if full[0] <= lo and hi <= full[1] else full


def _range_of_binary(node: AluExp) -> tuple:
    (alo, ahi), (blo, bhi) = node.src[0].range, node.src[1].range
    op = node.op
    if op is Op.ADD:
        return _clamped(node.dtype, alo + blo, ahi + bhi)
    if op is Op.SUB:
        return _clamped(node.dtype, alo - bhi, ahi - blo)
    if op is Op.MUL:
        products = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return _clamped(node.dtype, min(products), max(products))
    if op is Op.MIN:
        return (min(alo, blo), min(ahi, bhi))
    if op is Op.MAX:
        return (max(alo, blo), max(ahi, bhi))
    if op is Op.IDIV and blo == bhi and blo > 0:
        # truncating division by a positive constant is monotonic
        return (int(alo / blo), int(ahi / blo))
    if op is Op.MOD and blo == bhi and blo > 0:
        if alo >= 0:
            return (0, min(ahi, blo - 1))
        return (max(alo, -(blo - 1)), min(max(ahi, 0), blo - 1))
    if op is Op.AND and node.dtype.is_int and (alo >= 0 or blo >= 0):
        # 0 <= x & y <= y for y >= 0 and any x: the least bound of a non-negative operand
        return (0, min(hi for lo, hi in ((alo, ahi), (blo, bhi)) if lo >= 0))
    return dt.bounds(node.dtype)


def _range_of_compare(node: AluExp) -> tuple:
    a, b = node.src
    if not (a.dtype.is_int or a.dtype.is_bool):
        return (0, 1)
    (alo, ahi), (blo, bhi) = a.range, b.range
    if node.op is Op.CMPLT:
        if ahi < blo:
            return (1, 1)
        if alo >= bhi:
            return (0, 0)
    elif ahi < blo or bhi < alo:  # CMPNE of disjoint ranges
        return (1, 1)
    elif alo == ahi == blo == bhi:
        return (0, 0)
    return (0, 1)


def value_range(node: AluExp) -> tuple:
    """Inclusive (min, max) of the values `node` can take; floats are unbounded."""
    op, dtype = node.op, node.dtype
    if op is Op.CONST:
        return (node.arg, node.arg) if not dtype.is_float else _INF
    if dtype.is_float:
        return _INF
    if op is Op.SPECIAL:
        return (0, max(node.arg[1] - 1, 0))
    if op in alu.BINARY:
        return _range_of_binary(node)
    if op in alu.COMPARE:
        return _range_of_compare(node)
    if op is Op.WHERE:
        (blo, bhi), (clo, chi) = node.src[1].range, node.src[2].range
        return (min(blo, clo), max(bhi, chi))
    if op is Op.CAST and not node.src[0].dtype.is_float:
        lo, hi = node.src[0].range
        return (lo, hi) if dt.bounds(dtype)[0] <= lo and hi <= dt.bounds(dtype)[1] else dt.bounds(dtype)
    if op is Op.NOT and dtype.is_bool:
        lo, hi = node.src[0].range
        return (1 - hi, 1 - lo)
    return dt.bounds(dtype)


# -- affine forms: sum(coef * term) + constant, for int32 index arithmetic -------------
def _affine(node: AluExp) -> tuple[dict[AluExp, int], int]:
    """Split an int32 sum into {term: coefficient} and a constant."""
    terms: dict[AluExp, int] = {}
    constant = 0
    stack = [(node, 1)]
    while stack:
        e, k = stack.pop()
        if e.op is Op.CONST:
            constant += k * e.arg
        elif e.op is Op.ADD:
            stack += [(e.src[0], k), (e.src[1], k)]
        elif e.op is Op.SUB:
            stack += [(e.src[0], k), (e.src[1], -k)]
        elif e.op is Op.MUL and e.src[1].op is Op.CONST:
            stack.append((e.src[0], k * e.src[1].arg))
        elif e.op is Op.NEG:
            stack.append((e.src[0], -k))
        else:
            terms[e] = terms.get(e, 0) + k
    return {t: k for t, k in terms.items() if k != 0}, constant


def _wrap_int32(value: int) -> int:
    """`value` modulo 2**32, as a signed int32. int32 sums and products wrap, so
    coefficients and constants of an int32 sum may be reduced this way."""
    return (value - _INT32_MIN) % 2**32 + _INT32_MIN


def _structure(node: AluExp, memo: dict) -> tuple:
    """A key that differs for any two different nodes (unlike their printed forms)."""
    if node not in memo:
        memo[node] = (node.op.value, node.dtype.name, repr(node.arg),
                      tuple(_structure(s, memo) for s in node.src))
    return memo[node]


def _sorted_terms(terms) -> list[AluExp]:
    """Terms in canonical order: by printed form, then by structure where two print
    alike (gidx of two sizes). Without a total order, rebuilding a sum could swap
    such terms back and forth forever. Terms whose printed form would be long (a DAG
    prints shared parts again and again: exponential in its depth) sort after the
    others, by a fingerprint of their structure."""
    memo: dict = {}
    return sorted(terms, key=lambda t: _order_key(t, memo))


# Terms that print with more nodes than this are ordered by fingerprint.
_PRINTED_NODES_LIMIT = 64


def _order_key(term: AluExp, memo: dict) -> tuple:
    if _tree_size(term, memo) <= _PRINTED_NODES_LIMIT:
        return (0, repr(term), _structure(term, memo))
    return (1, _fingerprint(term, memo), _structure(term, memo))


def _tree_size(node: AluExp, memo: dict) -> int:
    """How many nodes `node` prints as (shared sources counted each time they appear)."""
    key = ("size", node)
    if key not in memo:
        memo[key] = 1 + sum(_tree_size(s, memo) for s in node.src)
    return memo[key]


def _fingerprint(node: AluExp, memo: dict) -> str:
    """A deterministic digest of the structure (unlike hash(), stable across processes)."""
    key = ("fingerprint", node)
    if key not in memo:
        text = "|".join([node.op.value, node.dtype.name, repr(node.arg),
                         *(_fingerprint(s, memo) for s in node.src)])
        memo[key] = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    return memo[key]


def _scaled(term: AluExp, k: int) -> AluExp:
    return term if k == 1 else term * alu.const(dt.int32, k)


def _build_affine(terms: dict[AluExp, int], constant: int) -> AluExp:
    """Rebuild a canonical sum: terms with positive coefficients added in a fixed order,
    then those with negative ones subtracted, the constant last; `gidx - 2` and
    `5 - gidx`, since a subtraction is one op where `+ gidx * -1` is two."""
    added, subtracted = [], []
    for term in _sorted_terms(terms):
        k = _wrap_int32(terms[term])
        if k < 0 and k != _INT32_MIN:  # -INT32_MIN does not fit: add that one
            subtracted.append((term, -k))
        elif k != 0:
            added.append((term, k))
    constant = _wrap_int32(constant)
    result = None
    for term, k in added:
        result = _scaled(term, k) if result is None else result + _scaled(term, k)
    if result is None and (constant != 0 or not subtracted):
        result, constant = alu.const(dt.int32, constant), 0
    for term, k in subtracted:
        if result is None:
            result = -term if k == 1 else term * alu.const(dt.int32, -k)
        else:
            result = result - _scaled(term, k)
    if constant < 0 and constant != _INT32_MIN:
        return result - alu.const(dt.int32, -constant)
    return result + constant if constant else result


def _merge_divmod_terms(terms: dict[AluExp, int]) -> bool:
    """k*d*(x // d) + k*(x % d) -> k*x, and k*d*((x // d) % m) + k*(x % d) -> k*(x % (d*m)).

    Both hold for truncating division (the functions are odd, so negative x mirror
    positive x). Returns whether anything merged (terms is updated in place).
    """
    for rem, k in list(terms.items()):
        if not _is_mod_by_positive_const(rem) or rem not in terms:
            continue
        x, d = rem.src[0], rem.src[1].arg
        quotient = x // d
        if terms.get(quotient) == k * d:
            _replace_terms(terms, (rem, quotient), x, k)
            return True
        for term, kq in terms.items():
            if (_is_mod_by_positive_const(term) and term.src[0] is quotient and kq == k * d
                    and d * term.src[1].arg <= _INT32_MAX):
                merged = x % (d * term.src[1].arg)
                _replace_terms(terms, (rem, term), merged, k)
                return True
    return False


def _is_mod_by_positive_const(node: AluExp) -> bool:
    return node.op is Op.MOD and node.src[1].op is Op.CONST and node.src[1].arg > 0


def _replace_terms(terms: dict, old: tuple, new: AluExp, k: int) -> None:
    for t in old:
        del terms[t]
    terms[new] = terms.get(new, 0) + k
    if terms[new] == 0:
        del terms[new]


def _simplify_affine(node: AluExp) -> AluExp | None:
    """Canonicalise int32 sums: collect like terms, fold constants, merge div/mod pairs."""
    terms, constant = _affine(node)
    while _merge_divmod_terms(terms):
        pass
    rebuilt = _build_affine(terms, constant)
    return None if rebuilt is node else rebuilt


def _split_by_divisor(x: AluExp, d: int):
    """x = d*Q + R, with R's terms the ones whose coefficients d does not divide."""
    terms, constant = _affine(x)
    q_terms = {t: k // d for t, k in terms.items() if k % d == 0}
    r_terms = {t: k for t, k in terms.items() if k % d != 0}
    q0, r0 = divmod(constant, d)
    return _build_affine(q_terms, q0), _build_affine(r_terms, r0)


def _simplify_nested_divmod(node: AluExp) -> AluExp | None:
    """(y // a) // d = y // (a*d) and (y % (m*d)) % d = y % d for a, d, m > 0 and any y:
    they are the floor identities for y >= 0, and truncating // and % are odd in y."""
    x, d = node.src[0], node.src[1].arg
    if x.op is not node.op or x.src[1].op is not Op.CONST or x.src[1].arg <= 0:
        return None
    inner = x.src[1].arg
    if node.op is Op.IDIV and inner * d <= _INT32_MAX:
        return x.src[0] // (inner * d)
    if node.op is Op.MOD and inner % d == 0:
        return x.src[0] % d
    return None


def _simplify_divmod(node: AluExp) -> AluExp | None:
    """(d*Q + R) // d = Q + k and (d*Q + R) % d = R - k*d when R lies in [k*d, (k+1)*d),
    else Q + R // d and R % d when R >= 0, for a non-negative dividend (so truncation
    is floor). A dividend that may wrap
    (its range is not known to fit int32) is left alone: user integer code wraps as
    JAX's does, and kernel indices never wrap (`view.MultiIndex`)."""
    x, divisor = node.src
    d = divisor.arg
    if node.op is Op.MOD and -d < x.range[0] and x.range[1] < d:
        return x  # |x| < d: x % d = x (the remainder keeps the dividend's sign)
    nested = _simplify_nested_divmod(node)
    if nested is not None:
        return nested
    if x.range[0] < 0:
        return None
    q, r = _split_by_divisor(x, d)
    rlo, rhi = r.range
    if rlo < 0:
        return _drop_small_offset(node)
    if rlo // d != rhi // d:
        if q.op is Op.CONST:  # no term is a multiple of d
            return _split_through_factor(node) or _drop_small_offset(node)
        # Both parts non-negative: floor division distributes over the multiple of d.
        return q + r // d if node.op is Op.IDIV else r % d
    k = rlo // d
    return q + k if node.op is Op.IDIV else r - k * d


def _split_through_factor(node: AluExp) -> AluExp | None:
    """(c*Q + R) // (c*m) = Q // m and (c*Q + R) % (c*m) = (Q % m)*c + R for R in [0, c)
    and a non-negative dividend (floor division nests): an index split into axes of
    sizes c and m, read through a coarser axis ((i*36 + j) // 144 = i // 4, j < 36)."""
    x, d = node.src[0], node.src[1].arg
    terms, _ = _affine(x)
    for c in sorted({k for k in terms.values() if 1 < k < d and d % k == 0}, reverse=True):
        q, r = _split_by_divisor(x, c)
        if q.op is not Op.CONST and 0 <= r.range[0] and r.range[1] < c:
            m = d // c
            return q // m if node.op is Op.IDIV else (q % m) * c + r
    return None


def _drop_small_offset(node: AluExp) -> AluExp | None:
    """(g*Y + c) // d = (g*Y) // d and (g*Y + c) % d = (g*Y) % d + c when g divides d
    and every coefficient of Y, 0 < c < g and g*Y >= 0: from a multiple of g, an offset
    below g cannot reach the next multiple of d. The outputs a thread computes side by
    side (tid*4 + u) then share their row index, and the loads that depend on it."""
    d = node.src[1].arg
    terms, constant = _affine(node.src[0])
    g = math.gcd(d, *terms.values())
    q0, c = divmod(constant, g)
    if g <= 1 or c == 0:
        return None
    base = _build_affine(terms, q0 * g)
    if base.range[0] < 0:
        return None
    return base // d if node.op is Op.IDIV else base % d + c


def _fold_constants(node: AluExp) -> AluExp | None:
    """An op on constants is the constant it evaluates to."""
    if node.src and all(s.op is Op.CONST for s in node.src) and node.op is not Op.LOAD:
        return alu.const(node.dtype, evaluate_scalar(node))
    return None


def _fold_known_range(node: AluExp) -> AluExp | None:
    """An integer or bool node whose range is a single value is that constant."""
    if node.op is Op.CONST or node.dtype.is_float:
        return None
    lo, hi = node.range
    return alu.const(node.dtype, lo) if lo == hi else None


def _is_const(e: AluExp, value) -> bool:
    """Whether `e` is the constant `value` (telling -0.0 from 0.0)."""
    if e.op is not Op.CONST or e.arg != value:
        return False
    return not isinstance(value, float) or math.copysign(1, value) == math.copysign(1, e.arg)


def _swappable(node: AluExp) -> bool:
    """Whether swapping the operands keeps every value. Not for float min/max, where
    np.minimum(0.0, -0.0) is -0.0 but np.minimum(-0.0, 0.0) is 0.0."""
    if node.op not in alu.COMMUTATIVE or len(node.src) != 2:
        return False
    return not (node.dtype.is_float and node.op in (Op.MIN, Op.MAX))


def _identities(node: AluExp) -> AluExp | None:
    op, src = node.op, node.src
    integer = node.dtype.is_int
    if _swappable(node) and src[0].op is Op.CONST and src[1].op is not Op.CONST:
        return AluExp(op, node.dtype, (src[1], src[0]), node.arg)  # constants to the right
    if op is Op.ADD and integer and _is_const(src[1], 0):
        return src[0]  # x + 0 = x  (not for floats: -0.0 + 0.0 = 0.0)
    if op is Op.ADD and node.dtype.is_float and _is_const(src[1], -0.0):
        return src[0]  # x + -0.0 = x
    if op is Op.SUB and _is_const(src[1], 0.0 if node.dtype.is_float else 0):
        return src[0]  # x - 0 = x  (for floats only +0.0: -0.0 - -0.0 = +0.0)
    if op is Op.MUL and _is_const(src[1], 1):
        return src[0]  # x * 1 = x
    if op is Op.MUL and integer and _is_const(src[1], 0):
        return src[1]  # x * 0 = 0  (not for floats: NaN, inf)
    if op is Op.IDIV and integer and _is_const(src[1], 1):
        return src[0]  # x // 1 = x
    if op is Op.DIV and _is_const(src[1], 1):
        return src[0]  # x / 1.0 = x
    if op is Op.MOD and integer and _is_const(src[1], 1):
        return alu.const(node.dtype, 0)  # x % 1 = 0
    if op in (Op.MIN, Op.MAX, Op.AND, Op.OR) and src[0] is src[1]:
        return src[0]  # min(x, x) = x, x & x = x
    if op in (Op.MIN, Op.MAX) and not node.dtype.is_float:
        for outer, inner in ((src[0], src[1]), (src[1], src[0])):
            if inner.op is op and outer in inner.src:
                # max(a, max(a, b)) = max(a, b). Also a workaround: NVIDIA's compiler
                # returned a for negative a in int32 max(a, max(a, -a)) (the H200 run).
                return inner
        (alo, ahi), (blo, bhi) = src[0].range, src[1].range
        if ahi <= blo:
            return src[0] if op is Op.MIN else src[1]  # ranges ordered: min/max decided
        if bhi <= alo:
            return src[1] if op is Op.MIN else src[0]
    if op is Op.AND and node.dtype.is_bool and src[1].op is Op.CONST:
        return src[0] if src[1].arg else src[1]  # x & True = x, x & False = False
    if op is Op.OR and node.dtype.is_bool and src[1].op is Op.CONST:
        return src[1] if src[1].arg else src[0]  # x | True = True, x | False = x
    if op in (Op.AND, Op.OR) and node.dtype.is_bool and any(
            a.op is Op.NOT and a.src[0] is b for a, b in (src, src[::-1])):
        # x & ~x = False, x | ~x = True. Shader compilers fold these, so folding them
        # here lets the float guards see the constant they make (x * cast(x & ~x) is a
        # product with 0.0: NaN for x = inf, which a compiler assuming finite math drops).
        return alu.const(node.dtype, op is Op.OR)
    if (op is Op.XOR or op is Op.SUB and not node.dtype.is_float) and src[0] is src[1]:
        # x ^ x = 0 (False), and x - x = 0 for integers (not floats: inf - inf is NaN):
        # folded here for the same reason as x & ~x (in float16, x * cast(b & (b ^ b))).
        return alu.const(node.dtype, 0)
    if (op is Op.CMPLT or op is Op.CMPNE and not src[0].dtype.is_float) and src[0] is src[1]:
        # x < x = False (for floats too, NaN included), and x != x = False for integers
        # (not floats: NaN != NaN): folded for the same reason (x * cast(b < b)).
        return alu.const(node.dtype, False)
    if op in (Op.NEG, Op.NOT) and src[0].op is op:
        return src[0].src[0]  # --x = x, ~~x = x
    if op is Op.WHERE:
        if src[0].op is Op.CONST:
            return src[1] if src[0].arg else src[2]  # where(True, a, b) = a
        if src[1] is src[2]:
            return src[1]  # where(c, a, a) = a
    return None


def _fits_int32(value: int) -> bool:
    return _INT32_MIN <= value <= _INT32_MAX


def _split_offset(e: AluExp) -> tuple[AluExp, int] | None:
    """`x + c` or `x - c` (c a constant) as (x, c), if adding c to x never wraps."""
    if e.op not in (Op.ADD, Op.SUB) or e.src[1].op is not Op.CONST:
        return None
    x, c = e.src[0], e.src[1].arg if e.op is Op.ADD else -e.src[1].arg
    lo, hi = x.range
    return (x, c) if _fits_int32(lo + c) and _fits_int32(hi + c) else None


def _simplify_offset_compare(node: AluExp) -> AluExp | None:
    """x + c < k  ->  x < k - c, and k < x + c  ->  k - c < x, when x + c does not wrap.
    Validity checks of a padded view compare shifted indices with bounds."""
    a, b = node.src
    if b.op is Op.CONST and _split_offset(a) is not None:
        x, c = _split_offset(a)
        return x.lt(b.arg - c) if _fits_int32(b.arg - c) else None
    if a.op is Op.CONST and _split_offset(b) is not None:
        x, c = _split_offset(b)
        return alu.const(dt.int32, a.arg - c).lt(x) if _fits_int32(a.arg - c) else None
    return None


def _is_nonnegative_quotient(e: AluExp) -> bool:
    """Whether `e` is x // d with d > 0 and x >= 0 (so truncation is floor)."""
    return (e.op is Op.IDIV and e.src[1].op is Op.CONST and e.src[1].arg > 0
            and e.src[0].range[0] >= 0)


def _simplify_quotient_compare(node: AluExp) -> AluExp | None:
    """x // d < k  ->  x < k*d, and k < x // d  ->  (k+1)*d - 1 < x, for x >= 0 and d > 0
    (floor(x / d) < k exactly when x < k*d). The mask of a view's outermost axis
    then tests the flat index itself, without the division."""
    a, b = node.src
    if b.op is Op.CONST and _is_nonnegative_quotient(a):
        bound = b.arg * a.src[1].arg
        return a.src[0].lt(bound) if _fits_int32(bound) else None
    if a.op is Op.CONST and _is_nonnegative_quotient(b):
        bound = (a.arg + 1) * b.src[1].arg - 1
        return alu.const(dt.int32, bound).lt(b.src[0]) if _fits_int32(bound) else None
    return None


def _never_wraps(terms: dict[AluExp, int], constant: int) -> bool:
    """Whether the sum of `terms` (node -> coefficient) and `constant` stays within int32
    for every value the terms' ranges allow (user integer code may wrap; indices do not)."""
    lo = hi = constant
    for term, k in terms.items():
        a, b = term.range
        if not (_fits_int32(a) and _fits_int32(b)):
            return False
        lo, hi = lo + min(k * a, k * b), hi + max(k * a, k * b)
    return _fits_int32(lo) and _fits_int32(hi)


def _simplify_split_compare(node: AluExp) -> AluExp | None:
    """k < d*Q + R  ->  k // d < Q when k % d = d - 1, and d*Q + R < k  ->  Q < k // d
    when k % d = 0, for R in [0, d) (floor division and modulo): the comparison cannot
    depend on R. A padded view's mask on an outer axis, tested on the flat output
    index, becomes a test of that axis alone once the index is split into axes (the
    operands of a matrix product, core/contraction.py)."""
    a, b = node.src
    if (a.op is Op.CONST) == (b.op is Op.CONST):
        return None
    x, k = (b, a.arg) if a.op is Op.CONST else (a, b.arg)
    terms, constant = _affine(x)
    if not _never_wraps(terms, constant):
        return None
    for d in sorted({abs(c) for c in terms.values() if abs(c) > 1}, reverse=True):
        q, r = _split_by_divisor(x, d)
        if q.op is Op.CONST or r.range[0] < 0 or r.range[1] >= d:
            continue
        if a.op is Op.CONST and k % d == d - 1:
            return alu.const(dt.int32, k // d).lt(q)
        if b.op is Op.CONST and k % d == 0:
            return q.lt(k // d)
    return None


def _index_rules(node: AluExp) -> AluExp | None:
    if node.op is Op.CMPLT and node.src[0].dtype is dt.int32:
        for rule in (_simplify_offset_compare, _simplify_quotient_compare, _simplify_split_compare):
            found = rule(node)
            if found is not None:
                return found
        return None
    if node.dtype is not dt.int32:
        return None
    if node.op in (Op.ADD, Op.SUB, Op.MUL, Op.NEG):
        return _simplify_affine(node)
    if node.op in (Op.IDIV, Op.MOD) and node.src[1].op is Op.CONST and node.src[1].arg > 0:
        return _simplify_divmod(node)
    return None


RULES = (_fold_constants, _fold_known_range, _identities, _index_rules)


def _simplify_node(node: AluExp) -> AluExp:
    for rule in RULES:
        result = rule(node)
        if result is not None and result is not node:
            return simplify(result)
    return node


def simplify(exp: AluExp) -> AluExp:
    """Apply the rules bottom-up until nothing changes. A node's simplified form depends
    on the node alone, and nodes are interned, so each node remembers its own
    (`AluExp.simplified`): a subexpression shared by many kernels is simplified once."""
    stack = [exp]
    while stack:
        node = stack[-1]
        if node.simplified is not None:
            stack.pop()
            continue
        pending = [s for s in node.src if s.simplified is None]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        src = tuple(s.simplified for s in node.src)
        rebuilt = node if src == node.src else AluExp(node.op, node.dtype, src, node.arg)
        result = rebuilt.simplified
        if result is None:
            result = _simplify_node(rebuilt)
            rebuilt.remember_simplified(result)
        node.remember_simplified(result)
    return exp.simplified
