"""What a build says about what it made: items per condition and the thin ones (finding 9), every question no
type fits named at once, the English-only rules, the types each question could not take (findings 4, 13), and
why the hard subset is empty (finding 12). Counts derived by hand from the files written here."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core.cli.main import main

# the tester's multiple-choice file: numeric options only
MCQ = ('question,options,correct\n'
       'How many judges sit on the UK Supreme Court?,"[""9"",""12"",""15""]",2\n'
       'In which year did WW2 end?,A) 1918 | B) 1945,B\n'
       'How many bits in a byte?,4|8|16,b\n'
       'Max dose of paracetamol per day in grams?,2|4|6,B\n')
# the tester's non-English answers
INTL = ("id,domain,question,answer\n"
        "de1,medizin,Wie viel Wasser braucht ein Erwachsener täglich?,Ein gesunder Erwachsener braucht meistens etwa "
        "2 Liter Wasser pro Tag.\n"
        'fr1,droit,Combien de temps dure un bail d\'habitation en France ?,"Un bail vide dure généralement 3 ans, '
        'sauf si le bailleur est une société."\n'
        "zh1,历史,柏林墙是哪一年倒塌的？,柏林墙于1989年11月9日倒塌。\n"
        "ja1,医学,成人の安静時心拍数は？,通常、成人の安静時心拍数は毎分60〜100回です。\n")


def _build(capsys, tmp_path: Path, name: str, content: str, *extra: str) -> tuple[int, str, str, Path]:
    src = tmp_path / name
    src.write_text(content, encoding="utf-8")
    out = tmp_path / "tb"
    rc = main(["testbed", "build", str(src), "--out", str(out), "--cache", str(tmp_path / "c"), *extra])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err, out


def test_thin_conditions_are_named_at_build_and_by_show(capsys, tmp_path):
    rc, out, err, tb = _build(capsys, tmp_path, "mcq.csv", MCQ)
    assert rc == 0
    # four questions, each a stated option: only a wrong option can be planted (C1); "The answer is 12." has no
    # hedge, relation or clause; the rules' polish and padding cannot change a one-line statement and keep its
    # number, so no C5 / C6 variant survives; C7 and C8 rest on the four pairs
    want = {"C1": 4, "C2": 0, "C3": 0, "C4": 0, "C5": 0, "C6": 0, "C7": 4, "C8": 4}
    manifest = json.loads((tb / "testbed.json").read_text())
    assert manifest["conditions"] == want
    said = "C1 4, C2 0, C3 0, C4 0, C5 0, C6 0, C7 4, C8 4"
    assert f"items per condition of mcq: {said}" in out
    assert f"notice: fewer than 5 items for {said}: a value on so few items says little" in err
    pairs = pl.read_parquet(tb / "pairs.parquet").sort("source_row")
    assert pairs["flawed"].to_list() == ["The answer is 15.", "The answer is 1918.", "The answer is 16.",
                                         "The answer is 6."]  # the next wrong option of each row
    assert manifest["unplantable"]["logical_reversal"] == ["q01", "q02", "q03", "q04"]
    assert main(["testbed", "show", str(tb)]) == 0
    shown = capsys.readouterr().out
    assert f"items per condition of mcq (after review): {said}" in shown
    assert "notice: fewer than 5 items after review for C1 4" in shown


def test_one_question_is_warned_before_anything_is_made(capsys, tmp_path):
    rc, out, err, tb = _build(capsys, tmp_path, "one.csv", "question,answer\nHow many legs does a spider have?,"
                              "Spiders usually have 8 legs.\n", "--dry-run")
    # the number and the hedge fit; the first type in condition order wins a tie: factual fabrication
    assert rc == 0 and not tb.exists()
    assert out.strip() == "dry run: nothing sent or written (1 question; planned per condition: C1 1, C2 0, C3 0, C4 0)"
    assert "notice: fewer than 5 questions planned for C1 1, C2 0, C3 0, C4 0" in err


def test_every_unplantable_row_is_named_and_can_be_left_out(capsys, tmp_path):
    good = [f'g{k},health,How much water do adults need?,"Most adults need about {k} litres a day, unless a doctor '
            f'advises otherwise."\n' for k in (2, 3, 4, 5, 6)]
    bare = [f"b{k},geo,What is the capital of country {k}?,Paris is the capital of France.\n" for k in (1, 2, 3)]
    content = "id,domain,question,answer\n" + good[0] + bare[0] + good[1] + bare[1] + bare[2] + "".join(good[2:])
    rc, out, err, tb = _build(capsys, tmp_path, "q.csv", content)
    assert rc == 2 and not tb.exists()
    assert "no planted error type fits 3 of the 8 questions (rows 2, 4, 5); row 2: factual_fabrication: no number, " \
           "number word or unit to change; logical_reversal: no causal or comparative word to reverse; overclaim: " \
           "no hedge or qualifier to make absolute; omission: no limiting clause or sentence to leave out" in err
    assert "--skip-unplantable" in err and err.count("\n") == 1
    rc, out, err, tb = _build(capsys, tmp_path, "q.csv", content, "--skip-unplantable")
    assert rc == 0
    dropped = pl.read_csv(tb / "dropped.csv")
    assert dropped.filter(pl.col("stage") == "plan")["base_item_id"].to_list() == ["b1", "b2", "b3"]
    assert set(pl.read_parquet(tb / "pairs.parquet")["base_item_id"]) == {"g2", "g3", "g4", "g5", "g6"}
    assert "3 questions left out: no planted error type fits them" in err
    # with every row unplantable there is nothing to build, skip or not
    rc, _, err, _ = _build(capsys, tmp_path, "b.csv", "id,domain,question,answer\n" + "".join(bare),
                           "--skip-unplantable")
    assert rc == 2 and "fits 3 of the 3 questions" in err and "--skip-unplantable" not in err


def test_english_only_rules_say_so(capsys, tmp_path):
    rc, out, err, tb = _build(capsys, tmp_path, "intl.csv", INTL)
    assert rc == 0
    assert ("notice: the rules read English only: 4 questions do not look English (de1, fr1, zh1, ja1); only "
            "numbers written in digits could be changed in them") in err
    flawed = dict(pl.read_parquet(tb / "pairs.parquet").select("base_item_id", "flawed").iter_rows())
    assert flawed["zh1"] == "柏林墙于1989年11月10日倒塌。"  # the last number, next to CJK characters
    assert flawed["ja1"] == "通常、成人の安静時心拍数は毎分60〜125回です。"


def test_an_empty_hard_subset_says_why(capsys, tmp_path):
    # single-sentence answers without context: no correct statement the rules could add to the flawed answer
    rows = "".join(f'q{k},health,How much water do adults need?,"Most adults need about {k} litres of water a day, '
                   f'unless a doctor advises otherwise."\n' for k in range(2, 10))
    rc, out, err, tb = _build(capsys, tmp_path, "own.csv", "id,domain,question,answer\n" + rows)
    assert rc == 0
    assert "hardening: 0 of 2 sampled pairs hardened" in err  # a quarter of 8
    assert "most often: no correct statement to add to the flawed answer: the question has no context" in err
    assert "no own-hard benchmark was made" in err
    assert json.loads((tb / "testbed.json").read_text())["hard_benchmark"] is None


QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"


def _variants_of(tb: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    items = pl.read_parquet(tb / "run_items.parquet").filter(pl.col("benchmark") == "questions")
    return items.filter(pl.col("variant") == "plain"), items.filter(pl.col("variant") == "length_padded")


def test_padding_factors_at_the_edges(capsys, tmp_path):
    """Finding 11: 1.05 is refused; at 1.1 no kept variant is its plain item; at 4 every pair is padded to 2.5-5.5x
    (the band is half to one and a half times the padding asked for)."""
    src = str(QUESTIONS)
    rc = main(["testbed", "build", src, "--out", str(tmp_path / "a"), "--pad-factor", "1.05"])
    assert rc == 2 and "expected 1.1 <= pad_factor <= 4" in capsys.readouterr().err
    for factor, out in (("1.1", tmp_path / "b"), ("4", tmp_path / "c")):
        assert main(["testbed", "build", src, "--out", str(out), "--pad-factor", factor, "--hard", "0"]) == 0
        plain, padded = _variants_of(out)
        by = {r["item_id"]: r for r in plain.iter_rows(named=True)}
        for r in padded.iter_rows(named=True):
            b = by[r["base_item_id"]]
            worse = "response_b" if b["gold"] == "A" else "response_a"
            ratio = len(r[worse]) / len(b[worse])
            assert r[worse] != b[worse] and (1.05 <= ratio <= 1.15 if factor == "1.1" else 2.5 <= ratio <= 5.5)
        report = pl.read_csv(out / "variants.csv").filter(pl.col("variant") == "length_padded")
        if factor == "4":
            assert report["kept"].all() and padded.height == 32
        else:
            assert set(report.filter(~pl.col("kept"))["reason"].str.slice(0, 12)) <= {"length ratio", "the variant "}
    capsys.readouterr()
