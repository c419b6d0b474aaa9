"""Every primitive has its rules: abstract evaluation, lowering, JVP, transposition where
it is linear, batching (its allow-list shrinks to empty as the rules land)."""

import pytest

import jaxwg  # noqa: F401 - registers every lowering rule
from jaxwg.frontend import primitives as P
from jaxwg.transforms import batching

# Primitives without a transpose rule: those that are not linear in any input. Their
# equations never sit on the linear (tangent) side of a linearized function, because
# their JVP rules apply linear primitives to tangents; the ones whose derivative is
# zero (integer results, rounding, stop_gradient) have no tangent side at all.
NOT_LINEAR = {
    "sign", "abs", "not", "floor", "ceil", "round", "is_finite", "exp", "exp2", "log", "log1p",
    "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "asinh", "acosh", "atanh", "sqrt", "rsqrt", "cbrt", "erf", "erfc", "erf_inv", "square",
    "integer_pow",
    "rem", "pow", "max", "min", "atan2", "nextafter", "fma", "and", "or", "xor", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "eq", "ne", "lt", "le", "gt", "ge",
    "bitcast_convert_type", "clamp", "iota", "empty2", "reduce_prod", "reduce_max", "reduce_min",
    "reduce_and", "reduce_or", "argmax", "argmin", "stop_gradient", "pmax", "pmin", "axis_index",
    "name",  # its JVP rule leaves the tangent unnamed
    "threefry2x32", "sort_permutation", "sort", "top_k", "scatter_max_flat",
    # keys have no tangents (float0)
    "random_seed", "random_wrap", "random_unwrap", "random_bits", "random_split", "random_fold_in",
    "random_gamma",  # and its samples are not linear in their parameter
    # scatter maxima and minima differentiate through what they compute
    "scatter-min", "scatter-max",
    # calls whose JVP rules replace them with the user's rules (the custom functions)
    "custom_jvp_call", "custom_vjp_call",
    # reverse mode through a while loop is JAX's error too (partial_eval.py says so)
    "while",
}
NOT_YET = {
    # nextafter has no derivative in JAX either: differentiating it raises JAX's error
    "jvp_rules": {"nextafter"},
    "transpose_rules": NOT_LINEAR,
    # iota, empty2 and axis_index take no operands, so no batched value ever reaches
    # them (a vmap level reads axis_index off its own axis); custom_lin is only
    # transposed (a custom_vjp function's linear part), never evaluated or batched.
    "batch_rules": {"iota", "empty2", "axis_index", "custom_lin"},
}


@pytest.mark.parametrize("prim", P.ALL_PRIMITIVES, ids=lambda p: p.name)
def test_required_rules_exist(prim):
    assert prim in P.abstract_eval_rules, f"{prim} has no abstract_eval rule"
    # Primitives of complex values alone (real, imag, ...) lower through complex_rules.
    assert prim in P.lowering_rules or prim in P.complex_rules, f"{prim} has no lowering rule"


@pytest.mark.parametrize("table", sorted(NOT_YET))
def test_transformation_tables_match_their_allow_lists(table):
    rules = set(getattr(P, table))
    if table == "batch_rules":  # psum, pmax and pmin's rules see the level's axis name
        rules |= set(batching.reducing_collective_rules)
    missing = {p.name for p in P.ALL_PRIMITIVES if p not in rules}
    assert missing == NOT_YET[table], "update the allow-list when adding rules"


def test_primitive_names_are_unique():
    names = [p.name for p in P.ALL_PRIMITIVES]
    assert len(names) == len(set(names))
