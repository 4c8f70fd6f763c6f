"""Uploaded files (name and bytes) written to a folder an importer of :mod:`cap_core.importers.formats` reads.

The dashboard hands over what the user uploaded; :func:`write_uploads` writes it into a
folder named by the SHA-256 of the names and contents (the same upload always lands in the
same folder, so a rerun reads it again without writing), extracting ``.zip`` archives so
that a tool's folder layout (LLMBar's ``Dataset/``, JudgeBench's ``data/`` and ``outputs/``)
survives the upload. :func:`read_uploads` then calls the registry's reader on it. Nothing
is unpickled: every file is parsed by the format's reader.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from cap_core.errors import CAPInputError
from cap_core.io import copy_unpacked

__all__ = ["write_uploads", "read_uploads", "detect_upload", "upload_root", "MAX_UNZIPPED_BYTES"]

#: Largest total size of the files a .zip upload may unpack to (bytes); each member is also held to
#: :data:`cap_core.io.MAX_UNPACKED_BYTES`, counted while it is unpacked.
MAX_UNZIPPED_BYTES = 2 * 1024**3


def upload_root() -> Path:
    """Where uploads are written: ``$CAP_UPLOAD_DIR`` or ``<system temp>/cap-uploads``."""
    return Path(os.environ.get("CAP_UPLOAD_DIR") or Path(tempfile.gettempdir()) / "cap-uploads")


def _digest(files: tuple[tuple[str, bytes], ...]) -> str:
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def _safe_name(name: str) -> str:
    base = Path(str(name).replace("\\", "/")).name
    if base in ("", ".", ".."):
        raise CAPInputError("upload without a usable file name", file=str(name), fix="rename the file and upload it again")
    return base


def _claim(out: Path, target: Path, name: str, origin: dict[Path, str]) -> None:
    """Note that upload ``name`` writes ``out``; refuse when another upload (or member) wrote it already:
    the later would replace the earlier's judgments without a word."""
    if out in origin:
        where = out.relative_to(target).as_posix()
        first = origin[out]
        raise CAPInputError("two uploads hold a file of the same path", file=where,
                            got=f"in {first} and in {name}" if first != name else f"twice in {name}",
                            fix="upload them apart, or rename one (each file is read once)")
    origin[out] = name


def _unzip(data: bytes, name: str, target: Path, origin: dict[Path, str]) -> None:
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CAPInputError("not a readable .zip archive", file=name, fix="upload the folder zipped again") from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
        if sum(m.file_size for m in members) > MAX_UNZIPPED_BYTES:
            raise CAPInputError("the .zip unpacks to too much data", file=name,
                                expected=f"at most {MAX_UNZIPPED_BYTES // 1024**3} GB", fix="zip only the tool's files")
        total = 0
        for m in members:
            parts = PurePosixPath(m.filename.replace("\\", "/")).parts
            if not parts or m.filename.startswith("/") or ".." in parts or ":" in parts[0]:
                raise CAPInputError("a .zip member outside the archive's folder", file=name, got=m.filename,
                                    fix="zip the folder with relative paths")
            out = target.joinpath(*parts)
            _claim(out, target, name, origin)
            out.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(m) as src, out.open("wb") as dst:  # counted as it unpacks: headers are not trusted
                total += copy_unpacked(src, dst, file=name, member=m.filename, what="a member of the .zip")
            if total > MAX_UNZIPPED_BYTES:
                raise CAPInputError("the .zip unpacks to too much data", file=name,
                                    expected=f"at most {MAX_UNZIPPED_BYTES // 1024**3} GB",
                                    fix="zip only the tool's files")


