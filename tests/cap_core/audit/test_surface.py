"""Label-set surface audit on fixtures whose answer is known, plus metric cross-checks."""

from __future__ import annotations

import string

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import cohen_kappa_score

from cap_core.audit.label_set import SINGLE_SCHEMA, LabelSet, pairs_frame
from cap_core.audit.surface import AUDIT_SCHEMA, audit_label_set, permute_within
from cap_core.errors import CAPInputError

N_PERM = 20  # smallest attainable p is 1/21 = 0.048 <= 0.05


def _text(rng: np.random.Generator, n: int) -> str:
    words = ["".join(rng.choice(list(string.ascii_lowercase), size=rng.integers(2, 8))) for _ in range(n)]
    return " ".join(words)


def _longer_wins(n: int = 60, seed: int = 1) -> LabelSet:
    """Each pair: two random texts of different word counts; the longer one is labelled better."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        a, b = _text(rng, int(rng.integers(5, 80))), _text(rng, int(rng.integers(5, 80)))
        if len(a) == len(b):
            b += " extra"
        rows.append((f"p{i}", f"g{i}", "all", a, b, "A" if len(a) > len(b) else "B"))
    return LabelSet("longer wins", pairs_frame(rows))


def _random_labels(n: int = 200, seed: int = 2) -> LabelSet:
    rng = np.random.default_rng(seed)
    rows = [(f"p{i}", f"g{i // 2}", "all", _text(rng, int(rng.integers(5, 60))), _text(rng, int(rng.integers(5, 60))),
             "A" if rng.random() < 0.5 else "B") for i in range(n)]
    return LabelSet("random", pairs_frame(rows))


def _leaky(n_groups: int = 30, per_group: int = 8, seed: int = 3) -> LabelSet:
    """Single responses; all responses of a group share one label and a group-specific marker word."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        marker = "".join(rng.choice(list("QWXZJK"), size=6))
        lab = int(g % 2)
        for k in range(per_group):
            rows.append((f"u{g}-{k}", f"g{g}", "all", f"{marker} {marker} " + _text(rng, 12), lab))
    return LabelSet("leaky", pairs_frame([]), pl.DataFrame(rows, schema=SINGLE_SCHEMA, orient="row"))


def _row(res, predictor, mode) -> dict:
    return res.table.filter((pl.col("predictor") == predictor) & (pl.col("mode") == mode)).row(0, named=True)


def test_longer_wins_gives_length_only_paired_accuracy_100_and_significant_p():
    res = audit_label_set(_longer_wins(), predictors=["length_only"], modes=["paired"], n_permutations=N_PERM)
    row = _row(res, "length_only", "paired")
    assert row["accuracy"] == 100.0 and row["kappa"] == pytest.approx(1.0)
    # no relabelled fit can reach 100%, so the p-value is the smallest possible, 1/(1+20)
    assert row["p_value"] == pytest.approx(1 / 21)
    assert row["null_p95"] < 75.0 and row["clears_null"] is True
    assert row["verdict"] == "recoverable from surface"


def test_random_labels_give_chance_and_no_significance():
    res = audit_label_set(_random_labels(), n_permutations=N_PERM)
    assert res.table.height == 6
    assert res.table["accuracy"].is_between(38.0, 62.0).all(), res.table
    # at alpha = 0.05 one of six null rows may clear by chance; more would point to a leak
    assert res.table["clears_null"].sum() <= 1
    assert res.table["kappa"].abs().max() < 0.25


def test_leaky_fixture_row_folds_inflate_and_group_folds_are_the_default():
    ls = _leaky()
    kw = dict(predictors=["surface_ngram"], modes=["item"], n_permutations=0)
    row_level = _row(audit_label_set(ls, folds="row", **kw), "surface_ngram", "item")
    group_level = _row(audit_label_set(ls, folds="group", **kw), "surface_ngram", "item")
    default = audit_label_set(ls, **kw)
    assert row_level["accuracy"] >= 90.0  # the group marker identifies the label when groups straddle folds
    assert group_level["accuracy"] <= 65.0  # unseen groups: markers carry nothing
    assert _row(default, "surface_ngram", "item")["accuracy"] == group_level["accuracy"]
    assert default.table["folds"][0].startswith("StratifiedGroupKFold")
    # no group is split across folds
    groups = dict(zip(ls.singles["unit_id"], ls.singles["group"]))
    per_group = default.predictions.with_columns(pl.col("unit_id").replace_strict(groups).alias("g"))
    assert per_group.group_by("g").agg(pl.col("fold").n_unique())["fold"].max() == 1


