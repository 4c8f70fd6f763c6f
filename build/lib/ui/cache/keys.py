"""Cache keys for inputs that are not plain arguments: uploaded bytes and files on disk.

A cached function must be keyed by everything that changes its output. An upload is
keyed by a hash of its bytes (never by its name and size: two files can share both); a
file or folder read from disk by a stamp of its files (path, size, modification time), so
an edit on disk reaches the page without a restart.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["content_key", "path_stamp"]


def content_key(data: bytes) -> str:
    """SHA-256 hex digest of ``data`` (the key of an upload)."""
    return hashlib.sha256(data).hexdigest()


def path_stamp(path: str | Path) -> tuple[tuple[str, int, int], ...]:
    """``(relative path, size in bytes, mtime in ns)`` of a file, or of every file under a folder
    (sorted); empty when the path does not exist."""
    p = Path(path)
    if p.is_file():
        files = [p]
    elif p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file())
    else:
        return ()
    out = []
    for f in files:
        s = f.stat()
        out.append((f.relative_to(p).as_posix() if f != p else p.name, s.st_size, s.st_mtime_ns))
    return tuple(out)
