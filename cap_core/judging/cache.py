"""Persistent cache of completions (diskcache, SQLite underneath), with claims.

Entries: one per :func:`cap_core.judging.request.cache_key`: the canonical request (no
API key, no ``api_base``), the raw completion text and the call's accounting (tokens,
cost, latency, retries). Each ``put`` is one committed SQLite transaction, so a process
killed with ``kill -9`` right after ``put`` returns keeps the entry. Only answers are
stored: a record whose completion is empty or not text is refused, and one read back
that way is a miss (failures and empty replies are asked again on the next run).
litellm's own cache is not used.

Storage is JSON only (:class:`JSONOnlyDisk`): values are written as zlib-compressed
JSON (:func:`encode_value`) and a stored row is decoded as JSON or not at all
(:func:`decode_value`, the one read rule). Nothing is ever unpickled, so an entry
planted in the cache folder (a pickle with a code-running payload, or any other bytes)
is read as a miss, never run.

Reading costs no write: :meth:`JudgeCache.get_many` reads an existing cache with one
plain SQLite connection (no diskcache, no settings written, no fsync), and the diskcache
stores are opened on the first write, claim or single read (:meth:`JudgeCache.open`
opens them up front). A re-run whose every call is cached therefore never imports
diskcache.

Claims (``<directory>/claims``, a second diskcache of the same kind): before sending a
call, a process takes the key's claim with :meth:`JudgeCache.claim` (atomic across
threads and processes: SQLite ``add``). The claim is a lease of ``ttl`` seconds that its
holder renews (:meth:`JudgeCache.renew`) while the call is in flight and drops
(:meth:`JudgeCache.release`) when it ends; a holder that crashed stops renewing, so its
claim expires after at most ``ttl`` seconds and another process takes over.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import zlib
from pathlib import Path, PurePath
from urllib.parse import quote

from cap_core.errors import CAPInputError

__all__ = ["JudgeCache", "JSONOnlyDisk", "UnreadableEntry", "encode_value", "decode_value"]  # noqa: F822 - JSONOnlyDisk comes from the module __getattr__ (diskcache imported lazily)

_FIELDS = ("completion", "request")
#: diskcache's file of a cache folder and its value modes (``diskcache.core.DBNAME``,
#: ``MODE_RAW``, ``MODE_BINARY``): bytes in the row, or bytes in a file beside it.
_DBNAME = "cache.db"
_MODE_RAW, _MODE_BINARY = 1, 2


class UnreadableEntry(Exception):
    """A stored row that is not zlib-compressed JSON (e.g. a planted pickle); read as a miss."""


def encode_value(value) -> bytes:
    """``value`` as stored: zlib-compressed (level 1) UTF-8 JSON, NaN refused (``ValueError``)."""
    return zlib.compress(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"), 1)


def decode_value(data) -> object:
    """The stored bytes ``data`` as JSON (the inverse of :func:`encode_value`).

    Raises
    ------
    UnreadableEntry
        ``data`` is not zlib-compressed UTF-8 JSON (a pickle, text, anything else).
    """
    try:
        return json.loads(zlib.decompress(bytes(data)).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError, ValueError, TypeError, RecursionError) as exc:
        raise UnreadableEntry(f"a cache row that is not compressed JSON ({type(exc).__name__})") from None


def _fetch(directory: str, mode, filename, value) -> object:
    """The value of one stored row (``mode``, ``filename``, ``value`` columns of diskcache's table):
    bytes in the row or in a file inside ``directory``, decoded by :func:`decode_value`; any other
    mode (pickle, text) raises :class:`UnreadableEntry`, as does a file name leaving the folder."""
    if mode == _MODE_RAW:
        return decode_value(value)
    if mode == _MODE_BINARY and isinstance(filename, str):
        if os.path.isabs(filename) or ".." in PurePath(filename).parts:
            raise UnreadableEntry("a cache row naming a file outside the cache folder")
        with open(os.path.join(directory, filename), "rb") as fh:
            return decode_value(fh.read())
    raise UnreadableEntry(f"a cache row in diskcache mode {mode} (only compressed JSON is read)")


def _answer(rec) -> bool:
    """A stored record that counts as an answer: a dict with non-empty completion text."""
    return isinstance(rec, dict) and isinstance(rec.get("completion"), str) and bool(rec["completion"].strip())


_DISK: list = []


def _disk_class():
    """:class:`JSONOnlyDisk`, defined on first use (diskcache is imported only when a store opens)."""
    if _DISK:
        return _DISK[0]
    import diskcache

    class JSONOnlyDisk(diskcache.Disk):
        """A diskcache ``Disk`` for string keys and JSON values that never unpickles.

        Keys must be ``str`` (stored as SQLite text). Values are stored as zlib-compressed
        JSON bytes (:func:`encode_value`; in SQLite, or in a file when large). Reading accepts
        exactly that (:func:`decode_value`): a row in diskcache's pickle or text mode, or bytes
        that are not compressed JSON, raise :class:`UnreadableEntry`.
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
            return super().store(encode_value(value), False, key=key)

        def fetch(self, mode, filename, value, read):
            if read:
                raise UnreadableEntry("the judging cache hands out values, not files")
            return _fetch(self._directory, mode, filename, value)

    JSONOnlyDisk.__module__ = __name__
    _DISK.append(JSONOnlyDisk)
    return JSONOnlyDisk


def __getattr__(name: str):
    if name == "JSONOnlyDisk":
        return _disk_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _open(directory: Path):
    import diskcache

    return diskcache.Cache(str(directory), size_limit=2**34, disk=_disk_class())


class JudgeCache:
    """A directory-backed cache of completions, plus per-key claims.

    Parameters
    ----------
    directory : str or Path
        Created if missing (a new cache is created at once); safe to share between
        threads and processes.

    Raises
    ------
    CAPInputError
        The directory cannot be created or opened (argument ``cache_dir``); for an
        existing cache, raised by the first write or claim (:meth:`open` checks at once).
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()
        self._store = None  # diskcache of the answers, opened on first use
        self._claim_store = None  # diskcache of the claims, opened on first use
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._unopenable(exc) from None
        if not (self.directory / _DBNAME).is_file():
            self.open()  # a new cache is created now, so that an unwritable folder is refused at once

    def _unopenable(self, exc: Exception) -> CAPInputError:
        return CAPInputError("cannot open the judging cache", argument="cache_dir", file=str(self.directory),
                             got=getattr(exc, "strerror", None) or str(exc),
                             fix="choose a writable cache directory (--cache or $CAP_CACHE_DIR)")

    def open(self) -> None:
        """Open the answer and claim stores now (before sending calls: an unwritable folder is refused
        before the first request).

        Raises
        ------
        CAPInputError
            The directory cannot be opened for writing (argument ``cache_dir``).
        """
        self._claims  # noqa: B018 - opens both stores
        self._cache  # noqa: B018

    def _opened(self, attr: str, folder: Path):
        """The diskcache kept in ``attr``, opened in ``folder`` on first use (thread-safe)."""
        if getattr(self, attr) is None:
            with self._lock:
                if getattr(self, attr) is None:
                    try:
                        setattr(self, attr, _open(folder))
                    except (OSError, sqlite3.Error) as exc:
                        raise self._unopenable(exc) from None
        return getattr(self, attr)

    @property
    def _cache(self):
        """The diskcache of the answers (opened on first use)."""
        return self._opened("_store", self.directory)

    @property
    def _claims(self):
        """The diskcache of the claims (opened on first use)."""
        return self._opened("_claim_store", self.directory / "claims")

    # -- answers -----------------------------------------------------------------------------

    def get(self, key: str) -> dict | None:
        """The stored record for ``key``, or ``None`` (missing, unreadable, or not an answer)."""
        try:
            rec = self._cache.get(key)
        except UnreadableEntry:
            return None
        return rec if _answer(rec) else None

    def get_many(self, keys: list[str]) -> dict[str, dict]:
        """The stored records of those ``keys`` that have one (the rules of :meth:`get`), read in one
        pass on one connection: a re-run whose calls are all cached reads them here, not one per thread,
        and without opening diskcache (nothing is written)."""
        wanted = list(dict.fromkeys(keys))
        try:
            rows = self._select(wanted)
        except (AttributeError, sqlite3.Error):  # another diskcache layout: one lookup per key
            rows = None
        if rows is None:
            found = {key: self.get(key) for key in wanted}
            return {k: v for k, v in found.items() if v is not None}
        out, directory = {}, str(self.directory)
        for key, mode, filename, value in rows:
            try:  # compressed JSON or a miss, never unpickled (as in get())
                rec = _fetch(directory, mode, filename, value)
            except (UnreadableEntry, OSError):
                continue
            if _answer(rec):
                out[key] = rec
        return out

    def _select(self, keys: list[str]) -> list[tuple]:
        """``(key, mode, filename, value)`` of the unexpired text-keyed rows of ``keys`` (diskcache's own
        lookup, ``Cache.get``, as one query per 500 keys), on the open store or a connection of its own."""
        import time

        if self._store is not None:
            run, con = self._store._sql, None
        elif not (self.directory / _DBNAME).is_file():
            return []
        else:
            # read-write without creating (a read writes nothing, so no settings rows and no fsync);
            # read-only where the folder allows no more
            uri = "file:" + quote(str((self.directory / _DBNAME).absolute()))
            try:
                con = sqlite3.connect(uri + "?mode=rw", uri=True, timeout=60)
            except sqlite3.OperationalError:
                con = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=60)
            run = con.execute
        try:
            rows, now = [], time.time()
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                rows += run("SELECT key, mode, filename, value FROM Cache WHERE raw = 1 AND (expire_time IS NULL "
                            f"OR expire_time > ?) AND key IN ({','.join('?' * len(chunk))})", (now, *chunk)).fetchall()
            return rows
        finally:
            if con is not None:
                con.close()

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def put(self, key: str, record: dict) -> None:
        """Store ``record`` durably under ``key``.

        Raises
        ------
        CAPInputError
            ``record`` lacks ``completion`` or ``request``, or its completion is not
            non-empty text (argument ``record``); the folder cannot be written (``cache_dir``).
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
        """Close the SQLite connections that are open."""
        with self._lock:
            for store in (self._store, self._claim_store):
                if store is not None:
                    store.close()
            self._store = self._claim_store = None