def test_kappa_and_accuracy_match_sklearn_on_the_predictions():
    res = audit_label_set(_random_labels(120, seed=5), n_permutations=0)
    for row in res.table.iter_rows(named=True):
        p = res.predictions.filter((pl.col("predictor") == row["predictor"]) & (pl.col("mode") == row["mode"]))
        y, yhat = p["label"].to_numpy(), p["predicted"].to_numpy()
        assert row["kappa"] == pytest.approx(cohen_kappa_score(y, yhat))
        assert row["accuracy"] == pytest.approx(100.0 * np.mean(y == yhat))
        assert row["n_units"] == p.height
    assert res.table["p_value"].is_null().all() and res.table["verdict"][0] == "no null computed"


def test_pair_units_keep_both_responses_in_one_fold_and_sides_are_randomised():
    ls = _random_labels(200, seed=7)
    res = audit_label_set(ls, predictors=["length_only"], n_permutations=0)
    item = res.predictions.filter(pl.col("mode") == "item")
    assert item.group_by("pair_id").agg(pl.col("fold").n_unique())["fold"].max() == 1
    paired = res.predictions.filter(pl.col("mode") == "paired")
    a_better = (ls.pairs["label"] == "A").to_numpy()
    left_is_a = paired["label"].to_numpy().astype(bool) == a_better  # label 1 = left better
    assert 0.35 < left_is_a.mean() < 0.65  # the better side is not always shown first
    again = audit_label_set(ls, predictors=["length_only"], n_permutations=0)
    assert again.predictions.equals(res.predictions)


def test_ties_are_excluded_and_counted():
    base = _longer_wins(40)
    tie_rows = [(f"t{i}", f"tg{i}", "all", "same text here", "other text", "tie") for i in range(7)]
    ls = LabelSet("with ties", pl.concat([base.pairs, pairs_frame(tie_rows)]))
    res = audit_label_set(ls, predictors=["length_only"], n_permutations=0)
    assert res.table["n_ties"].to_list() == [7, 7]
    assert _row(res, "length_only", "paired")["n_units"] == 40
    assert _row(res, "length_only", "item")["n_units"] == 80
    assert _row(res, "length_only", "paired")["accuracy"] == 100.0


def test_permute_within_keeps_each_blocks_labels():
    rng = np.random.default_rng(0)
    y = np.array([1, 0, 0, 1, 1, 0, 1, 0, 0, 0])
    blocks = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 3])
    changed = False
    for _ in range(50):
        yp = permute_within(y, blocks, rng)
        for b in np.unique(blocks):
            assert sorted(yp[blocks == b]) == sorted(y[blocks == b])
        changed |= not np.array_equal(yp, y)
    assert changed


def test_table_schema_and_null_columns():
    res = audit_label_set(_longer_wins(30), predictors=["numeric_surface"], n_permutations=N_PERM)
    assert dict(res.table.schema) == AUDIT_SCHEMA
    row = _row(res, "numeric_surface", "item")
    assert row["metric"] == "kappa" and row["score"] == row["kappa"]
    assert row["n_permutations"] == N_PERM and row["null_scheme"] == "permuted within groups"


def _blind(n_groups: int = 10, per_group: int = 10) -> LabelSet:
    """Single responses, all with the same text; in every group 7 of 10 are labelled 1."""
    rows = [(f"u{g}-{k}", f"g{g}", "all", "one and the same answer", int(k < 7))
            for g in range(n_groups) for k in range(per_group)]
    return LabelSet("blind", pairs_frame([]), pl.DataFrame(rows, schema=SINGLE_SCHEMA, orient="row"))


@pytest.mark.filterwarnings("ignore:.*encountered in divide:RuntimeWarning")  # n-gram SVD of identical texts
def test_a_predictor_that_sees_nothing_has_p_one():
    # identical texts give identical (standardised: zero) features, so every fold predicts its training
    # majority, label 1 (70% in every group, hence in every fold): kappa 0. Labels permuted within groups
    # keep 7 of 10 in each group, so every null fit predicts 1 as well: every null kappa is 0 >= 0 and
    # p = (1 + 20) / (1 + 20) = 1; the row does not clear its null
    res = audit_label_set(_blind(), predictors=["length_only"], modes=["item"], n_permutations=N_PERM)
    row = _row(res, "length_only", "item")
    assert row["accuracy"] == pytest.approx(70.0) and row["kappa"] == 0.0
    assert (row["null_mean"], row["null_p95"]) == (0.0, 0.0)
    assert row["p_value"] == 1.0 and row["clears_null"] is False and row["verdict"] == "not above its null"


