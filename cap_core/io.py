"""Reading user tables from disk or from uploaded bytes.

One entry point, :func:`read_table`, turns a CSV, TSV, JSONL, JSON or Parquet file into
a :class:`polars.DataFrame` plus a list of notices. It never unpickles anything and
never evaluates file content: JSON is parsed with :mod:`json`, Parquet with Arrow.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["read_table", "decode_text", "SUPPORTED_EXTENSIONS"]

#: Extension -> format handled by :func:`read_table`.
SUPPORTED_EXTENSIONS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_FALLBACK_ENCODINGS = ("cp1252", "latin-1")


def decode_text(raw: bytes, name: str) -> tuple[str, list[str]]:
    """Decode file bytes as UTF-8 (BOM stripped), falling back to cp1252 then latin-1.

    Parameters
    ----------
    raw : bytes
        File content.
    name : str
        File name used in the notice.

    Returns
    -------
    text : str
        Decoded text without a leading byte-order mark.
    notices : list of str
        Empty for clean UTF-8; one sentence naming the encoding used otherwise.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    for enc in _FALLBACK_ENCODINGS:
        try:
            text = raw.decode(enc)
        except UnicodeDecodeError:
            continue
        line = raw[:first_bad].count(b"\n") + 1
        return text, [
            f"{name} is not valid UTF-8 (first bad byte on line {line}); it was read as {enc}. "
            "Check accented characters, or save the file as UTF-8."
        ]
    raise CAPInputError(  # pragma: no cover - latin-1 decodes any byte string
        "file encoding could not be read", file=name, expected="UTF-8 text", fix="save the file as UTF-8"
    )


