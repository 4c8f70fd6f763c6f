"""Cached calls behind the pages, one module per page it serves (``loaders`` serves all,
``keys`` builds cache keys).

Every cached function takes plain, hashable arguments that cover everything its result
depends on; a :class:`cap_core.Dataset` travels as ``_ds`` beside its content
``fingerprint``, which is the key. Uploads are keyed by a hash of their bytes, files read
from disk by the stamps of their files (:mod:`ui.cache.keys`).
"""