@pytest.mark.parametrize("kwargs, word", [
    (dict(predictors=["bag_of_words"]), "predictor"),
    (dict(modes=["pointwise"]), "mode"),
    (dict(n_permutations=-1), "n_permutations"),
    (dict(seed=1.5), "seed"),
    (dict(folds="random"), "fold scheme"),
    (dict(n_splits=1), "n_splits"),
])
def test_bad_arguments_raise_clear_errors(kwargs, word):
    with pytest.raises(CAPInputError, match=word):
        audit_label_set(_longer_wins(20), **kwargs)


def test_paired_mode_without_pairs_and_too_few_groups():
    with pytest.raises(CAPInputError, match="paired mode needs pairs"):
        audit_label_set(_leaky(), modes=["paired"])
    one_group = LabelSet("tiny", pairs_frame([("p1", "g", "all", "a", "bb", "B"), ("p2", "g", "all", "ccc", "d", "A")]))
    with pytest.raises(CAPInputError, match="too few groups"):
        audit_label_set(one_group, n_permutations=0)


def _sklearn_folds(y, groups, k, seed):
    import warnings

    from sklearn.model_selection import StratifiedGroupKFold

    fold = np.empty(y.size, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for f, (_, test) in enumerate(StratifiedGroupKFold(k, shuffle=True, random_state=seed).split(y, y, groups)):
            fold[test] = f
    return fold


@pytest.mark.parametrize("name", ["LLMBar Natural", "EvalBiasBench", "LLMBar Neighbor"])
def test_group_folds_are_sklearns_stratified_group_kfold(shared_dir, name):
    from cap_core.audit.surface import _units, stratified_group_folds
    from cap_core.importers.label_sets import load_label_set

    ls = load_label_set(name, public_data=shared_dir)
    for mode in ("paired", "item"):
        u = _units(ls, mode, np.random.default_rng(0))
        codes = np.unique(u["groups"], return_inverse=True)[1]
        for k, seed in ((5, 0), (3, 7)):
            assert np.array_equal(stratified_group_folds(u["y"], codes, k, seed),
                                  _sklearn_folds(u["y"], codes, k, seed)), (mode, k, seed)


def test_group_folds_match_sklearn_on_uneven_groups():
    from cap_core.audit.surface import stratified_group_folds

    rng = np.random.default_rng(11)
    groups = rng.integers(0, 40, size=300)
    y = (rng.random(300) < 0.3).astype(int)
    assert np.array_equal(stratified_group_folds(y, groups, 5, 2), _sklearn_folds(y, groups, 5, 2))


def test_kappa_and_accuracy_columns_equal_sklearn_exactly():
    from sklearn.metrics import accuracy_score

    from cap_core.audit.surface import accuracy_columns, kappa_columns

    rng = np.random.default_rng(4)
    Y = rng.integers(0, 2, size=(37, 50))
    P = np.where(rng.random((37, 50)) < 0.7, Y, 1 - Y)
    P[:, 0], P[:, 1], Y[:, 2], P[:, 2] = 1, 0, 1, 1  # constant predictions; both constant and equal
    Y[:, 3], P[:, 3] = 0, 1  # both constant, different
    kap, acc = kappa_columns(Y, P), accuracy_columns(Y, P)
    for k in range(Y.shape[1]):
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = cohen_kappa_score(Y[:, k], P[:, k])
        assert kap[k] == (0.0 if np.isnan(ref) else ref), k
        assert acc[k] == 100.0 * accuracy_score(Y[:, k], P[:, k])


def test_threads_do_not_change_the_audit_and_progress_runs_to_one():
    ls = _random_labels(120, seed=8)
    seen = []
    one = audit_label_set(ls, n_permutations=N_PERM, threads=1)
    two = audit_label_set(ls, n_permutations=N_PERM, threads=2, progress=lambda f, step: seen.append((f, step)))
    assert one.table.equals(two.table) and one.predictions.equals(two.predictions)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and seen[-1] == (1.0, "done")
    assert any("surface_ngram features" in step for _, step in seen)
    with pytest.raises(CAPInputError, match="threads"):
        audit_label_set(ls, threads=0)


def test_estimate_grows_with_units_and_permutations():
    from cap_core.audit.surface import estimate_seconds

    small, large = _random_labels(60), _random_labels(240)
    assert 0 < estimate_seconds(small, n_permutations=20) < estimate_seconds(small, n_permutations=100)
    assert estimate_seconds(small, n_permutations=100) < estimate_seconds(large, n_permutations=100)