def write_uploads(files: tuple[tuple[str, bytes], ...] | list[tuple[str, bytes]], root: Path | None = None) -> Path:
    """Write ``(name, bytes)`` uploads into ``<root>/<sha256>/`` and return that folder.

    A ``.zip`` is unpacked there (its own folders kept); any other file is written under its
    base name. The folder is complete or absent: the files are written to a sibling folder
    first and moved in place.

    Raises
    ------
    CAPInputError
        No file, two uploads of the same name, two uploads (or members of archives) that would
        write one path (a file of one would replace the other's), an unreadable archive, a
        member with an absolute or ``..`` path, an archive larger than :data:`MAX_UNZIPPED_BYTES`
        unpacked.
    """
    files = tuple((str(n), bytes(d)) for n, d in files)
    if not files:
        raise CAPInputError("no file uploaded", fix="upload the tool's files (or a .zip of its folder)")
    names = [_safe_name(n) for n, _ in files]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CAPInputError("two uploads with the same name", file=dup[0],
                            fix="upload files of different names, or a .zip of the folder that holds them")
    root = Path(root) if root is not None else upload_root()
    folder = root / _digest(files)
    if folder.is_dir():
        return folder
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".partial-", dir=root))
    try:
        origin: dict[Path, str] = {}  # each path written -> the upload it came from
        for name, (_, data) in zip(names, files):
            if name.lower().endswith(".zip"):
                _unzip(data, name, work, origin)
            else:
                _claim(work / name, work, name, origin)
                (work / name).write_bytes(data)
        try:
            work.rename(folder)
        except OSError:  # written meanwhile by another session: that copy is the same content
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def read_uploads(kind: str, files, options: dict | None = None, option_files: dict | None = None,
                 root: Path | None = None):
    """Import uploads as format ``kind`` (:func:`cap_core.importers.formats.read`).

    Parameters
    ----------
    kind : str
        A kind of :data:`cap_core.importers.formats.KINDS`.
    files : sequence of (name, bytes)
        The uploads. One file that is not a .zip is read as that file; otherwise the folder
        of :func:`write_uploads` is read.
    options : dict, optional
        Text options (``gold_judge``, ``baseline``, ``strategies``); empty values are dropped.
    option_files : dict, optional
        Path options given as an upload, ``{"gold": (name, bytes)}``: written to a folder
        of their own (so a folder reader does not take them for data) and passed as a path.

    Returns
    -------
    cap_core.dataset.Dataset

    Raises
    ------
    CAPInputError
        As :func:`write_uploads` and the format's reader; option checks name the option.
    """
    import dataclasses

    from cap_core.importers.formats import read

    folder = write_uploads(files, root)
    only = [n for n, _ in files]
    path = folder / _safe_name(only[0]) if len(only) == 1 and not only[0].lower().endswith(".zip") else folder
    zipped = len(only) == 1 and only[0].lower().endswith(".zip")
    places = {folder: (_safe_name(only[0]) + "/" if zipped else "", _safe_name(only[0]) if zipped else "the upload")}
    opts = {k: v for k, v in (options or {}).items() if v not in (None, "")}
    for name, upload in (option_files or {}).items():
        if upload is not None:
            opts[name] = write_uploads([upload], root) / _safe_name(upload[0])
            places[opts[name].parent] = ("", _safe_name(upload[0]))
    try:
        ds = read(kind, path, **opts)
    except CAPInputError as err:
        raise _as_uploaded(err, places) from None
    notices = tuple(_uploaded_text(n, places) for n in ds.notices)
    return ds if notices == ds.notices else dataclasses.replace(ds, notices=notices)


def _uploaded_text(text: str, places: dict[Path, tuple[str, str]]) -> str:
    """``text`` in the dashboard's terms: the folder an upload was written to becomes what the user uploaded
    (a file's own name, ``logs.zip/<member>`` for a member of an uploaded .zip), and the CLI's option flags
    (``--gold-judge``) the sidebar's fields (:data:`cap_core.importers.formats.FIELDS`)."""
    import re

    from cap_core.importers.formats import FIELDS, flag

    for where, (prefix, whole) in places.items():
        text = text.replace(str(where) + os.sep, prefix).replace(str(where), whole)
    names = {flag(n): f"“{label}”" for n, label in FIELDS.items()}
    pattern = "|".join(re.escape(f) for f in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w-])(?:{pattern})(?![\w-])", lambda m: names[m.group(0)], text)


def _as_uploaded(err: CAPInputError, places: dict[Path, tuple[str, str]]) -> CAPInputError:
    """``err`` with every text part in the dashboard's terms (:func:`_uploaded_text`); an argument that is a
    CLI flag becomes the sidebar's field."""
    from cap_core.importers.formats import FIELDS, flag

    fields = {flag(n): label for n, label in FIELDS.items()}
    parts = {k: _uploaded_text(v, places) for k in ("problem", "file", "expected", "fix")
             if isinstance(v := getattr(err, k), str)}
    if isinstance(err.got, str):
        parts["got"] = _uploaded_text(err.got, places)
    if err.argument in fields:
        parts["argument"] = fields[err.argument]
    return err.replace(**parts)


def detect_upload(files, root: Path | None = None) -> str | None:
    """The one import kind the uploads hold (:func:`cap_core.importers.formats.detect`), or None."""
    from cap_core.importers.formats import detect

    return detect(write_uploads(files, root))
