"""Cache keys for inputs that are not plain arguments: uploaded bytes and files on disk.

A cached function must be keyed by everything that changes its output. An upload is
keyed by a hash of its bytes (never by its name and size: two files can share both); a
file or folder read from disk by a stamp of its files (path, size, modification time), so
an edit on disk reaches the page without a restart.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

__all__ = ["content_key", "path_stamp"]


def content_key(data: bytes) -> str:
    """SHA-256 hex digest of ``data`` (the key of an upload)."""
    return hashlib.sha256(data).hexdigest()


def path_stamp(path: str | Path) -> tuple[tuple[str, int, int], ...]:
    """``(relative path, size in bytes, mtime in ns)`` of a file, or of every file under a folder
    (sorted); empty when the path does not exist. (Read with ``os.scandir``: several keys are stamped on
    every run of a page, a weight change included.)"""
    p = Path(path)
    try:
        s = os.stat(p)
    except OSError:
        return ()
    if not stat.S_ISDIR(s.st_mode):
        return ((p.name, s.st_size, s.st_mtime_ns),) if stat.S_ISREG(s.st_mode) else ()
    out = []
    todo = [("", str(p))]
    while todo:
        rel, folder = todo.pop()
        with os.scandir(folder) as it:
            for e in it:
                name = f"{rel}{e.name}"
                if e.is_dir():
                    todo.append((name + "/", e.path))
                elif e.is_file():
                    st = e.stat()
                    out.append((name, st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))
