"""``summary`` without ``--out`` prints its CSV, as ``source-metrics`` does (the README's pipe example)."""

from __future__ import annotations

import io

import polars as pl

from cap_core.cli.main import main


def test_summary_without_out_prints_the_csv(tmp_path, capsys):
    # benchmark b, items 0..3 with gold A; j1 judges all four in both orders and says tie on both orders
    # of item 1 and unparsed on BA of item 2: 8 verdicts, 2 ties = 25 %, 1 unparsed = 12.5 %;
    # j2 judges items 0 and 1 only: 2 of the 4 items received, 4 verdicts, no tie
    rows = ["judge,benchmark,item_id,order,verdict,gold"]
    j1 = {0: ("A", "B"), 1: ("tie", "tie"), 2: ("A", "unparsed"), 3: ("B", "A")}
    rows += [f"j1,b,{i},{o},{v},A" for i, (ab, ba) in j1.items() for o, v in (("AB", ab), ("BA", ba))]
    rows += [f"j2,b,{i},{o},{v},A" for i in (0, 1) for o, v in (("AB", "A"), ("BA", "B"))]
    (tmp_path / "joined.csv").write_text("\n".join(rows) + "\n")
    assert main(["import", "table", str(tmp_path / "joined.csv"), "--out", str(tmp_path / "DS")]) == 0
    capsys.readouterr()

    assert main(["summary", "--data", str(tmp_path / "DS")]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert header == "benchmark,judge,items,items_received,items_with_gold,verdicts,tie_pct,unparsed_pct"
    got = pl.read_csv(io.StringIO(out)).rows()
    assert got == [("b", "j1", 4, 4, 4, 8, 25.0, 12.5), ("b", "j2", 4, 2, 2, 4, 0.0, 0.0)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["DS", "joined.csv"]  # nothing written
