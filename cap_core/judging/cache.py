"""Persistent cache of completed calls (diskcache, SQLite underneath), with claims.

Entries: one per :func:`cap_core.judging.request.cache_key`: the canonical request (no
API key, no ``api_base``), the raw completion text and the call's accounting (tokens,
cost, latency, retries). Each ``put`` is one committed SQLite transaction, so a process
killed with ``kill -9`` right after ``put`` returns keeps the entry. Only answers are
stored: a record whose completion is empty or not text is refused, and one read back
that way is a miss (failures and empty replies are asked again on the next run).
litellm's own cache is not used.

Storage is JSON only (:class:`JSONOnlyDisk`): values are written as zlib-compressed
JSON and a stored row is decoded as JSON or not at all. Nothing is ever unpickled, so
an entry planted in the cache folder (a pickle with a code-running payload, or any
other bytes) is read as a miss, never run.

Claims (``<directory>/claims``, a second diskcache of the same kind): before sending a
call, a process takes the key's claim with :meth:`JudgeCache.claim` (atomic across
threads and processes: SQLite ``add``). The claim is a lease of ``ttl`` seconds that its
holder renews (:meth:`JudgeCache.renew`) while the call is in flight and drops
(:meth:`JudgeCache.release`) when it ends; a holder that crashed stops renewing, so its
claim expires after at most ``ttl`` seconds and another process takes over.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import diskcache
from diskcache.core import MODE_BINARY, MODE_RAW

from cap_core.errors import CAPInputError

__all__ = ["JudgeCache", "JSONOnlyDisk", "UnreadableEntry"]

_FIELDS = ("completion", "request")


class UnreadableEntry(Exception):
    """A stored row that is not zlib-compressed JSON (e.g. a planted pickle); read as a miss."""


class JSONOnlyDisk(diskcache.Disk):
    """A diskcache ``Disk`` for string keys and JSON values that never unpickles.

    Keys must be ``str`` (stored as SQLite text). Values are stored as zlib-compressed
    JSON bytes (in SQLite, or in a file when large). Reading accepts exactly that: a row
    in diskcache's pickle or text mode, or bytes that are not compressed JSON, raise
    :class:`UnreadableEntry`.
    """

    def put(self, key):
        if not isinstance(key, str):
            raise TypeError("judging cache keys are strings")
        return super().put(key)

    def get(self, key, raw):
        if not raw:
            raise UnreadableEntry("a cache key that is not text")
        return super().get(key, raw)

    def store(self, value, read, key=diskcache.core.UNKNOWN):
        if read:
            raise TypeError("the judging cache stores JSON values, not files")
        data = zlib.compress(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"), 1)
        return super().store(data, False, key=key)

    def fetch(self, mode, filename, value, read):
        if read or mode not in (MODE_RAW, MODE_BINARY):
            raise UnreadableEntry(f"a cache row in diskcache mode {mode} (only compressed JSON is read)")
        data = super().fetch(mode, filename, value, False)
        try:
            return json.loads(zlib.decompress(bytes(data)).decode("utf-8"))
        except (zlib.error, UnicodeDecodeError, ValueError, TypeError) as exc:
            raise UnreadableEntry(f"a cache row that is not compressed JSON ({type(exc).__name__})") from None


def _open(directory: Path) -> diskcache.Cache:
    return diskcache.Cache(str(directory), size_limit=2**34, disk=JSONOnlyDisk)


class JudgeCache:
    """A directory-backed cache of completions, plus per-key claims.

    Parameters
    ----------
    directory : str or Path
        Created if missing; safe to share between threads and processes.

    Raises
    ------
    CAPInputError
        The directory cannot be created or opened (argument ``cache_dir``).
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._cache = _open(self.directory)
            self._claims = _open(self.directory / "claims")
        except (OSError, sqlite3.Error) as exc:
            raise CAPInputError("cannot open the judging cache", argument="cache_dir", file=str(directory),
                                got=getattr(exc, "strerror", None) or str(exc),
                                fix="choose a writable cache directory (--cache or $CAP_CACHE_DIR)") from None

    # -- answers -----------------------------------------------------------------------------

    def get(self, key: str) -> dict | None:
        """The stored record for ``key``, or ``None`` (missing, unreadable, or not an answer)."""
        try:
            rec = self._cache.get(key)
        except UnreadableEntry:
            return None
        if not isinstance(rec, dict) or not isinstance(rec.get("completion"), str) or not rec["completion"].strip():
            return None
        return rec

    def get_many(self, keys: list[str]) -> dict[str, dict]:
        """The stored records of those ``keys`` that have one (the rules of :meth:`get`), read in one
        pass on one connection: a re-run whose calls are all cached reads them here, not one per thread."""
        wanted = list(dict.fromkeys(keys))
        try:
            rows = self._select(wanted)
        except (AttributeError, sqlite3.Error):  # another diskcache layout: one lookup per key
            rows = None
        if rows is None:
            found = {key: self.get(key) for key in wanted}
            return {k: v for k, v in found.items() if v is not None}
        out = {}
        for key, mode, filename, value in rows:
            try:  # decoded by JSONOnlyDisk.fetch, as in get(): compressed JSON or a miss, never unpickled
                rec = self._cache.disk.fetch(mode, filename, value, False)
            except (UnreadableEntry, OSError):
                continue
            if isinstance(rec, dict) and isinstance(rec.get("completion"), str) and rec["completion"].strip():
                out[key] = rec
        return out

    def _select(self, keys: list[str]) -> list[tuple]:
        """``(key, mode, filename, value)`` of the unexpired text-keyed rows of ``keys`` (diskcache's own
        lookup, ``Cache.get``, as one query per 500 keys)."""
        import time

        rows, now = [], time.time()
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            rows += self._cache._sql(
                "SELECT key, mode, filename, value FROM Cache WHERE raw = 1 AND (expire_time IS NULL OR "
                f"expire_time > ?) AND key IN ({','.join('?' * len(chunk))})", (now, *chunk)).fetchall()
        return rows

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def put(self, key: str, record: dict) -> None:
        """Store ``record`` durably under ``key``.

        Raises
        ------
        CAPInputError
            ``record`` lacks ``completion`` or ``request``, or its completion is not
            non-empty text (argument ``record``).
        """
        missing = [f for f in _FIELDS if f not in record]
        if missing:
            raise CAPInputError("cache record incomplete", argument="record", column=missing[0],
                                expected=", ".join(_FIELDS), got=sorted(record))
        text = record["completion"]
        if not isinstance(text, str) or not text.strip():
            raise CAPInputError("only answers are cached", argument="record", column="completion",
                                expected="non-empty completion text", got=text)
        self._cache.set(key, dict(record))

    def __len__(self) -> int:
        """Stored answers (claims not counted)."""
        return len(self._cache)

    # -- claims ------------------------------------------------------------------------------

    def claim(self, key: str, owner: str, ttl: float) -> bool:
        """Take the claim on ``key`` for ``owner`` for ``ttl`` seconds; False when someone holds it."""
        if self._claims.add(key, owner, expire=ttl):
            return True
        with self._claims.transact():  # a claim row that cannot be read (tampered) blocks nobody
            try:
                self._claims.get(key)
            except UnreadableEntry:
                self._claims.delete(key)
            return bool(self._claims.add(key, owner, expire=ttl))

    def renew(self, key: str, owner: str, ttl: float) -> bool:
        """Extend ``owner``'s claim on ``key`` to ``ttl`` seconds from now; False when it is no longer theirs."""
        with self._claims.transact():
            if self._claim_owner(key) != owner:
                return False
            self._claims.set(key, owner, expire=ttl)
            return True

    def release(self, key: str, owner: str) -> None:
        """Drop ``owner``'s claim on ``key`` (nothing happens when it is not theirs)."""
        with self._claims.transact():
            if self._claim_owner(key) == owner:
                self._claims.delete(key)

    def claimed(self, key: str) -> bool:
        """True while an unexpired claim on ``key`` exists."""
        return self._claim_owner(key) is not None

    def _claim_owner(self, key: str) -> str | None:
        try:
            owner = self._claims.get(key)
        except UnreadableEntry:
            return None
        return owner if isinstance(owner, str) else None

    def close(self) -> None:
        """Close the underlying SQLite connections."""
        self._cache.close()
        self._claims.close()
