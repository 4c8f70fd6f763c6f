"""CAP conditions on tiny hand-built datasets; every expected value is worked out by hand.

Verdicts are written in ORIGINAL response letters: a B/A verdict "A" means the judge
picked the original response A (already mapped back by the importer).
"""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile
from cap_core.schema import DECLARATION_SCHEMA

MISSING = None  # no judgment row at all


def make_ds(bench, items, verdicts, decls=()):
    """items: (item_id, base, variant, failure_type, subset, gold);
    verdicts: {(judge, item_id): (v_AB, v_BA, rs_AB)} with MISSING for an absent row."""
    it = pl.DataFrame(
        [(bench, i, b, v, f, s, g) for i, b, v, f, s, g in items],
        schema=["benchmark", "item_id", "base_item_id", "variant", "failure_type", "subset", "gold"], orient="row",
    )
    rows = []
    for (judge, item), (vab, vba, rs) in verdicts.items():
        if vab is not MISSING:
            rows.append((judge, bench, item, "AB", vab, rs))
        if vba is not MISSING:
            rows.append((judge, bench, item, "BA", vba, None))
    jd = pl.DataFrame(rows, schema={"judge": pl.String, "benchmark": pl.String, "item_id": pl.String,
                                    "order": pl.String, "verdict": pl.String, "rationale_supported": pl.Int8},
                      orient="row")
    dc = pl.DataFrame([dict(benchmark=bench, **d) for d in decls], schema=DECLARATION_SCHEMA)
    return Dataset.build(it, jd, dc)


def cell(profile, condition, metric, judge="J1", subset="all"):
    sel = profile.filter((pl.col("judge") == judge) & (pl.col("condition") == condition)
                         & (pl.col("metric") == metric) & (pl.col("subset") == subset))
    assert sel.height == 1, (condition, metric, sel)
    return sel.row(0, named=True)


# Benchmark "jx": base items b1..b3 in three presentations, b4 plain only. gold b1 A, b2 B, b3 A, b4 B.
JX_ITEMS = [
    ("b1p", "b1", "plain", "factual_fabrication", "all", "A"),
    ("b1s", "b1", "polished", "factual_fabrication", "all", "A"),
    ("b1l", "b1", "length_padded", "factual_fabrication", "all", "A"),
    ("b2p", "b2", "plain", "factual_fabrication", "all", "B"),
    ("b2s", "b2", "polished", "factual_fabrication", "all", "B"),
    ("b2l", "b2", "length_padded", "factual_fabrication", "all", "B"),
    ("b3p", "b3", "plain", "omission", "all", "A"),
    ("b3s", "b3", "polished", "omission", "all", "A"),
    ("b3l", "b3", "length_padded", "omission", "all", "A"),
    ("b4p", "b4", "plain", "overclaim", "all", "B"),
]
#            (v_AB, v_BA, rationale_supported on the AB row)
JX_J1 = {
    "b1p": ("A", "A", 1),         # BA "A" = original A = gold -> correct in both orders
    "b1s": ("A", "B", 0),
    "b1l": ("A", "A", None),
    "b2p": ("B", "tie", 1),       # tie never correct
    "b2s": ("B", "tie", 1),
    "b2l": ("A", "unparsed", None),
    "b3p": ("A", "A", None),
    "b3s": (MISSING, "A", None),  # AB judgment missing
    "b3l": ("B", "B", 1),         # consistently wrong; rs on a wrong verdict is ignored
    "b4p": ("B", "B", None),
}


@pytest.fixture(scope="module")
def jx():
    ds = make_ds("jx", JX_ITEMS, {("J1", k): v for k, v in JX_J1.items()})
    return compute_profile(ds, n_resamples=200, seed=1).profile


def test_overall_pa_all_variants(jx):
    # per-item pa: b1p 1, b1s .5, b1l 1, b2p .5, b2s .5, b2l 0, b3p 1, b3s .5, b3l 0, b4p 1 -> 6/10
    r = cell(jx, "overall", "pa")
    assert r["value"] == pytest.approx(60.0)
    assert (r["n_items"], r["n_excluded"]) == (10, 4)  # b2p, b2s, b2l, b3s carry tie/unparsed/missing
    assert r["status"] == "" and r["primary"]


