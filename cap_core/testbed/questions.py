"""The questions a testbed is built from: the user's file, read and checked.

Two layouts (CSV, TSV, JSONL, JSON or Parquet, read by :func:`cap_core.io.read_table`):

* **question / answer** rows: ``question`` and ``answer`` (the reference correct answer),
  optional ``id``, ``domain`` and ``context`` (background the generator may use);
* **multiple choice** rows (no ``answer`` column): ``question``, ``options`` and ``correct``.
  ``options`` is a list (a JSON array, a Parquet list, or text split at ``|``; a leading
  ``A)`` / ``B.`` label is dropped) and ``correct`` the letter (``A``, ``B``, ...) or the
  1-based number of the right option. The right option's text is the canonical answer;
  the generator expands it (CAP App. A.1/A.3).

Column names are matched without regard to case or surrounding spaces (``Question``,
`` ANSWER ``). A text column holds text; whole numbers and finite decimals are read as their
text (an id ``7``, an answer ``8``); anything else (a list, a structure, bytes, a boolean, NaN)
is refused, never turned into text, except ``options``, which may be a list.

Defaults: ``id`` ``q01``, ``q02``, ... (the 1-based row, zero-padded); ``domain``
``general``; ``context`` none. A row whose answer only repeats its question is refused.
Every message names the file, the row (the header is row 0) and the column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.io import parse_json
from cap_core.schema import MAX_ID_LENGTH

__all__ = ["QUESTIONS_SCHEMA", "COLUMNS", "Questions", "read_questions", "parse_options"]

#: One row per question, in file order.
QUESTIONS_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String, "row": pl.Int64, "domain": pl.String, "question": pl.String, "answer": pl.String,
    "context": pl.String, "mcq": pl.Boolean, "options": pl.List(pl.String),
}
#: The columns read, by the name they are matched to (case and surrounding spaces aside).
COLUMNS = ("id", "domain", "question", "answer", "context", "options", "correct")


@dataclass(frozen=True)
class Questions:
    """``frame`` (:data:`QUESTIONS_SCHEMA`), the ``file`` name, its ``sha256`` and any reading ``notices``."""

    frame: pl.DataFrame
    file: str
    sha256: str
    notices: tuple[str, ...] = ()


def parse_options(value: object) -> list[str]:
    """The options of a multiple-choice row: a list, a JSON array, or text split at ``|``; labels dropped.

    A cell that starts with ``[`` is read as JSON with :func:`cap_core.io.parse_json`; text that is not
    JSON is split at ``|``, but JSON nested too deeply to read raises its :class:`CAPInputError`.
    """
    if isinstance(value, (list, tuple)) or isinstance(value, pl.Series):
        items = [str(v) for v in value]
    else:
        text = str(value or "").strip()
        items = None
        if text.startswith("["):
            try:
                parsed = parse_json(text, what="the options cell")
            except CAPInputError as err:
                if err.problem.startswith("JSON nested too deeply"):
                    raise  # neither a list of options nor text to split: refused, never guessed at
                parsed = None  # not JSON: text split at |
            items = [str(v) for v in parsed] if isinstance(parsed, list) else None
        if items is None:
            items = text.split("|")
    return [re.sub(r"^\s*\(?[A-Za-z]\s*[).:]\s+", "", s).strip() for s in items if str(s).strip()]


_NUMERIC = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64, pl.Float32,
            pl.Float64)


def _kind(dtype: pl.DataType) -> str:
    if isinstance(dtype, (pl.List, pl.Array)):
        return "lists"
    if isinstance(dtype, pl.Struct):
        return "structures (objects with fields)"
    return {pl.Binary: "bytes", pl.Boolean: "true/false values", pl.Object: "objects"}.get(dtype, str(dtype))


def _text(frame: pl.DataFrame, col: str, name: str) -> list:
    """The column as text per row (None where missing); refuses a column that does not hold text."""
    s = frame[col]
    if s.dtype in (pl.String, pl.Categorical) or isinstance(s.dtype, pl.Enum):
        return s.cast(pl.String).to_list()
    if s.dtype == pl.Null:
        return [None] * frame.height
    if s.dtype in _NUMERIC:
        if s.dtype in (pl.Float32, pl.Float64):
            s = pl.Series([None if v is None or v != v or v in (float("inf"), float("-inf")) else
                           (str(int(v)) if float(v).is_integer() else repr(float(v))) for v in s.to_list()],
                          dtype=pl.String)
            return s.to_list()
        return s.cast(pl.String).to_list()
    first = next((r for r, v in enumerate(s.to_list(), start=1) if v is not None), 1)
    raise CAPInputError(f"the {col} column does not hold text", file=name, row=first, column=col,
                        expected="text (or numbers) in every row", got=f"{_kind(s.dtype)} ({s.dtype})",
                        fix=f"write the {col} of every row as plain text")


def _empty(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _match_columns(frame: pl.DataFrame, name: str) -> pl.DataFrame:
    """Rename the columns the reader knows to their canonical names (case and spaces aside)."""
    seen: dict[str, str] = {}
    renames = {}
    for c in frame.columns:
        key = c.strip().lower()
        if key not in COLUMNS:
            continue
        if key in seen:
            raise CAPInputError(f"two columns are read as {key!r}", file=name, row=0, column=c,
                                expected=f"one column named {key} (case and spaces aside)",
                                got=[seen[key], c], fix="rename or remove one of them")
        seen[key] = c
        if c != key:
            renames[c] = key
    return frame.rename(renames) if renames else frame


def read_questions(source: str | Path, data: bytes | None = None) -> Questions:
    """Read and check a questions file (module doc).

    Parameters
    ----------
    source : str or Path
        The file (with ``data`` given, the upload's name: its extension picks the format).
    data : bytes, optional
        The file's content already in memory.

    Returns
    -------
    Questions

    Raises
    ------
    CAPInputError
        From :func:`cap_core.io.read_table` (missing or empty file, bad format); no question
        rows; a missing ``question`` or ``answer`` column (or ``options`` / ``correct`` for
        multiple choice); two columns read as one name; a column that does not hold text
        (a list, structure, bytes or booleans); an empty question, answer (NaN included),
        option list or id; an answer that repeats its question; a ``correct`` outside the
        options; a repeated id; an id longer than
        :data:`cap_core.schema.MAX_ID_LENGTH` or holding ``::`` (the variant separator).
    """
    import hashlib

    from cap_core.io import read_table
    from cap_core.testbed.checks import normalise

    frame, notices = read_table(source, kind="questions", data=data)
    name = Path(source).name if data is not None else str(source)
    raw = data if data is not None else Path(source).read_bytes()
    frame = _match_columns(frame, name)
    cols = set(frame.columns)
    if frame.height == 0:
        raise CAPInputError("no questions in the file", file=name, row=1, expected="one row per question",
                            got="a header and no rows", fix="add question rows under the header")
    if "question" not in cols:
        raise CAPInputError("the questions file has no question column", file=name, column="question",
                            expected="columns question and answer (or question, options and correct)",
                            got=sorted(cols), fix="name the column holding the questions 'question'")
    mcq = "answer" not in cols and {"options", "correct"} <= cols
    if "answer" not in cols and not mcq:
        raise CAPInputError("the questions file has no answer column", file=name, column="answer",
                            expected="a reference answer per question in a column 'answer' (or multiple-choice "
                                     "columns 'options' and 'correct')", got=sorted(cols),
                            fix="add the correct answer of every question in a column named answer")
    n = frame.height
    width = max(2, len(str(n)))
    ids = _text(frame, "id", name) if "id" in cols else [f"q{i:0{width}d}" for i in range(1, n + 1)]
    domains = _text(frame, "domain", name) if "domain" in cols else [None] * n
    contexts = _text(frame, "context", name) if "context" in cols else [None] * n
    questions = _text(frame, "question", name)
    answers: list[str | None] = []
    option_lists: list[list[str] | None] = [None] * n
    if mcq:
        s_opts = frame["options"]
        opts = s_opts.to_list() if isinstance(s_opts.dtype, (pl.List, pl.Array)) else _text(frame, "options", name)
        correct = _text(frame, "correct", name)
        for r in range(n):
            try:
                options = parse_options(opts[r])
            except CAPInputError as err:
                raise err.replace(file=name, row=r + 1, column="options") from None
            if not options:
                raise CAPInputError("a multiple-choice row without options", file=name, row=r + 1, column="options",
                                    expected="options as a JSON list or text split at '|'", got=opts[r],
                                    fix="list the options, e.g. 'A) Paris | B) Lyon'")
            key = "" if correct[r] is None else str(correct[r]).strip().rstrip(".)").upper()
            k = (ord(key) - ord("A")) if len(key) == 1 and key.isalpha() else (int(key) - 1 if key.isdigit() else -1)
            if not 0 <= k < len(options):
                raise CAPInputError("the correct option is not among the options", file=name, row=r + 1,
                                    column="correct", expected=f"a letter A-{chr(ord('A') + len(options) - 1)} or "
                                    f"a number 1-{len(options)}", got=correct[r],
                                    fix="give the letter (or 1-based number) of the right option")
            answers.append(options[k])
            option_lists[r] = options
    else:
        answers = _text(frame, "answer", name)
    for col, values in (("question", questions), ("answer" if not mcq else "options", answers), ("id", ids)):
        for r, v in enumerate(values):
            if _empty(v):
                raise CAPInputError(f"empty {col}", file=name, row=r + 1, column=col,
                                    expected="a non-empty value on every row", got=v,
                                    fix=f"fill the {col} of that row, or remove the row")
    for r, (q, a) in enumerate(zip(questions, answers), start=1):
        if normalise(q) == normalise(a):
            raise CAPInputError("the answer repeats the question", file=name, row=r,
                                column="answer" if not mcq else "options", expected="the correct answer to the "
                                "question", got=a, fix="put the reference answer in the answer column")
    seen: dict[str, int] = {}
    for r, i in enumerate(ids, start=1):
        i = i.strip()
        if len(i) > MAX_ID_LENGTH or "::" in i:
            raise CAPInputError("an id that cannot name an item", file=name, row=r, column="id",
                                expected=f"at most {MAX_ID_LENGTH} characters, without '::'", got=i,
                                fix="shorten the id and drop '::' (it separates an item from its variants)")
        if i in seen:
            raise CAPInputError("repeated id", file=name, row=r, column="id", expected="each id once", got=i,
                                fix=f"give row {r} its own id (row {seen[i]} has the same one)")
        seen[i] = r
    out = pl.DataFrame({
        "id": [i.strip() for i in ids], "row": list(range(1, n + 1)),
        "domain": [d.strip() if isinstance(d, str) and d.strip() else "general" for d in domains],
        "question": [q.strip() for q in questions], "answer": [a.strip() for a in answers],
        "context": [c.strip() if isinstance(c, str) and c.strip() else None for c in contexts],
        "mcq": [mcq] * n, "options": option_lists}, schema=QUESTIONS_SCHEMA)
    return Questions(out, name, hashlib.sha256(raw).hexdigest(), tuple(notices))
