"""The shipped audit figures of the public label sets (``data/audit``): written by the build, read by the app.

A user's machine has no public label-set texts, so the default-data build
(:func:`cap_core.importers.default_data.build_default`) runs the surface audit
(:func:`cap_core.audit.surface.audit_label_set`) on the public sets and keeps only its
figures here; the Label audit page and the ``audit`` verb show them when the user has
no local copy of the public data. Files (in :func:`cap_core.config.audit_data_dir`):

``public_sets.parquet``
    :data:`cap_core.audit.surface.AUDIT_SCHEMA` rows: accuracy (percent), kappa, null
    mean and 95th percentile, p-value and verdict per label set x predictor x mode, for
    every permutation count the build ran (``n_permutations`` tells them apart).
``predictions.parquet``
    :data:`cap_core.audit.surface.PRED_SCHEMA` rows: out-of-fold predictions on the
    observed labels per unit (ids, 0/1 labels, lengths in characters, fold) of the
    predictors named in the manifest (the build keeps ``length_only``, which the page's
    drill-down shows). They do not depend on the permutation count: each set appears once.
``manifest.json``
    ``seed``, ``n_splits``, ``predictions_of`` (predictors whose predictions are kept)
    and, per label set, ``source`` (the public file audited, relative to the public data
    folder) and ``permutations`` (the counts shipped).

No text of any label set is stored: figures, ids, labels and lengths only.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core import config
from cap_core.audit.surface import AUDIT_SCHEMA, PRED_SCHEMA, AuditResult
from cap_core.errors import CAPInputError

__all__ = ["TABLE_FILE", "PREDICTIONS_FILE", "MANIFEST_FILE", "write_shipped_audit", "read_shipped_audit",
           "shipped_audit", "shipped_runs"]

TABLE_FILE = "public_sets.parquet"
PREDICTIONS_FILE = "predictions.parquet"
MANIFEST_FILE = "manifest.json"


def write_shipped_audit(runs: list[tuple[AuditResult, int]], sources: dict[str, str], folder: Path | str, *,
                        seed: int, n_splits: int, predictions_of: tuple[str, ...] = ("length_only",)) -> Path:
    """Write the figures of one or more audits into ``folder`` (replacing what was there).

    Parameters
    ----------
    runs : list of (AuditResult, int)
        Each audit with its permutation count. Predictions are kept from the first run
        that holds a set (they do not depend on the permutation count).
    sources : dict
        Label set -> the public file it was read from (relative path).
    folder : path
        Output folder (created).
    seed, n_splits : int
        The audit settings, recorded in the manifest.
    predictions_of : tuple of str
        Predictors whose out-of-fold predictions are kept.

    Returns
    -------
    pathlib.Path
        The folder written.

    Raises
    ------
    CAPInputError
        A run whose rows do not carry its permutation count.
    """
    from cap_core.outputs import write_file

    out = Path(folder)
    tables, preds, seen, perms = [], [], set(), {}
    for res, n in runs:
        if not (res.table["n_permutations"] == n).all():
            raise CAPInputError("audit rows do not match their permutation count", argument="runs", expected=n,
                                got=sorted(set(res.table["n_permutations"].to_list())))
        tables.append(res.table.select(list(AUDIT_SCHEMA)))
        for name in res.table["label_set"].unique(maintain_order=True):
            perms.setdefault(name, []).append(n)
            if name not in seen:
                seen.add(name)
                preds.append(res.predictions.filter((pl.col("label_set") == name)
                                                    & pl.col("predictor").is_in(list(predictions_of)))
                             .select(list(PRED_SCHEMA)))
    write_file(out / TABLE_FILE, pl.concat(tables).write_parquet)
    write_file(out / PREDICTIONS_FILE, pl.concat(preds).write_parquet)
    manifest = {"seed": seed, "n_splits": n_splits, "predictions_of": list(predictions_of),
                "sets": {name: {"source": sources.get(name, ""), "permutations": perms[name]} for name in perms}}
    write_file(out / MANIFEST_FILE, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return out


def read_shipped_audit(folder: Path | str | None = None) -> tuple[AuditResult, dict] | None:
    """All shipped figures and the manifest, or None when ``folder`` holds none.

    Parameters
    ----------
    folder : path, optional
        Default :func:`cap_core.config.audit_data_dir`.

    Raises
    ------
    CAPInputError
        A shipped file exists but lacks a column of the audit schema.
    """
    base = Path(folder) if folder is not None else config.audit_data_dir()
    files = [base / TABLE_FILE, base / PREDICTIONS_FILE, base / MANIFEST_FILE]
    if not all(f.is_file() for f in files):
        return None
    table, preds = pl.read_parquet(files[0]), pl.read_parquet(files[1])
    for frame, schema, f in ((table, AUDIT_SCHEMA, files[0]), (preds, PRED_SCHEMA, files[1])):
        missing = [c for c in schema if c not in frame.columns]
        if missing:
            raise CAPInputError("shipped audit figures lack a column", file=str(f), column=missing[0],
                                expected=", ".join(schema), fix="rebuild data/ with `make data`")
    from cap_core.io import parse_json

    manifest = parse_json(files[2].read_bytes(), file=str(files[2]), what="the audit manifest")
    return AuditResult(table.select(list(AUDIT_SCHEMA)), preds.select(list(PRED_SCHEMA))), manifest


def shipped_runs(folder: Path | str | None = None) -> dict[str, list[int]]:
    """Label set -> the permutation counts whose figures are shipped (empty when none are)."""
    got = read_shipped_audit(folder)
    return {} if got is None else {k: list(v["permutations"]) for k, v in got[1]["sets"].items()}


def shipped_audit(names: list[str], n_permutations: int, *, seed: int = 0,
                  folder: Path | str | None = None) -> tuple[AuditResult | None, list[str]]:
    """The shipped audit of ``names`` at ``n_permutations`` and ``seed``, and the names not shipped so.

    Returns
    -------
    (AuditResult or None, list of str)
        The rows (both modes, every predictor) and predictions of the shipped names, in
        the order asked, or None when none is shipped; then the names without shipped
        figures for these settings.
    """
    got = read_shipped_audit(folder)
    if got is None:
        return None, list(names)
    res, manifest = got
    if manifest.get("seed") != seed:
        return None, list(names)
    rows = res.table.filter(pl.col("n_permutations") == n_permutations)
    have = [n for n in names if n in set(rows["label_set"].to_list())]
    missing = [n for n in names if n not in have]
    if not have:
        return None, missing
    table = pl.concat([rows.filter(pl.col("label_set") == n) for n in have])
    preds = pl.concat([res.predictions.filter(pl.col("label_set") == n) for n in have])
    return AuditResult(table, preds), missing