def test_content_conditions_use_plain_items(jx):
    # C1 factual_fabrication plain items: b1p 1, b2p .5 -> 75 %, one with a tie
    c1 = cell(jx, "C1", "pa")
    assert (c1["value"], c1["n_items"], c1["n_excluded"], c1["status"]) == (pytest.approx(75.0), 2, 1, "direct")
    # C3 overclaim: b4p only (pa 1) -> n=1 so the CI collapses on the value
    c3 = cell(jx, "C3", "pa")
    assert (c3["value"], c3["ci_low"], c3["ci_high"], c3["n_items"]) == (100.0, 100.0, 100.0, 1)
    # C4 omission: b3p only -> 100 %
    assert cell(jx, "C4", "pa")["value"] == pytest.approx(100.0)
    # C2: no logical_reversal items -> one null row, unavailable, still primary
    c2 = cell(jx, "C2", "pa")
    assert c2["value"] is None and c2["ci_low"] is None and c2["status"] == "unavailable" and c2["primary"]


def test_c5_style_strict_consistency(jx):
    # per base, per order (plain, polished): b1 AB both A ok / BA polished wrong -> strict .5, cons .5
    # b2 AB both ok / BA tie,tie -> strict .5, cons 1 (tie==tie consistent)
    # b3 AB polished missing / BA both ok -> strict .5, cons .5 ; b4 has no polished item -> not a unit
    assert cell(jx, "C5", "strict")["value"] == pytest.approx(50.0)
    assert cell(jx, "C5", "consistency")["value"] == pytest.approx(200 / 3)
    sbw = cell(jx, "C5", "stable_but_wrong")
    assert sbw["value"] == pytest.approx(200 / 3 - 50.0)
    s = cell(jx, "C5", "strict")
    assert (s["n_items"], s["n_excluded"], s["status"], s["primary"]) == (3, 2, "direct", True)
    assert not cell(jx, "C5", "consistency")["primary"]


def test_c6_length_strict_consistency(jx):
    # b1 both orders both correct -> 1 ; b2 AB padded wrong, BA tie vs unparsed -> 0 (not consistent)
    # b3 padded B in both orders -> 0 strict, 0 consistent -> strict 1/3, cons 1/3, sbw 0
    s, c = cell(jx, "C6", "strict"), cell(jx, "C6", "consistency")
    assert s["value"] == pytest.approx(100 / 3) and c["value"] == pytest.approx(100 / 3)
    assert cell(jx, "C6", "stable_but_wrong")["value"] == pytest.approx(0.0)
    assert (s["n_items"], s["n_excluded"]) == (3, 1)  # only b2 has a tie/unparsed verdict


def test_c7_position(jx):
    # strict (both orders correct): b1p, b1l, b3p, b4p -> 4/10
    # consistent: b1p, b1l, b3p, b3l (B,B), b4p -> 5/10 ; (B,tie), (A,unparsed), missing never consistent
    assert cell(jx, "C7", "strict")["value"] == pytest.approx(40.0)
    assert cell(jx, "C7", "consistency")["value"] == pytest.approx(50.0)
    assert cell(jx, "C7", "stable_but_wrong")["value"] == pytest.approx(10.0)
    s = cell(jx, "C7", "strict")
    assert (s["n_items"], s["n_excluded"], s["status"]) == (10, 4, "direct")


def test_c8_conditional_and_unconditional(jx):
    # AB-correct items: b1p b1s b1l b2p b2s b3p b4p (7). Evaluated among them: b1p 1, b1s 0, b2p 1, b2s 1
    # -> supported 3/4 = 75 %, n 4, excluded 3 (b1l, b3p, b4p correct but not evaluated). b3l is wrong: ignored.
    sup = cell(jx, "C8", "supported")
    assert (sup["value"], sup["n_items"], sup["n_excluded"], sup["primary"]) == (pytest.approx(75.0), 4, 3, True)
    # unconditional = AB accuracy 7/10 x 75 % = 52.5 %; AB accuracy counts 10 items, b3s AB missing
    sc = cell(jx, "C8", "supported_correct")
    assert (sc["value"], sc["n_items"], sc["n_excluded"], sc["primary"]) == (pytest.approx(52.5), 10, 1, False)


def test_one_primary_per_condition_and_no_nan(jx):
    counts = jx.group_by("judge", "benchmark", "subset", "condition").agg(pl.col("primary").sum())
    assert counts.height == 9 and counts["primary"].to_list() == [1] * 9
    for c in ("value", "ci_low", "ci_high"):
        assert not jx[c].is_nan().any()
    ok = jx.filter(pl.col("value").is_not_null())
    assert ((ok["ci_low"] <= ok["value"] + 1e-9) & (ok["value"] <= ok["ci_high"] + 1e-9)).all()


