"""Label-audit groups: the base item across its variants, and a notice for look-alike groups (hand-made sets)."""

from __future__ import annotations

import polars as pl

from cap_core.audit.groups import normalise_prompt, variant_group_pairs
from cap_core.audit.label_set import LabelSet, pairs_frame
from cap_core.audit.surface import audit_label_set
from cap_core.audit.user_sets import read_user_label_set


def _csv(rows: list[dict]) -> bytes:
    return pl.DataFrame(rows).write_csv().encode()


def test_normalised_prompt():
    # case, spacing, punctuation and Unicode width do not make a different base item
    assert normalise_prompt("  What is the capital of FRANCE ?\n") == "what is the capital of france"
    assert normalise_prompt("What is the capital of France?") == normalise_prompt("what  is the capital of france")
    assert normalise_prompt("Ｘ = 1") == "x 1"


def test_default_group_is_the_normalised_prompt():
    # two presentations of one question differ only in case, spacing and punctuation: one group
    rows = [
        {"prompt": "What is the capital of France?", "response_a": "Paris.", "response_b": "Lyon.", "label": "A"},
        {"prompt": "what is the capital of France ?", "response_a": "**Paris**", "response_b": "Nice", "label": "A"},
        {"prompt": "Name a prime above 10.", "response_a": "9", "response_b": "11", "label": "B"},
    ]
    ls = read_user_label_set("own.csv", data=_csv(rows))
    g = ls.pairs["group"].to_list()
    assert g[0] == g[1] == "what is the capital of france" and g[2] == "name a prime above 10"


def test_base_item_id_is_the_default_group():
    # variants of one base item whose prompts differ in wording share base_item_id q1: one group
    rows = [
        {"prompt": "Explain photosynthesis.", "response_a": "x", "response_b": "y", "label": "A", "base_item_id": "q1"},
        {"prompt": "Explain photosynthesis in detail, using markdown.", "response_a": "x2", "response_b": "y2",
         "label": "A", "base_item_id": "q1"},
        {"prompt": "Explain osmosis.", "response_a": "u", "response_b": "v", "label": "B", "base_item_id": "q2"},
    ]
    ls = read_user_label_set("own.csv", data=_csv(rows))
    assert ls.pairs["group"].to_list() == ["q1", "q1", "q2"]
    # an explicit group column still wins
    rows = [dict(r, group=f"G{i}") for i, r in enumerate(rows)]
    assert read_user_label_set("own.csv", data=_csv(rows)).pairs["group"].to_list() == ["G0", "G1", "G2"]


A1 = "Summarise the article about the 2019 floods in Venice and their cost"
A2 = "Summarise the article about the 2019 floods in Venice and their costs"
OTHER = "Write a haiku about autumn leaves falling on a quiet pond at dusk"


def test_variant_group_pairs_hand():
    # tokens of A1: summarise the article about 2019 floods in venice and their cost (11 distinct);
    # A2 swaps cost for costs: intersection 10, union 12 -> Jaccard 10/12
    found = variant_group_pairs([A1, A2, OTHER])
    assert len(found) == 1
    g1, g2, sim = found[0]
    assert {g1, g2} == {A1, A2} and abs(sim - 10 / 12) < 1e-12
    # ids that differ only by a presentation-variant word are variants of one base item
    assert [(a, b) for a, b, _ in variant_group_pairs(["q7-plain", "q7-polished", "q8-plain"])] == [
        ("q7-plain", "q7-polished")]
    assert variant_group_pairs(["q7", "q8", OTHER]) == []


def test_user_set_with_lookalike_groups_gets_a_notice():
    rows = [
        {"prompt": A1, "response_a": "short", "response_b": "a longer answer", "label": "B", "group": A1},
        {"prompt": A2, "response_a": "short", "response_b": "a longer answer", "label": "B", "group": A2},
        {"prompt": OTHER, "response_a": "leaves", "response_b": "pond", "label": "A", "group": "haiku"},
    ]
    ls = read_user_label_set("own.csv", data=_csv(rows))
    note = [n for n in ls.notices if "variants" in n]
    assert len(note) == 1 and "1 pair of groups" in note[0] and "base_item_id" in note[0]


def test_audit_result_carries_the_notice():
    topics = ["Roman aqueducts", "tidal locking", "bee dances", "paper folding", "glacier calving", "jazz modes",
              "coral bleaching", "bridge cables", "sourdough starters", "solar flares", "chess openings", "moss spores"]
    rows = []
    for i, topic in enumerate(topics):
        stem = f"Describe {topic} in two sentences"
        rows.append((f"p{i}a", stem, "all", "a" * (10 + i), "b" * (30 + i), "B"))
        rows.append((f"p{i}b", stem + "!", "all", "c" * (40 + i), "d" * (12 + i), "A"))  # same question, '!' added
    ls = LabelSet("lookalike", pairs_frame(rows))
    res = audit_label_set(ls, n_permutations=2, modes=("paired",), predictors=("length_only",))
    assert any("12 pairs of groups" in n for n in res.notices)


def test_audit_verb_prints_the_lookalike_notice(tmp_path, capsys):
    from cap_core.cli.main import main

    topics = ["Roman aqueducts", "tidal locking", "bee dances", "paper folding", "glacier calving", "jazz modes",
              "coral bleaching", "bridge cables", "sourdough starters", "solar flares", "chess openings", "moss spores"]
    rows = []
    for i, topic in enumerate(topics):
        for k, stem in enumerate((f"Describe {topic} in two sentences", f"Describe {topic} in two sentences!")):
            long, short = "x" * (40 + i), "y" * (10 + i)
            a, b, lab = (long, short, "A") if (i + k) % 2 else (short, long, "B")
            rows.append({"prompt": stem, "response_a": a, "response_b": b, "label": lab, "group": stem})
    f = tmp_path / "own.csv"
    f.write_bytes(_csv(rows))
    assert main(["audit", "--labels", str(f), "--mode", "paired", "--permutations", "19",
                 "--out", str(tmp_path / "a.csv")]) == 0
    err = capsys.readouterr().err
    assert "notice: own.csv: 12 pairs of groups look like variants" in err