def _read_iv(path: str | Path, data: bytes | None, kind: str) -> tuple[str, str]:
    if not isinstance(path, (str, Path)) or str(path) == "":
        raise CAPInputError(
            "no file given", expected="a path or file name", got=path, fix="pass the path of a CSV, JSONL or Parquet file"
        )
    if data is not None and not isinstance(data, (bytes, bytearray)):
        raise CAPInputError("uploaded content is not bytes", file=str(path), got=type(data).__name__)
    if not isinstance(kind, str) or not kind:
        raise CAPInputError("table kind must be a non-empty string", got=kind, fix='use e.g. kind="items"')
    name = Path(path).name
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        raise CAPInputError(
            f"unsupported file type for the {kind} table",
            file=name,
            expected="one of " + ", ".join(sorted(SUPPORTED_EXTENSIONS)),
            got=suffix or "(no extension)",
            fix="save the table as CSV, TSV, JSONL or Parquet (pickle and Excel files are not read)",
        )
    if data is None and not Path(path).is_file():
        raise CAPInputError(f"{kind} file not found", file=str(path), fix="check the path")
    return name, SUPPORTED_EXTENSIONS[suffix]


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13)) + b"\x7f"
_SIGNATURES = (
    (b"\x80", "a Python pickle"),
    (b"PK\x03\x04", "a ZIP archive or Excel workbook"),
    (b"PAR1", "a Parquet file (rename it to .parquet)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) workbook"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xff\xfe", "UTF-16 text (save it as UTF-8)"),
    (b"\xfe\xff", "UTF-16 text (save it as UTF-8)"),
)


def _check_content(raw: bytes, name: str, kind: str, fmt: str) -> None:
    """Reject an empty file, and binary content in a file named as text (CSV/TSV/JSON)."""
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    if not body.strip():
        raise CAPInputError(
            f"the {kind} file is empty",
            file=name,
            expected="a header row and at least one record",
            got=f"{len(raw)} bytes" + (" of blank space" if raw else ""),
            fix="choose the file that holds the table, or save the table again",
        )
    if fmt == "parquet":
        return
    head = body[:65536]
    if b"\x00" in head or sum(head.count(bytes([c])) for c in _CONTROL_BYTES) > 0.05 * len(head):
        what = next((w for sig, w in _SIGNATURES if head.startswith(sig)), "binary data")
        raise CAPInputError(
            f"the {kind} file is not text: it looks like {what}, not {fmt.upper()}",
            file=name,
            expected=f"plain text in {fmt.upper()} format",
            got=f"binary content starting {head[:8]!r}",
            fix="export the table as CSV, TSV, JSONL or Parquet from the program that made it "
            "(pickle and Excel files are not read)",
        )


def _records_frame(records: list, name: str, kind: str) -> pl.DataFrame:
    for i, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            raise CAPInputError(
                f"record is not a JSON object in the {kind} table",
                file=name,
                row=i,
                expected="one object per record, e.g. {\"item_id\": \"x\", ...}",
                got=type(rec).__name__,
                fix="write each record as a JSON object with named fields",
            )
    if not records:
        return pl.DataFrame()
    try:
        return pl.from_dicts(records, infer_schema_length=None)
    except Exception as exc:  # polars raises several types for mixed values
        raise CAPInputError(
            f"a field mixes value types across records in the {kind} table",
            file=name,
            got=str(exc).splitlines()[0][:200],
            fix="give each field one type in every record (e.g. always a string for ids)",
        ) from None


def _parse_jsonl(text: str, name: str, kind: str) -> pl.DataFrame:
    records = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CAPInputError(
                f"malformed JSON on line {i} of the {kind} file",
                file=name,
                row=i,
                expected="one complete JSON object per line",
                got=line[:80],
                fix=f"repair line {i} ({exc.msg} at character {exc.colno})",
            ) from None
    return _records_frame(records, name, kind)


def _parse_json(text: str, name: str, kind: str) -> pl.DataFrame:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CAPInputError(
            f"malformed JSON in the {kind} file",
            file=name,
            row=exc.lineno,
            expected="a JSON list of objects",
            fix=f"repair the JSON ({exc.msg} at line {exc.lineno}, character {exc.colno})",
        ) from None
    if isinstance(obj, dict) and isinstance(obj.get("records"), list):
        obj = obj["records"]
    if not isinstance(obj, list):
        raise CAPInputError(
            f"the {kind} JSON file is not a list of records",
            file=name,
            expected='a list of objects, or {"records": [...]}',
            got=type(obj).__name__,
            fix="write the table as a JSON list with one object per row",
        )
    return _records_frame(obj, name, kind)


def _parse_delimited(text: str, sep: str, name: str, kind: str) -> pl.DataFrame:
    try:
        frame = pl.read_csv(io.StringIO(text), separator=sep, infer_schema=False, truncate_ragged_lines=False)
    except Exception as exc:
        raise CAPInputError(
            f"the {kind} file could not be parsed as {'TSV' if sep == chr(9) else 'CSV'}",
            file=name,
            got=str(exc).splitlines()[0][:200],
            fix="check that every row has as many fields as the header and that quotes are balanced",
        ) from None
    return frame.rename({c: c.strip() for c in frame.columns if c != c.strip()})


def read_table(
    path: str | Path, *, kind: str = "table", data: bytes | None = None
) -> tuple[pl.DataFrame, list[str]]:
    """Read a user table by its extension.

    Parameters
    ----------
    path : str or pathlib.Path
        File to read; when ``data`` is given only its name (extension) is used.
    kind : str, default "table"
        What the table holds (``"items"``, ``"judgments"``, ``"declarations"``...);
        used in messages only.
    data : bytes, optional
        File content already in memory (an upload).

    Returns
    -------
    frame : polars.DataFrame
        One row per record. CSV and TSV cells are returned as ``String`` (ids such as
        ``"007"`` keep their zeros; :mod:`cap_core.schema` validators cast them and
        name the row of any bad value). JSON, JSONL and Parquet keep their own types.
    notices : list of str
        Encoding fallbacks and similar remarks for the user; empty when clean.

    Raises
    ------
    CAPInputError
        Missing file, empty file, binary content in a text-format file (a pickle or
        workbook renamed to .csv), unsupported extension (pickle, Excel, ...), malformed JSON line
        (names the file and the 1-based line), unparsable CSV, unreadable Parquet,
        or JSON records that are not objects.

    Notes
    -----
    A UTF-8 byte-order mark is stripped. Text that is not UTF-8 is decoded as
    cp1252, else latin-1, and a notice says so.
    """
    name, fmt = _read_iv(path, data, kind)
    raw = bytes(data) if data is not None else Path(path).read_bytes()
    _check_content(raw, name, kind, fmt)
    if fmt == "parquet":
        try:
            return pl.read_parquet(io.BytesIO(raw)), []
        except Exception as exc:
            raise CAPInputError(
                f"the {kind} file is not readable Parquet",
                file=name,
                got=type(exc).__name__,
                fix="re-export the table as Parquet or CSV",
            ) from None
    text, notices = decode_text(raw, name)
    if fmt == "jsonl":
        frame = _parse_jsonl(text, name, kind)
    elif fmt == "json":
        frame = _parse_json(text, name, kind)
    else:
        frame = _parse_delimited(text, "\t" if fmt == "tsv" else ",", name, kind)
    return frame, notices
