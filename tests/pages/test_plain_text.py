"""ui.text.plain shows invisible direction and control characters by their code point."""

from __future__ import annotations

import pytest

from tests.pages.shown import rendered
from ui.text import plain

# the bidirectional formatting characters of Unicode's UAX #9 (Table 1 and 2): embeddings and overrides
# U+202A-U+202E, isolates U+2066-U+2069, the marks LRM U+200E, RLM U+200F and ALM U+061C
BIDI = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C]


def test_a_right_to_left_override_is_shown_not_obeyed():
    # "report\u202Efdp.exe" reads "reportexe.pdf" when the override is obeyed
    out = plain("report\u202efdp.exe")
    assert "\u202e" not in out
    assert rendered(out) == "report[U+202E]fdp.exe"
    assert rendered(plain("a\u202eb")) == "a[U+202E]b"


@pytest.mark.parametrize("code", BIDI)
def test_every_bidi_control_is_shown_by_its_code_point(code):
    out = plain(f"x{chr(code)}y")
    assert chr(code) not in out and rendered(out) == f"x[U+{code:04X}]y"


def test_control_characters_are_shown_and_tabs_and_line_breaks_are_not():
    # an ANSI colour escape (ESC = U+001B), NUL, DEL U+007F and the C1 control CSI U+009B
    assert rendered(plain("\x1b[31mred\x00\x7f\x9b")) == "[U+001B][31mred[U+0000][U+007F][U+009B]"
    assert rendered(plain("a\tb\nc\r\nd")) == "a\tb c d"  # tab kept, lines joined with spaces
    assert rendered(plain("caf\u00e9 \u4e2d")) == "caf\u00e9 \u4e2d"  # letters of any script untouched


@pytest.mark.parametrize("text", ["P(best) 0.55", "Llama-3.1-70B", "e.g. C1=2", "at 12:30", "v1.2.3",
                                  "judgebench_claude:all"])
def test_numbers_versions_and_abbreviations_copy_as_they_read(text):
    # no invisible break where no autolink can start: a copy of the page's text is the text
    assert "\u200b" not in plain(text) and rendered(plain(text)) == text


@pytest.mark.parametrize("text, cut", [("see www.evil.example", "www\u200b"), ("go http://evil/a", "http\\:\u200b"),
                                       ("mail a@b.example", "\\@\u200b"), ("WWW.Evil.org", "WWW\u200b")])
def test_where_an_autolink_would_start_there_is_a_break(text, cut):
    assert cut in plain(text) and rendered(plain(text)) == text


def test_figures_and_the_terminal_show_the_same_characters_by_code_point():
    # one rule (cap_core.figure_text.acting) for the page, its figures and the CLI
    from cap_core.cli.visible import visible
    from cap_core.figure_text import figure_text

    assert figure_text("J2\u202eexe.txt <b>") == "J2[U+202E]exe.txt &lt;b&gt;"
    assert visible("a\x1b[31mb\u202e") == "a\\x1b[31mb\\u202e"
    assert rendered(plain("a\u2066b")) == "a[U+2066]b"


def _page_with_an_earlier_upload():
    import streamlit as st

    from ui.state import STORE, kept_upload

    st.session_state.setdefault(STORE, {})["up"] = ("[q](http://evil.example) $a$ **b**.csv", b"x")
    kept_upload(st, "questions", key="up")


def test_the_name_of_an_earlier_upload_is_shown_as_text():
    """A file named like Markdown was rendered as a link, math and bold in the 'Using …' caption."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_with_an_earlier_upload).run()
    assert not at.exception
    caption = at.caption[0].value
    # the Markdown source escapes what would form a link, math and bold; the reader sees the name as typed
    assert "\\[q\\]\\(" in caption and "\\$a\\$" in caption and "\\*\\*b\\*\\*" in caption, caption
    assert rendered(caption).startswith("Using [q](http://evil.example) $a$ **b**.csv, uploaded earlier")
