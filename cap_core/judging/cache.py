"""Persistent cache of completed calls (diskcache, SQLite underneath).

One entry per :func:`cap_core.judging.request.cache_key`: the canonical request (no
API key, no ``api_base``), the raw completion text and the call's accounting (tokens,
cost, latency, retries). Each ``put`` is one committed SQLite transaction, so a process
killed with ``kill -9`` right after ``put`` returns keeps the entry; only completed,
successful calls are stored (failures are retried on the next run). litellm's own cache
is not used.
"""

from __future__ import annotations

from pathlib import Path

from cap_core.errors import CAPInputError

__all__ = ["JudgeCache"]

_FIELDS = ("completion", "request")


class JudgeCache:
    """A directory-backed cache of completions.

    Parameters
    ----------
    directory : str or Path
        Created if missing; safe to share between threads and processes.

    Raises
    ------
    CAPInputError
        The directory cannot be created or opened.
    """

    def __init__(self, directory: str | Path) -> None:
        import diskcache

        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._cache = diskcache.Cache(str(self.directory), size_limit=2**34)
        except OSError as exc:
            raise CAPInputError("cannot open the judging cache", file=str(directory), got=exc.strerror,
                                fix="choose a writable cache directory") from None

    def get(self, key: str) -> dict | None:
        """The stored record for ``key`` or ``None``."""
        rec = self._cache.get(key)
        return dict(rec) if isinstance(rec, dict) else None

    def __contains__(self, key: str) -> bool:
        return key in self._cache

    def put(self, key: str, record: dict) -> None:
        """Store ``record`` (must hold ``completion`` and ``request``) durably under ``key``."""
        missing = [f for f in _FIELDS if f not in record]
        if missing:
            raise CAPInputError("cache record incomplete", column=missing[0], expected=", ".join(_FIELDS),
                                got=sorted(record))
        self._cache.set(key, dict(record))

    def __len__(self) -> int:
        return len(self._cache)

    def close(self) -> None:
        """Close the underlying SQLite connections."""
        self._cache.close()
