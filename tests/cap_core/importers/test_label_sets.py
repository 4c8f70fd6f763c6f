"""Public label-set readers against the raw public files (counted here with plain loops), and user files."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow.parquet as pq
import pytest

from cap_core.audit.user_sets import read_user_label_set
from cap_core.errors import CAPInputError
from cap_core.importers.label_sets import PUBLIC_SETS, load_label_set, public_data_dir


def _jsonl(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _counts(name, shared):
    ls = load_label_set(name, public_data=shared)
    lab = Counter(ls.pairs["label"].to_list())
    return ls, ls.pairs.height, lab["A"], lab["B"], lab["tie"]


def test_rewardbench_and_rmbench(shared_dir):
    d = shared_dir / "data"
    table = pq.read_table(d / "rewardbench_via_biasscope/data/rewardbench/rewardbench_filtered.parquet")
    ls, n, a, b, tie = _counts("RewardBench", shared_dir)
    assert (n, a, b, tie) == (table.num_rows, table.num_rows, 0, 0) == (2985, 2985, 0, 0)
    assert ls.pairs["response_a"].to_list()[:3] == table.column("response_A").to_pylist()[:3]
    assert ls.pairs["group"].n_unique() == len(set(table.column("question").to_pylist()))
    raw = json.loads((d / "rmbench/data/chat_filtered.json").read_text())
    ls, n, a, b, tie = _counts("RM-Bench chat", shared_dir)
    assert n == 3 * len(raw) == 387 and a == n
    assert ls.pairs["group"].n_unique() == len(raw)


@pytest.mark.parametrize("name, model", [("JudgeBench GPT-4o", "gpt-4o-2024-05-13"),
                                         ("JudgeBench Claude", "claude-3-5-sonnet-20240620")])
def test_judgebench(shared_dir, name, model):
    raw = _jsonl(shared_dir / f"data/judgebench/data/dataset=judgebench,response_model={model}.jsonl")
    ls, n, a, b, tie = _counts(name, shared_dir)
    assert (n, a, b, tie) == (len(raw), sum(r["label"] == "A>B" for r in raw), sum(r["label"] == "B>A" for r in raw), 0)
    # a pair's group is its source item; the LiveBench pairs have original_id null and one question each, so
    # each is its own group (not one shared "None" group, which put 196 unrelated GPT-4o pairs in one fold)
    groups = {r["original_id"] if r["original_id"] is not None else "q:" + r["question"] for r in raw}
    assert ls.pairs["group"].n_unique() == len(groups)
    assert len(groups) == {"JudgeBench GPT-4o": 350, "JudgeBench Claude": 270}[name]
    assert "None" not in ls.pairs["group"].to_list()


@pytest.mark.parametrize("name, folder", [
    ("LLMBar Natural", "LLMBar/Natural"), ("LLMBar GPTInst", "LLMBar/Adversarial/GPTInst"),
    ("LLMBar GPTOut", "LLMBar/Adversarial/GPTOut"), ("LLMBar Manual", "LLMBar/Adversarial/Manual"),
    ("LLMBar Neighbor", "LLMBar/Adversarial/Neighbor"), ("LLMBar MT-Bench", "Processed/MT-Bench"),
    ("LLMBar FairEval", "Processed/FairEval"), ("LLMBar LLMEval²", "Processed/LLMEval^2"),
])
def test_llmbar_sets(shared_dir, name, folder):
    raw = json.loads((shared_dir / "data/llmbar/Dataset" / folder / "dataset.json").read_text())
    _, n, a, b, tie = _counts(name, shared_dir)
    assert (n, a, b, tie) == (len(raw), sum(str(r["label"]) == "1" for r in raw),
                              sum(str(r["label"]) == "2" for r in raw), 0)


def test_pandalm_majority_with_ties(shared_dir):
    raw = json.loads((shared_dir / "data/pandalm/data/testset-v1.json").read_text())
    want = Counter()
    for r in raw:
        votes = [int(r["annotator1"]), int(r["annotator2"]), int(r["annotator3"])]
        best = max(set(votes), key=votes.count)
        want["tie" if votes.count(best) < 2 or best == 0 else "AB"[best - 1]] += 1
    _, n, a, b, tie = _counts("PandaLM", shared_dir)
    assert (n, a, b, tie) == (999, want["A"], want["B"], want["tie"])
    assert tie == 105  # 85 unanimous ties + 20 two-of-three ties (from the annotator patterns)


def test_autoj_and_evalbiasbench(shared_dir):
    raw = _jsonl(shared_dir / "data/autoj/data/test/testdata_pairwise.jsonl")
    ls, n, a, b, tie = _counts("Auto-J", shared_dir)
    lab = Counter(int(r["label"]) for r in raw)
    assert (n, a, b, tie) == (1392, lab[0], lab[1], lab[2]) == (1392, 520, 499, 373)
    assert ls.n_ties == 373 and "373 of 1392 pairs are ties" in ls.notices[0]
    raw = json.loads((shared_dir / "data/evalbiasbench/data/evalbiasbench/biasbench.json").read_text())
    ls, n, a, b, tie = _counts("EvalBiasBench", shared_dir)
    assert n == sum(len(v) for v in raw.values()) == 80 and a == 80
    assert sorted(ls.pairs["subset"].unique()) == sorted(raw)


def test_every_public_set_loads_with_unique_ids(shared_dir):
    for name in PUBLIC_SETS:
        ls = load_label_set(name, public_data=shared_dir / "data")  # the data folder itself works too
        assert ls.pairs["pair_id"].is_unique().all(), name
        assert ls.pairs["response_a"].null_count() == 0 and ls.pairs["response_b"].null_count() == 0


def test_public_set_needs_a_local_copy_and_names_what_is_missing(tmp_path):
    with pytest.raises(CAPInputError, match="needs its texts from your local copy") as err:
        load_label_set("RewardBench")
    assert err.value.argument == "public_data" and "--public-data" in err.value.fix
    with pytest.raises(CAPInputError, match="local copy of the public data was not found") as err:
        load_label_set("EvalBiasBench", public_data=tmp_path / "nowhere")
    assert "nowhere" in err.value.file
    (tmp_path / "llmbar").mkdir()
    assert public_data_dir(tmp_path) == tmp_path.resolve()
    with pytest.raises(CAPInputError, match="lacks the file of EvalBiasBench") as err:
        load_label_set("EvalBiasBench", public_data=tmp_path)
    assert err.value.file.endswith("evalbiasbench/data/evalbiasbench/biasbench.json")
    with pytest.raises(CAPInputError, match="unknown label set"):
        load_label_set("RewardBench 9")


def test_malformed_public_file_names_file_row_and_column(tmp_path):
    f = tmp_path / "evalbiasbench/data/evalbiasbench/biasbench.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({"length": [{"instruction": "q", "response1": "a", "response2": "b", "label": 1},
                                        {"instruction": "q", "response1": "a", "response2": "b", "label": 3}]}))
    with pytest.raises(CAPInputError, match="unknown label") as err:
        load_label_set("EvalBiasBench", public_data=tmp_path)
    assert (err.value.row, err.value.column, err.value.got) == (2, "label", "3")


def test_user_pairs_csv_and_singles_jsonl(tmp_path):
    csv = tmp_path / "mine.csv"
    csv.write_text("Prompt,response_a,response_b,label,subset\nq1,short,much longer,B,x\n"
                   "q1,aa,b,a,x\nq2,one,two,tie,y\n", encoding="utf-8")
    ls = read_user_label_set(csv)
    assert ls.pairs["label"].to_list() == ["B", "A", "tie"] and ls.pairs["group"].to_list() == ["q1", "q1", "q2"]
    assert ls.n_ties == 1 and ls.singles.height == 0
    js = tmp_path / "single.jsonl"
    js.write_text('{"prompt": "p", "response": "r1", "label": 1}\n{"prompt": "p", "response": "r2", "label": "0"}\n')
    ls = read_user_label_set(js)
    assert ls.singles["label"].to_list() == [1, 0] and ls.pairs.height == 0
    cr = tmp_path / "cr.csv"
    cr.write_text("prompt,chosen,rejected\nq,good,bad\n")
    assert read_user_label_set(cr).pairs["label"].to_list() == ["A"]


@pytest.mark.parametrize("name, content, row, column, problem", [
    ("a.csv", "prompt,response_a,label\nq,x,A\n", None, "response", "required column is missing"),
    ("b.csv", "prompt,response_a,response_b,label\nq,x,y,A\nq,x,y,C\n", 2, "label", "label outside"),
    ("c.csv", "prompt,response_a,response_b,label\nq,,y,A\n", 1, "response_a", "empty text"),
    ("d.jsonl", '{"prompt": "q", "response": "r", "label": 1}\n{"prompt": \n', 2, None, "malformed JSON"),
    ("e.jsonl", '{"prompt": "q", "response": "r", "label": 3}\n', 1, "label", "label outside"),
    ("f.csv", "id,prompt,response_a,response_b,label\n1,q,x,y,A\n1,q,z,y,B\n", 2, "id", "duplicate id"),
    ("g.pkl", "not read", None, None, "unsupported file type"),
    ("h.csv", "prompt,response_a,response_b,label\n", None, None, "no rows"),
])
def test_bad_user_files_name_file_row_and_column(name, content, row, column, problem):
    with pytest.raises(CAPInputError, match=problem) as err:
        read_user_label_set(name, data=content.encode())
    assert err.value.file == name and err.value.row == row and err.value.column == column
    assert err.value.fix
