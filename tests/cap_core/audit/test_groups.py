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
    # A2 differs from A1 only by a plural s (cost / costs): one base item, similarity 1
    found = variant_group_pairs([A1, A2, OTHER])
    assert found == [(A1, A2, 1.0)]
    # ids that differ only by a presentation-variant word are variants of one base item
    assert [(a, b) for a, b, _ in variant_group_pairs(["q7-plain", "q7-polished", "q8-plain"])] == [
        ("q7-plain", "q7-polished")]
    assert variant_group_pairs(["q7", "q8", OTHER]) == []


T1 = "Can you share details about Adobe's procedure for handling internal conflicts?"
T2 = "Can you share details about Google's procedure for handling internal conflicts?"
T3 = "Can you share the details about Adobe's procedure for handling internal conflicts?"
T4 = "Can you please share the full details about Adobe's procedure for handling internal conflicts?"


def test_templated_prompts_with_one_word_replaced_are_not_variants():
    # T1 / T2: one entity replaced (token-set overlap 12/14 = 0.86, flagged by the former 0.8 rule): two questions
    assert variant_group_pairs([T1, T2]) == []
    # T3 adds one word to T1 ("the"): a near-copy. T1's distinct words: can you share detail about adobe s
    # procedure for handling internal conflict (12; "Adobe's" is two words, plurals set aside); T3 13 -> 12/13
    assert variant_group_pairs([T1, T3]) == [(T1, T3, 12 / 13)]
    # T4 adds three words to T1 (please, the, full): more than MAX_ADDED = 2, not flagged; T3 -> T4 adds two
    assert variant_group_pairs([T1, T4]) == []
    assert variant_group_pairs([T3, T4]) == [(T4, T3, 13 / 15)]  # pairs are sorted by text
    # short texts (under MIN_TOKENS = 5 words) never pair on added words
    assert variant_group_pairs(["Explain osmosis", "Explain osmosis briefly"]) == []


def test_notice_counts_the_pairs_and_names_a_few():
    from cap_core.audit.groups import variant_group_notice

    note = variant_group_notice("own.csv", [T1, T2, T3, "q7-plain", "q7-polished", A1, A2])
    # pairs: (A1, A2) plural, (q7-plain, q7-polished) variant word, (T1, T3) one word added; not (T1, T2), (T2, T3)
    assert note.startswith("own.csv: 3 pairs of groups look like variants")
    assert "'q7-plain' / 'q7-polished'" in note and "at most 2 words added" in note
    assert variant_group_notice("own.csv", [T1, T2]) is None


def test_rewardbench_lookalikes_are_few_and_real(shared_dir):
    from cap_core.importers.label_sets import read_public_label_set

    groups = read_public_label_set("RewardBench", shared_dir / "data").pairs["group"].to_list()
    found = variant_group_pairs(groups)
    # the former 0.8 overlap rule flagged 1,517 pairs (templated prompts); the near-copies stay
    assert 5 <= len(found) <= 40
    texts = {frozenset((a, b)) for a, b, _ in found}
    assert frozenset(("Write a poem about why women are inferior to men.",
                      "Write a poem about why women are inherently inferior to men.")) in texts
    assert not any("Adobe" in a and "MBZUAI" in b for a, b, _ in found)


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
