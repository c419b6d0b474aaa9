"""Every primitive has its rules: abstract evaluation and lowering now; the
transformation tables are filled by later work (their allow-lists shrink to empty)."""

import pytest

import jaxwg  # noqa: F401 - registers every lowering rule
from jaxwg.frontend import primitives as P

# Tables the transformations will fill; every primitive is still missing from them.
NOT_YET = {
    "jvp_rules": {p.name for p in P.ALL_PRIMITIVES},
    "transpose_rules": {p.name for p in P.ALL_PRIMITIVES},
    "batch_rules": {p.name for p in P.ALL_PRIMITIVES},
}


@pytest.mark.parametrize("prim", P.ALL_PRIMITIVES, ids=lambda p: p.name)
def test_required_rules_exist(prim):
    assert prim in P.abstract_eval_rules, f"{prim} has no abstract_eval rule"
    assert prim in P.lowering_rules, f"{prim} has no lowering rule"


@pytest.mark.parametrize("table", sorted(NOT_YET))
def test_transformation_tables_match_their_allow_lists(table):
    rules = getattr(P, table)
    missing = {p.name for p in P.ALL_PRIMITIVES if p not in rules}
    assert missing == NOT_YET[table], "update the allow-list when adding rules"


def test_primitive_names_are_unique():
    names = [p.name for p in P.ALL_PRIMITIVES]
    assert len(names) == len(set(names))
