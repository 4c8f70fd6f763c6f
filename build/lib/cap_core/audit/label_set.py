"""The label-set data model of the surface audit: pairs or single responses with labels.

A *label set* is a collection of responses with gold preference labels that judges are
scored against. :class:`LabelSet` carries its texts in one of two layouts, both polars
frames: :data:`PAIR_SCHEMA` (two responses and the better one) and :data:`SINGLE_SCHEMA`
(one response labelled good or bad). The public sets (:mod:`cap_core.importers.label_sets`)
and a user's own file (:mod:`cap_core.audit.user_sets`) both produce it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import polars as pl

__all__ = ["LabelSet", "PAIR_SCHEMA", "SINGLE_SCHEMA", "pairs_frame"]

PAIR_SCHEMA: dict[str, pl.DataType] = {
    "pair_id": pl.String, "group": pl.String, "subset": pl.String,
    "response_a": pl.String, "response_b": pl.String, "label": pl.String,
}
SINGLE_SCHEMA: dict[str, pl.DataType] = {
    "unit_id": pl.String, "group": pl.String, "subset": pl.String, "response": pl.String, "label": pl.Int8,
}


@dataclass(frozen=True)
class LabelSet:
    """One label set: pairs (and/or single labelled responses) with their texts.

    Attributes
    ----------
    name : str
        Display name, e.g. ``"RewardBench"``.
    pairs : polars.DataFrame
        :data:`PAIR_SCHEMA` rows (may be empty).
    singles : polars.DataFrame
        :data:`SINGLE_SCHEMA` rows (may be empty).
    source : str
        Where the texts came from (a path under the local copy of the public data, or a file name).
    notices : list of str
        Remarks for the user (tie counts, labels resolved by majority, ...).
    """

    name: str
    pairs: pl.DataFrame
    singles: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=SINGLE_SCHEMA))
    source: str = ""
    notices: list[str] = field(default_factory=list)

    @property
    def n_ties(self) -> int:
        """Number of pairs labelled ``"tie"``."""
        return int((self.pairs["label"] == "tie").sum())

    def fingerprint(self) -> str:
        """Content hash (16 hex chars) of the name and both frames; the cache key in the app."""
        h = hashlib.blake2b(digest_size=8)
        h.update(self.name.encode())
        for frame in (self.pairs, self.singles):
            h.update(str(frame.schema).encode())
            h.update(frame.hash_rows(seed=0).to_numpy().tobytes())
        return h.hexdigest()


def pairs_frame(rows: list[tuple]) -> pl.DataFrame:
    """Build a :data:`PAIR_SCHEMA` frame from tuples in schema order."""
    return pl.DataFrame(rows, schema=PAIR_SCHEMA, orient="row")
