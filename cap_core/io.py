"""Reading user tables from disk or from uploaded bytes.

One entry point, :func:`read_table`, turns a CSV, TSV, JSONL, JSON or Parquet file into
a :class:`polars.DataFrame` plus a list of notices. It never unpickles anything and
never evaluates file content: JSON is parsed with :mod:`json`, Parquet with Arrow.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["read_table", "require_file", "decode_text", "parse_json", "read_unpacked", "copy_unpacked",
           "SUPPORTED_EXTENSIONS", "JOINED", "MAX_JSON_DEPTH", "MAX_UNPACKED_BYTES"]

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
#: Deepest nesting of lists / objects accepted inside one field of a JSON record. A
#: table's cells are scalars or short lists; polars needs tens of seconds to type a
#: field nested a few hundred deep, and Python's json stops near a thousand.
MAX_JSON_DEPTH = 16
#: The ``kind`` of one file holding judgment rows with their item columns (``import table FILE``).
JOINED = "joined judgments"
_DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}
#: Most bytes one decompressed file may unpack to: a ``.json.gz``, a member of an inspect ``.eval`` log
#: (a ZIP archive), a member of an uploaded ``.zip`` (and so an archive inside it). The largest real file
#: a reader meets is an AlpacaEval ``annotations.json`` of a few tens of MB; the JSON readers hold a file
#: and its parsed objects in memory (several times its size), so 256 MiB keeps a reader's peak near a
#: few GB at worst, while a 1.4 MB zip or gzip "bomb" would otherwise unpack to 1.5 GB and more.
MAX_UNPACKED_BYTES = 256 * 1024**2
_CHUNK = 1 << 20


def parse_json(text: str | bytes, *, file: str | None = None, row: int | None = None,
               what: str = "the file", many: bool = False) -> object:
    """Parse one JSON document (a file, or one line of a JSON-lines file) from a user's file.

    The one JSON reader of the project for files it did not write itself (tool logs, baselines,
    label stores, uploaded tables): every failure is a :class:`CAPInputError` naming the file
    and row, never a traceback. Python's :func:`json.loads` gives up on a document nested
    deeper than the interpreter's recursion limit (about a thousand levels) with a
    ``RecursionError``; that is read as bad input too.

    Parameters
    ----------
    text : str or bytes
        The document (bytes are decoded as UTF-8).
    file : str, optional
        The file it came from (named in the error).
    row : int, optional
        The 1-based line of a JSON-lines file (named in the error; a document's own line
        otherwise).
    what : str, default "the file"
        What the document is, for the message (``"the baseline file"``).
    many : bool, default False
        Read JSON values written one after another (separated by white space only, as
        ``datasets``' ``to_json`` writes a list of records without brackets) and return them as
        a list; an empty text gives an empty list.

    Returns
    -------
    object
        The parsed value (``NaN`` and ``Infinity`` literals are read as floats, as
        :mod:`json` does: callers check the numbers they need); with ``many``, the list of
        values in order.

    Raises
    ------
    CAPInputError
        Not UTF-8, malformed JSON (with the line and character), or nested too deeply.
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return _values(text) if many else json.loads(text)
    except UnicodeDecodeError as exc:
        raise CAPInputError(f"{what} is not UTF-8 text", file=file, row=row, expected="UTF-8 JSON",
                            got=f"byte 0x{exc.object[exc.start]:02x} at byte {exc.start}",
                            fix="save the file as UTF-8") from None
    except json.JSONDecodeError as exc:
        raise CAPInputError(f"malformed JSON in {what}", file=file, row=row if row is not None else exc.lineno,
                            expected="one complete JSON document" + (" per line" if row is not None else ""),
                            got=exc.doc[max(0, exc.pos - 20):exc.pos + 20] if exc.doc else "",
                            fix=f"repair the JSON ({exc.msg} at line {exc.lineno}, character {exc.colno})") from None
    except RecursionError:
        raise CAPInputError(f"JSON nested too deeply in {what}", file=file, row=row,
                            expected="lists and objects nested at most a few hundred levels deep",
                            fix="write the data without such deep nesting (no real log or table needs it)") from None


def _values(text: str) -> list:
    """The JSON values of ``text`` written one after another (white space between them)."""
    dec, values, pos, end = json.JSONDecoder(), [], 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return values
        value, pos = dec.raw_decode(text, pos)
        values.append(value)


def _too_large(file: str | None, member: str | None, limit: int, what: str) -> CAPInputError:
    return CAPInputError(
        f"{what} unpacks to more than {limit / 1024**2:,.0f} MiB", file=file, column=member,
        expected=f"at most {limit:,} bytes once decompressed (cap_core.io.MAX_UNPACKED_BYTES)",
        fix="pass the uncompressed file, or split it: no real log or table this large is compressed this "
            "much (a tiny archive that unpacks to gigabytes is a decompression bomb)")


def read_unpacked(stream, *, file: str | None = None, member: str | None = None,
                  limit: int | None = None, what: str = "a compressed file") -> bytes:
    """Read a decompressing stream whole, stopping as soon as it passes ``limit`` bytes.

    The one bound on every decompression the readers do (:data:`MAX_UNPACKED_BYTES`): the
    bytes are counted as they come out of the decompressor, so neither a size a ZIP or gzip
    header declares nor the compressed size is trusted.

    Parameters
    ----------
    stream : binary file-like
        A decompressing reader (``gzip.open``, ``zipfile.ZipFile.open``, a zstandard stream reader).
    file : str, optional
        The file it comes from (named in the error).
    member : str, optional
        The archive member (named in the error as its column).
    limit : int, optional
        Bytes allowed (default :data:`MAX_UNPACKED_BYTES`).
    what : str
        What is read, for the message.

    Returns
    -------
    bytes
        At most ``limit`` bytes: the whole decompressed content.

    Raises
    ------
    CAPInputError
        The content passes ``limit`` bytes (naming the file, the member and the limit).
    """
    limit = MAX_UNPACKED_BYTES if limit is None else int(limit)
    chunks, total = [], 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise _too_large(file, member, limit, what)
        chunks.append(chunk)


def copy_unpacked(stream, target, *, file: str | None = None, member: str | None = None,
                  limit: int | None = None, what: str = "a compressed file") -> int:
    """Copy a decompressing stream into the binary file ``target`` under the bound of :func:`read_unpacked`.

    Returns the bytes copied; raises :class:`CAPInputError` (as :func:`read_unpacked`) once the
    copy passes ``limit`` (the part written so far stays for the caller to remove).
    """
    limit = MAX_UNPACKED_BYTES if limit is None else int(limit)
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return total
        total += len(chunk)
        if total > limit:
            raise _too_large(file, member, limit, what)
        target.write(chunk)


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


def require_file(path: str | Path, kind: str = "table") -> None:
    """Refuse a path that is not a regular file: missing, a folder, or a pipe, device or socket
    (reading one of those would block or never end).

    Raises
    ------
    CAPInputError
        Naming the file and which of the three it is.
    """
    p = Path(path).expanduser()
    if p.is_file():
        return
    if p.is_dir():
        raise CAPInputError(f"the {kind} path is a folder, not a file", file=str(path),
                            expected="a CSV, TSV, JSONL, JSON or Parquet file", fix="give the path of the file")
    if p.exists():
        raise CAPInputError(f"the {kind} path is not a regular file (a pipe, device or socket)", file=str(path),
                            expected="a CSV, TSV, JSONL, JSON or Parquet file saved on disk",
                            fix="save the table to a file and give its path")
    raise CAPInputError(f"{kind} file not found", file=str(path), fix="check the path")


def _read_iv(path: str | Path, data: bytes | None, kind: str) -> tuple[str, str]:
    if not isinstance(path, (str, Path)) or str(path) == "":
        raise CAPInputError(
            "no file given", argument="path", expected="a path or file name", got=path,
            fix="pass the path of a CSV, JSONL or Parquet file",
        )
    if data is not None and not isinstance(data, (bytes, bytearray)):
        raise CAPInputError("uploaded content is not bytes", file=str(path), argument="data", expected="bytes",
                            got=type(data).__name__, fix="pass the upload's bytes (e.g. getvalue())")
    if not isinstance(kind, str) or not kind:
        raise CAPInputError("table kind must be a non-empty string", argument="kind", got=kind,
                            fix='use e.g. kind="items"')
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
    if data is None:
        require_file(path, kind)
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
    if b"\x00" in head or len(head) - len(head.translate(None, _CONTROL_BYTES)) > 0.05 * len(head):  # one pass
        what = next((w for sig, w in _SIGNATURES if head.startswith(sig)), "binary data")
        raise CAPInputError(
            f"the {kind} file is not a text table (it looks like {what})",
            file=name,
            fix="save it as CSV, TSV, JSONL or Parquet",
        )


def _first_repeat(names: list[str]) -> tuple[str, int, int] | None:
    """The first name given twice, with its 1-based positions; ``None`` if all differ."""
    seen: dict[str, int] = {}
    for i, n in enumerate(names, start=1):
        if n in seen:
            return n, seen[n], i
        seen[n] = i
    return None


def _two_columns(name: str, kind: str, repeat: tuple[str, int, int]) -> CAPInputError:
    col, i, j = repeat
    return CAPInputError(
        f"two columns named {col!r} in the {kind} file (columns {i} and {j})",
        file=name,
        row=0,
        column=col,
        expected="each column name once",
        fix="rename or delete one of the two columns (names are compared without surrounding spaces)",
    )


class _Repeated(dict):
    """A JSON object in which some key appeared twice (``repeated`` names it)."""

    repeated: str = ""


def _object(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for :func:`json.loads` that notices a key given twice."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Repeated(obj)
    marked.repeated = _first_repeat([k for k, _ in pairs])[0]
    return marked


def _too_deep(value: object) -> bool:
    """True if ``value`` nests lists / objects more than :data:`MAX_JSON_DEPTH` deep."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        children = v.values() if isinstance(v, dict) else v
        stack.extend((c, depth + 1) for c in children if isinstance(c, (list, dict)))
    return False


def _too_deep_error(name: str, kind: str, row: int | None, column: str | None) -> CAPInputError:
    return CAPInputError(
        f"JSON nested too deeply in the {kind} file",
        file=name,
        row=row,
        column=column,
        expected=f"flat records: strings, numbers or lists nested at most {MAX_JSON_DEPTH} deep",
        fix="write one record per row with plain values (a JSON table holds no deep structures)",
    )


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _check_json(text: str, records: list[dict], rows: list[int], sources: list[str] | None, base: int,
                name: str, kind: str) -> None:
    """Reject a record field nested deeper than :data:`MAX_JSON_DEPTH` and a key given twice in a record.

    Both are found on the text with its strings removed (brackets and colons only), in
    C-speed passes; records are walked, or parsed again marking repeated keys, only when
    that skeleton says something may be wrong. ``base`` is the nesting of a record itself
    (1 in JSON lines, 2 in a JSON list); ``sources`` holds each record's line (JSON lines).
    """
    skeleton = _JSON_STRING.sub("", text)
    brackets = _NOT_BRACKET.sub("", skeleton)
    if brackets:
        import numpy as np  # JSON input only: a CSV or Parquet read does not load numpy

        step = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
        depth = int(np.cumsum(np.where((step == ord("[")) | (step == ord("{")), 1, -1)).max())
        if depth > MAX_JSON_DEPTH + base:
            for rec, row in zip(records, rows):
                for key, value in rec.items():
                    if isinstance(value, (list, dict)) and _too_deep(value):
                        raise _too_deep_error(name, kind, row, key)
    if brackets.count("{") == len(records) and sum(map(len, records)) == skeleton.count(":"):
        return  # every object is a record and every key of the text survived the parse
    if sources is not None:
        marked = [json.loads(line, object_pairs_hook=_object) for line in sources]
    else:
        marked = json.loads(text, object_pairs_hook=_object)
        if isinstance(marked, dict):
            marked = marked.get("records", [])
    for rec, row in zip(marked, rows):
        if isinstance(rec, _Repeated):
            raise CAPInputError(
                f"two fields named {rec.repeated!r} in one record of the {kind} file",
                file=name,
                row=row,
                column=rec.repeated,
                expected="each field once per record",
                fix="delete or rename one of the two fields",
            )


def _records_frame(records: list, name: str, kind: str, text: str, *, base: int,
                   rows: list[int] | None = None, sources: list[str] | None = None) -> pl.DataFrame:
    """Records (JSON objects) parsed from ``text`` as a frame; ``rows`` are their lines
    (default: record numbers)."""
    rows = rows if rows is not None else list(range(1, len(records) + 1))
    for rec, row in zip(records, rows):
        if not isinstance(rec, dict):
            raise CAPInputError(
                f"record is not a JSON object in the {kind} table",
                file=name,
                row=row,
                expected="one object per record, e.g. {\"item_id\": \"x\", ...}",
                got=type(rec).__name__,
                fix="write each record as a JSON object with named fields",
            )
    if not records:
        return pl.DataFrame()
    _check_json(text, records, rows, sources, base, name, kind)
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
    records, rows, sources = [], [], []
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
        except RecursionError:  # Python's json gives up near a thousand levels
            raise _too_deep_error(name, kind, i, None) from None
        rows.append(i)
        sources.append(line)
    return _records_frame(records, name, kind, text, base=1, rows=rows, sources=sources)


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
    except RecursionError:  # Python's json gives up near a thousand levels
        raise _too_deep_error(name, kind, None, None) from None
    base = 2
    if isinstance(obj, dict) and isinstance(obj.get("records"), list):
        obj, base = obj["records"], 3
    if not isinstance(obj, list):
        raise CAPInputError(
            f"the {kind} JSON file is not a list of records",
            file=name,
            expected='a list of objects, or {"records": [...]}',
            got=type(obj).__name__,
            fix="write the table as a JSON list with one object per row",
        )
    return _records_frame(obj, name, kind, text, base=base)


def _check_header(text: str, sep: str, name: str, kind: str) -> None:
    """Reject a header split by another delimiter than ``sep``, and a column name given twice."""
    fmt = "TSV" if sep == "\t" else "CSV"
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=sep), [])
    except csv.Error:  # left to the parser, which names the problem
        return
    if len(header) == 1:
        from cap_core.schema import ITEMS_REQUIRED, JUDGMENTS_REQUIRED

        # the columns each kind of table of the data model needs (the others: just the delimiter)
        needs = {"items": ITEMS_REQUIRED, "judgments": JUDGMENTS_REQUIRED,
                 JOINED: JUDGMENTS_REQUIRED + ("gold",), "questions": ("question", "answer")}.get(kind)
        counts = {d: header[0].count(d) for d in _DELIMITERS if d != sep}
        other = max(counts, key=counts.get)
        if counts[other]:
            fix = ("rename the file to .csv" if other == "," else
                   "rename the file to .tsv" if other == "\t" else
                   f"export it again with {_DELIMITERS[sep]}s between fields")
            raise CAPInputError(
                f"the {kind} file separates its fields with {other!r} ({_DELIMITERS[other]}), not {sep!r} as a "
                f"{fmt} file does",
                file=name,
                row=0,
                expected=(f"a header such as {sep.join(needs)}" if needs else
                          f"fields separated by {sep!r} ({_DELIMITERS[sep]})").replace("\t", "<tab>"),
                got=header[0][:60],
                fix=fix,
            )
    repeat = _first_repeat([h.strip() for h in header if h.strip()])
    if repeat:
        col = repeat[0]
        positions = [k for k, h in enumerate(header, start=1) if h.strip() == col]
        raise _two_columns(name, kind, (col, positions[0], positions[1]))


def _parse_delimited(text: str, sep: str, name: str, kind: str) -> pl.DataFrame:
    _check_header(text, sep, name, kind)
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


def _parse_parquet(raw: bytes, name: str, kind: str) -> pl.DataFrame:
    try:
        return pl.read_parquet(io.BytesIO(raw))
    except Exception as exc:
        if isinstance(exc, pl.exceptions.DuplicateError):
            import pyarrow.parquet as pq

            repeat = _first_repeat(pq.read_schema(io.BytesIO(raw)).names)
            if repeat:
                raise _two_columns(name, kind, repeat) from None
        raise CAPInputError(
            f"the {kind} file is not readable Parquet",
            file=name,
            got=type(exc).__name__,
            fix="re-export the table as Parquet or CSV",
        ) from None


def _read_bytes(path: Path, kind: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CAPInputError(
            f"cannot read the {kind} file", file=str(path), got=exc.strerror or type(exc).__name__,
            fix="check the file's permissions",
        ) from None


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
        Missing or unreadable file, empty file, binary content in a text-format file
        ("not a text table": a pickle or workbook renamed to .csv), unsupported
        extension (pickle, Excel, ...), a CSV / TSV header split by another delimiter
        (``;`` in a .csv, ``,`` in a .tsv...), two columns of one name (row 0; also two
        fields of one name in a JSON record, or in a Parquet schema), malformed JSON
        line (names the file and the 1-based line), JSON nested deeper than
        :data:`MAX_JSON_DEPTH` in a field (or too deep for Python's json), unparsable
        CSV, unreadable Parquet, or JSON records that are not objects.

    Notes
    -----
    A UTF-8 byte-order mark is stripped. Text that is not UTF-8 is decoded as
    cp1252, else latin-1, and a notice says so.
    """
    name, fmt = _read_iv(path, data, kind)
    raw = bytes(data) if data is not None else _read_bytes(Path(path), kind)
    _check_content(raw, name, kind, fmt)
    if fmt == "parquet":
        return _parse_parquet(raw, name, kind), []
    text, notices = decode_text(raw, name)
    if fmt == "jsonl":
        frame = _parse_jsonl(text, name, kind)
    elif fmt == "json":
        frame = _parse_json(text, name, kind)
    else:
        frame = _parse_delimited(text, "\t" if fmt == "tsv" else ",", name, kind)
    return frame, notices
