"""The sidebar's upload reads every format of the import registry (cap_core.importers.formats)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.pages.app_pages import APP_PY, assert_clean
from tests.pages.shown import rendered

FX = Path(__file__).resolve().parents[1] / "fixtures"
MT = FX / "mtbench"


def _upload_page() -> AppTest:
    at = AppTest.from_file(str(APP_PY), default_timeout=300).run()
    at.radio(key="sb_source").set_value("upload").run()
    return at


def test_format_list_is_the_registry():
    from cap_core.importers.formats import KINDS

    at = _upload_page()
    assert tuple(at.selectbox(key="sb_upload_format").options) == tuple(
        __import__("cap_core.importers.formats", fromlist=["FORMATS"]).FORMATS[k].title for k in KINDS)
    assert at.selectbox(key="sb_upload_format").value == "table"  # our table format is the default


def test_mtbench_files_upload_gives_their_judges():
    at = _upload_page()
    at.selectbox(key="sb_upload_format").set_value("mtbench").run()
    at.text_input(key="sb_opt_gold_judge").set_value("expert_*").run()
    files = [("gpt-4_pair.jsonl", (MT / "model_judgment" / "gpt-4_pair.jsonl").read_bytes(), "application/json"),
             ("human_judgments.json", (MT / "human_judgments.json").read_bytes(), "application/json")]
    at.file_uploader(key="sb_tool_files").set_value(files).run()
    assert_clean(at)
    assert at.selectbox(key="sb_benchmark").value == "mtbench"
    # gpt-4_pair.jsonl holds one FastChat judge, GPT-4, under two prompts (pair-v2, pair-math-v1: a setting,
    # not a judge); the experts are the reference, not profiled
    options = at.multiselect(key="sb_entries").options
    assert "gpt-4" in options and not any("pair-" in o for o in options)
    assert not any("expert_" in o for o in options)
    notices = " ".join(t.value for t in at.sidebar.text)
    # the human-judgments fixture holds four experts (expert_0 .. expert_3)
    assert "gold is the majority verdict of 4 reference judges (expert_0, expert_1, expert_2, expert_3)" in notices


def test_folder_format_uploads_as_a_zip():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for f in sorted((FX / "autoj").glob("*.jsonl")):
            z.write(f, f"autoj/{f.name}")
    at = _upload_page()
    at.selectbox(key="sb_upload_format").set_value("autoj").run()
    at.file_uploader(key="sb_tool_files").set_value(("autoj.zip", buf.getvalue(), "application/zip")).run()
    assert_clean(at)
    assert at.selectbox(key="sb_benchmark").value == "autoj"
    assert any("pairwise_example" in o for o in at.multiselect(key="sb_entries").options)


def test_bad_tool_file_is_a_message_not_a_traceback():
    at = _upload_page()
    at.selectbox(key="sb_upload_format").set_value("mtbench").run()
    bad = FX / "bad" / "mtbench" / "gpt-4_pair.jsonl"
    at.file_uploader(key="sb_tool_files").set_value(("gpt-4_pair.jsonl", bad.read_bytes(), "application/json")).run()
    assert not at.exception
    msg = rendered(at.error[0].value)  # shown as text: the message's punctuation is escaped
    assert "gpt-4_pair.jsonl" in msg and "row 1" in msg and "model_2" in msg


def test_a_tool_file_in_the_table_uploader_is_detected():
    at = _upload_page()
    data = (MT / "model_judgment" / "gpt-4_pair.jsonl").read_bytes()
    at.file_uploader(key="sb_items_file").upload("gpt-4_pair.jsonl", data, "application/json").run()
    assert_clean(at)
    assert any("Read as MT-Bench (FastChat) (detected from the file)" in c.value for c in at.sidebar.caption)
    assert at.selectbox(key="sb_benchmark").value == "mtbench"


def _upload_error(kind: str, files, **text_options) -> str:
    """The one error the sidebar shows for ``files`` uploaded as ``kind``, as the user reads it."""
    at = _upload_page()
    at.selectbox(key="sb_upload_format").set_value(kind).run()
    for name, value in text_options.items():
        at.text_input(key=f"sb_opt_{name}").set_value(value).run()
    at.file_uploader(key="sb_tool_files").set_value(files).run()
    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    return rendered(at.error[0].value)


def test_upload_messages_name_the_uploaded_file_and_the_sidebar_fields():
    """Issue 19, finding 14: an empty gpt-4_pair.jsonl named the CLI flag --gold-judge, and errors showed the
    folder an upload is written to (<upload dir>/<sha256>/...) instead of the uploaded file's own name."""
    from cap_core.importers.uploads import upload_root

    msg = _upload_error("mtbench", ("gpt-4_pair.jsonl", b"", "application/json"))
    assert msg.startswith("no judgment in the MT-Bench files [file gpt-4_pair.jsonl]") and "--" not in msg
    data = (MT / "model_judgment" / "gpt-4_pair.jsonl").read_bytes()
    msg = _upload_error("mtbench", ("gpt-4_pair.jsonl", data, "application/json"), gold_judge="expert_*")
    assert "argument `Reference judges (their majority is gold)`" in msg and "--gold-judge" not in msg
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("results/m/ann/annotations.json", "{not json")
    msg = _upload_error("alpacaeval", ("ae.zip", buf.getvalue(), "application/zip"))
    assert "[file ae.zip/results/m/ann/annotations.json, row 1]" in msg
    assert str(upload_root()) not in msg


def test_a_file_of_another_format_says_which_format_it_looks_like():
    """The real MT-Bench gpt-4_pair.jsonl uploaded as AlpacaEval said "malformed JSON … Extra data"."""
    data = (MT / "model_judgment" / "gpt-4_pair.jsonl").read_bytes()
    msg = _upload_error("alpacaeval", ("gpt-4_pair.jsonl", data, "application/json"))
    assert msg.startswith("the file looks like MT-Bench (FastChat), not AlpacaEval [file gpt-4_pair.jsonl]")
    assert "Extra data" not in msg