def test_llmbar_style_c5_gap():
    items = [("n1", "n1", "original", None, "Natural", "A"), ("n2", "n2", "original", None, "Natural", "B"),
             ("a1", "a1", "original", None, "GPTInst", "A"), ("a2", "a2", "original", None, "Neighbor", "B"),
             ("a3", "a3", "original", None, "GPTInst", "A")]
    v = {("J1", "n1"): ("A", "A", None), ("J1", "n2"): ("B", "A", None),   # natural pa (1 + .5)/2 = 75
         ("J1", "a1"): ("B", "B", None), ("J1", "a2"): ("B", "B", None),   # adversarial pa (0+1+.5)/3 = 50
         ("J1", "a3"): ("A", "tie", None)}
    decl = [dict(condition="C5", status="direct", selector="subset", values=["GPTInst", "Neighbor", "Manual"],
                 reference=["Natural"])]
    p = compute_profile(make_ds("lb", items, v, decl), n_resamples=100).profile
    pa, nat, gap = cell(p, "C5", "pa"), cell(p, "C5", "natural_pa"), cell(p, "C5", "surface_gap")
    assert pa["value"] == pytest.approx(50.0) and pa["primary"] and pa["status"] == "direct"
    assert (pa["n_items"], pa["n_excluded"]) == (3, 1)
    assert nat["value"] == pytest.approx(75.0) and not nat["primary"]
    assert gap["value"] == pytest.approx(25.0) and not gap["primary"]
    assert cell(p, "C8", "supported")["status"] == "unavailable"  # no evaluated rationales
    assert cell(p, "C6", "strict")["status"] == "unavailable"


def test_single_order_benchmark_and_declared_subset():
    items = [("x1", "x1", "original", None, "knowledge", "A"), ("x2", "x2", "original", None, "knowledge", "B"),
             ("x3", "x3", "original", None, "reasoning", "B"), ("x4", "x4", "original", None, "reasoning", "A")]
    v = {("J1", "x1"): ("A", MISSING, None), ("J1", "x2"): ("A", MISSING, None),
         ("J1", "x3"): ("B", MISSING, None), ("J1", "x4"): ("tie", MISSING, None)}
    decl = [dict(condition="C1", status="approximate", selector="subset", values=["knowledge"]),
            dict(condition="C2", status="approximate", selector="subset", values=["no_such_subset"])]
    p = compute_profile(make_ds("one", items, v, decl), n_resamples=100, by_subset=True).profile
    # only AB exists: accuracy on AB = x1, x3 correct -> 50 %; x4 tie excluded-but-counted
    o = cell(p, "overall", "pa")
    assert (o["value"], o["n_items"], o["n_excluded"]) == (pytest.approx(50.0), 4, 1)
    c1 = cell(p, "C1", "pa")  # knowledge: x1 right, x2 wrong
    assert (c1["value"], c1["status"]) == (pytest.approx(50.0), "approximate")
    assert cell(p, "C2", "pa")["status"] == "unavailable"   # declared subset has no items
    assert cell(p, "C7", "strict")["status"] == "unavailable"  # one order only
    assert cell(p, "overall", "pa", subset="reasoning")["value"] == pytest.approx(50.0)  # x3 yes, x4 tie


def test_missing_evaluations_make_c8_unavailable_for_that_judge():
    items = [("y1", "y1", "original", None, "all", "A"), ("y2", "y2", "original", None, "all", "B")]
    v = {("J1", "y1"): ("A", "A", 1), ("J1", "y2"): ("B", "B", 1),
         ("J2", "y1"): ("A", "A", None), ("J2", "y2"): ("A", "A", 0)}  # J2's only evaluated item is wrong
    p = compute_profile(make_ds("r", items, v), n_resamples=100).profile
    assert cell(p, "C8", "supported")["value"] == pytest.approx(100.0)
    j2 = cell(p, "C8", "supported", judge="J2")
    assert j2["value"] is None and j2["status"] == "unavailable" and j2["n_excluded"] == 1  # y1 not evaluated


@pytest.mark.parametrize("kw", [dict(n_resamples=0), dict(n_resamples=2.5), dict(n_resamples=True),
                                dict(level=1.0), dict(level=0), dict(seed=-1), dict(judges=["nobody"]),
                                dict(benchmarks=["nowhere"])])
def test_bad_arguments(kw):
    ds = make_ds("jx", JX_ITEMS, {("J1", k): v for k, v in JX_J1.items()})
    with pytest.raises(CAPInputError) as err:
        compute_profile(ds, **kw)
    if "judges" in kw:
        assert "J1" in str(err.value)  # the message lists the allowed names
    if "benchmarks" in kw:
        assert "jx" in str(err.value)
