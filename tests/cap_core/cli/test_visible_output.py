"""Whatever the CLI prints reaches the terminal as text (a breaker pass: a judge named with ESC and BEL
coloured the terminal through summary's table and choose's sentence, and retitled it through a notice)."""

from __future__ import annotations

import io
import json

from cap_core.cli.main import main
from cap_core.cli.visible import VisibleStream

EVIL = "evil\x1b[31mRED\x1b[0m\x07"


def _dataset(tmp_path):
    src = tmp_path / "t.jsonl"
    with src.open("w") as f:
        for judge in ("jA", EVIL):
            for i in range(6):
                for order, verdict in (("AB", "A"), ("BA", "B" if i % 2 else "A")):
                    f.write(json.dumps({"judge": judge, "benchmark": "b", "item_id": str(i), "order": order,
                                        "verdict": verdict, "gold": "A"}) + "\n")
    assert main(["import", "table", str(src), "--out", str(tmp_path / "ds")]) == 0
    return tmp_path / "ds"


def test_a_judge_name_with_control_characters_is_printed_as_text(tmp_path, capsys):
    ds = _dataset(tmp_path)
    capsys.readouterr()
    assert main(["summary", "--data", str(ds)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b[31mRED\\x1b[0m\\x07" in out
    assert main(["choose", "--data", str(ds), "--weights", "C7=1", "--out", str(tmp_path / "s.csv")]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[31m" in err


def test_the_stream_keeps_line_breaks_and_the_progress_lines_carriage_return():
    raw = io.StringIO()
    stream = VisibleStream(raw)
    stream.write("\rjudging 1/2 | a\tb\n")       # our progress line redraws itself with a leading CR
    stream.write("name\rover\x1b[2J\u202e\n")    # a CR inside data, ESC, a right-to-left override
    assert raw.getvalue() == "\rjudging 1/2 | a\\x09b\nname\\x0dover\\x1b[2J\\u202e\n"
