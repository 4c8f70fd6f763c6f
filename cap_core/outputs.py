"""Writing output files: each file appears whole or not at all, and a refused run leaves none.

Every file the project writes (CSV exports, dataset Parquet files, HTML reports, baseline
JSON, run folders) goes through :func:`write_file`. It writes the content to a temporary
file in the same folder (``.<name>.<random>.part``) and renames it over the target with
:func:`os.replace`, which is atomic on one file system: a reader never sees half a file,
and a write that fails (a full disk, a folder that refuses files) leaves the old file as it
was and no partial new one.

A command that writes several files runs inside :func:`all_or_nothing` (the CLI wraps every
verb in one). Files written inside it are visible at once (a verb may read back what it
wrote), but the block remembers what it changed: a file it replaced is kept aside under a
hard link, and a folder it created is noted. When the block ends with an exception (a
refused input found after the first file was written, a file that cannot be written), every
file it wrote is removed, every replaced file is put back and every folder it created (and
left empty) is removed, so a refused run leaves the disk as it found it. When the block ends
normally, or with :class:`SystemExit` (a verb that decided its exit status, such as a failed
gate after the leaderboard was written), the changes stay.

Writes that must outlive a failure (the files of a judging run that already spent calls)
go inside :func:`kept`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

__all__ = ["write_file", "remove_file", "make_dirs", "all_or_nothing", "kept", "check_suffix", "SUFFIX_FORMATS",
           "WRITTEN_SUFFIXES"]

#: What a file name's ending says the file holds, for the endings a user may type for an output
#: (lowercase; a name with another ending, or none, says nothing and is accepted).
SUFFIX_FORMATS = {
    ".csv": "CSV", ".tsv": "tab-separated text", ".tab": "tab-separated text",
    ".xlsx": "Excel", ".xlsm": "Excel", ".xls": "Excel", ".ods": "OpenDocument spreadsheet",
    ".parquet": "Parquet", ".feather": "Arrow (Feather)", ".arrow": "Arrow", ".ipc": "Arrow",
    ".json": "JSON", ".jsonl": "JSON Lines", ".ndjson": "JSON Lines",
    ".html": "HTML", ".htm": "HTML", ".md": "Markdown", ".pdf": "PDF", ".png": "PNG", ".svg": "SVG",
    ".xlsb": "Excel", ".numbers": "Numbers spreadsheet", ".xml": "XML", ".yaml": "YAML", ".yml": "YAML",
    ".docx": "Word", ".sqlite": "SQLite", ".db": "database", ".h5": "HDF5", ".hdf5": "HDF5", ".avro": "Avro",
    ".orc": "ORC",
    ".gz": "gzip-compressed", ".tgz": "gzip-compressed archive", ".zip": "zip archive", ".7z": "7-Zip archive",
    ".tar": "tar archive", ".bz2": "bzip2-compressed", ".xz": "xz-compressed", ".zst": "zstd-compressed",
    ".lz4": "lz4-compressed", ".pkl": "pickle", ".pickle": "pickle",
}
_PACKED = ("compressed", "archive")
#: The formats the project writes to a named file, and the endings that name each.
WRITTEN_SUFFIXES = {"CSV": (".csv",), "HTML": (".html", ".htm"), "JSON": (".json",)}


def _ending(name: str) -> str:
    """The last ``.ending`` of ``name``, lowercase (a name that is only an ending, ``.xlsx``, is one), or ``""``."""
    return ("." + name.rsplit(".", 1)[1]).lower() if "." in name else ""


def check_suffix(path: str | Path, fmt: str) -> None:
    """Refuse writing ``fmt`` (a key of :data:`WRITTEN_SUFFIXES`) to a file whose name says another format.

    ``scores.xlsx`` or ``profile.parquet`` given for a CSV would otherwise hold comma-separated text
    under a name every program reads as something else (a spreadsheet program refuses the file, a
    Parquet reader fails). A name with the format's own ending, an ending not in
    :data:`SUFFIX_FORMATS` (``scores.txt``, ``scores.out``) or none is accepted.

    Raises
    ------
    CAPInputError
        The name ends in another format's ending; the message names the file, what its ending
        says and the ending to use.
    KeyError
        ``fmt`` is not a format the project writes (a programming error).
    """
    from cap_core.errors import CAPInputError

    own = WRITTEN_SUFFIXES[fmt]
    path = Path(path)
    # the ending as a reader sees it: trailing blanks and dots dropped (``"s.xlsx "``, ``s.xlsx.``), and a
    # name that is only an ending (``.xlsx``) read as one
    name = path.name.rstrip(" .\t\r\n")
    suffix = _ending(name)
    said = SUFFIX_FORMATS.get(suffix)
    if said is None or suffix in own:
        return
    # the name to use: every known ending dropped (s.xlsx.gz, l.csv.gz for JSON), the format's own kept
    stem = name
    while _ending(stem) in SUFFIX_FORMATS and _ending(stem) not in own and "." in stem.strip("."):
        stem = stem.rsplit(".", 1)[0]
    if stem.lower() in SUFFIX_FORMATS:  # the name was only an ending (.xlsx)
        better = f"out{own[0]} (a name before the ending)"
    else:
        better = stem if _ending(stem) in own else stem + own[0]
    packed = said.endswith(_PACKED)
    raise CAPInputError(f"the output's name says {said}, but {fmt} is written there"
                        + (", uncompressed" if packed else ""),
                        file=str(path), expected=f"a name ending in {' or '.join(own)}", got=path.name,
                        fix=f"name it {better}")


@dataclass
class _Changes:
    """What one :func:`all_or_nothing` block did: files written (with the hard link holding the
    file each replaced, or None) and folders created, in order."""

    files: list[tuple[Path, Path | None]] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)


_CURRENT: ContextVar[_Changes | None] = ContextVar("cap_outputs", default=None)


def _aside(path: Path) -> Path:
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.old")


def make_dirs(folder: str | Path) -> Path:
    """Create ``folder`` and its missing parents (noted for a rollback); returns it as a Path.

    Raises
    ------
    OSError
        A parent is a file, or the system refuses the folder.
    """
    folder = Path(folder)
    missing = []
    p = folder
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    folder.mkdir(parents=True, exist_ok=True)
    changes = _CURRENT.get()
    if changes is not None:
        changes.folders.extend(reversed(missing))
    return folder


def _note(path: Path) -> Path | None:
    """Inside a block: keep the file at ``path`` aside (a hard link) the first time the block touches it."""
    changes = _CURRENT.get()
    if changes is None:
        return None
    key = path.absolute()
    if key in changes.seen:
        return None
    changes.seen.add(key)
    old = None
    if path.is_file():
        old = _aside(path)
        try:
            os.link(path, old)
        except OSError:  # a file system without hard links: copy the bytes instead
            old.write_bytes(path.read_bytes())
    changes.files.append((key, old))
    return old


def write_file(path: str | Path, content: bytes | str | Callable[[Path], object], *,
               encoding: str = "utf-8") -> Path:
    """Write ``content`` to ``path`` through a temporary file in the same folder and an atomic rename.

    Parameters
    ----------
    path : str or Path
        The file to write; missing parent folders are created.
    content : bytes, str or callable
        The bytes, the text (written with ``encoding``), or a function that writes the file
        at the path it is given (e.g. ``lambda p: frame.write_parquet(p)``).
    encoding : str, default "utf-8"
        Encoding of text content.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        The folder cannot be created or the file cannot be written; no partial file is left.
    """
    path = Path(path)
    make_dirs(path.parent)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        if callable(content):
            content(tmp)
        else:
            tmp.write_bytes(content.encode(encoding) if isinstance(content, str) else content)
        _note(path)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.filename in (None, str(tmp)):
            exc.filename = str(path)  # name the file asked for, not the temporary one
        raise
    return path


def remove_file(path: str | Path) -> None:
    """Delete the file at ``path`` if there is one (put back if the enclosing block fails)."""
    path = Path(path)
    if not path.is_file():
        return
    _note(path)
    path.unlink()


def _rollback(changes: _Changes) -> None:
    for path, old in reversed(changes.files):
        with contextlib.suppress(OSError):
            if old is not None:
                os.replace(old, path)
            elif path.is_file():
                path.unlink()
    for folder in reversed(changes.folders):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty: a folder that holds other files stays


def _commit(changes: _Changes) -> None:
    for _, old in changes.files:
        if old is not None:
            with contextlib.suppress(OSError):
                old.unlink()


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """Undo every :func:`write_file`, :func:`remove_file` and :func:`make_dirs` of the block if it
    raises (module notes). Nested blocks join the outermost one."""
    if _CURRENT.get() is not None:
        yield
        return
    changes = _Changes()
    token = _CURRENT.set(changes)
    try:
        yield
    except SystemExit:
        _commit(changes)
        raise
    except BaseException:
        _rollback(changes)
        raise
    else:
        _commit(changes)
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Writes inside this block stay even if an enclosing :func:`all_or_nothing` block fails."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)
