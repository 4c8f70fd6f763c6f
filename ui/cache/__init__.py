"""Cached calls behind the pages, one module per page it serves (``loaders`` serves all).

Every cached function takes plain, hashable arguments that cover everything its result
depends on; a :class:`cap_core.Dataset` travels as ``_ds`` beside its content
``fingerprint``, which is the key. Uploads are keyed by a hash of their bytes.
"""
