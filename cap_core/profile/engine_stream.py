"""Profile statistics of a dataset on disk that need not fit in memory (polars, streamed).

A dataset directory as written by :func:`cap_core.dataset.save_dataset` (``items.parquet``,
``declarations.parquet``) whose judgments are ``judgments.parquet`` or a folder
``judgments/`` of Parquet files (any number, e.g. one per day of production logs). The
judgments are read in slices of ``slice_rows`` rows through a lazy scan: each slice is
validated by :func:`cap_core.schema.validate_judgments` (so an error names the slice's
file rows) and coded to a few bytes per verdict (:func:`cap_core.profile.units.code_judgments`);
the strings are never held all at once. The codes are then split into ``n_buckets``
groups of base items and each group becomes its rows of the per-base sums by the same
code as the in-memory path (:func:`cap_core.profile.units.partition_cells`), so the
profile is the same, bit for bit, at the same seed.

Memory: the items table, about 13 bytes per verdict of codes, the dense arrays of one
bucket and the statistics (``n_base x cells`` float32 when exact). Measured figures:
``bench/bench_scale.py``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.schema import (
    DECLARATION_SCHEMA,
    declared_variants,
    validate_declarations,
    validate_items,
    validate_judgments,
)

__all__ = ["judgment_files", "stream_coded", "stream_stats"]

#: Rows of judgments validated and coded at a time.
SLICE_ROWS = 5_000_000


def judgment_files(root: Path) -> list[Path]:
    """The judgments Parquet files of a dataset directory (``judgments.parquet`` or ``judgments/**/*.parquet``).

    Raises
    ------
    CAPInputError
        Neither exists.
    """
    root = Path(root)
    if (root / "judgments.parquet").is_file():
        return [root / "judgments.parquet"]
    files = sorted((root / "judgments").glob("**/*.parquet")) if (root / "judgments").is_dir() else []
    if not files:
        raise CAPInputError("no judgments in the dataset directory", file=str(root),
                            expected="judgments.parquet or a judgments/ folder of Parquet files",
                            fix="write the judgments with save_dataset or put the Parquet parts under judgments/")
    return files


def read_small_tables(root: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Validated items and declarations of a dataset directory (both fit in memory)."""
    root = Path(root)
    if not (root / "items.parquet").is_file():
        raise CAPInputError("items.parquet missing from the dataset directory", file=str(root / "items.parquet"),
                            expected="items.parquet", fix="re-run the importer that wrote this directory")
    decl_file = root / "declarations.parquet"
    decl = pl.read_parquet(decl_file) if decl_file.is_file() else pl.DataFrame(schema=DECLARATION_SCHEMA)
    decl = validate_declarations(decl, file=str(decl_file))
    items = validate_items(pl.read_parquet(root / "items.parquet"), file=str(root / "items.parquet"),
                           variants=declared_variants(decl))
    return items, decl


def stream_coded(files: list[Path], items: pl.DataFrame, key: pl.DataFrame, judges: list[str],
                 slice_rows: int = SLICE_ROWS) -> tuple[dict[int, pl.DataFrame], pl.DataFrame]:
    """Validate and code every judgment, ``slice_rows`` at a time per file, kept by bucket of base items.

    Returns ``(coded, proxy)``: ``{bucket: codes}`` (the columns of
    :func:`cap_core.profile.units.code_judgments` but ``bucket``, with ``b`` and ``g``
    narrowed to Int16 and ``idx`` to Int32: 13 bytes per verdict) and a small judgments frame with the
    facts :func:`cap_core.profile.coverage.plan_benchmark` reads (orders per benchmark
    and the items with an evaluated rationale). Each slice's codes go straight to their
    buckets, so no copy of all the codes is ever made.

    Raises
    ------
    CAPInputError
        A slice fails validation (file and row within it).
    """
    import numpy as np

    from cap_core.profile.units import code_judgments

    pieces: dict[int, list[pl.DataFrame]] = {}
    # the facts plan_benchmark reads, gathered as integers: (benchmark, order) and (benchmark, order,
    # rationale_supported) combinations seen, and the items with an evaluated rationale (any judge)
    b_of = key.get_column("b").to_numpy().astype(np.int64)
    n_b = int(b_of.max(initial=-1)) + 1
    combos = np.zeros(n_b * 2 * 3, dtype=np.int64)  # (b, o, rs in {null, 0, 1})
    evaluated = np.zeros(key.height, dtype=bool)
    # 13 bytes a verdict kept: benchmark and judge codes in 16 bits, the item's row in 32 (the bucket is the
    # dict key, not a column)
    small = pl.Int16 if max(n_b, len(judges)) < 2**15 else pl.Int32
    narrow = [pl.col("b").cast(small), pl.col("g").cast(small), pl.col("idx").cast(pl.Int32)]
    for f in files:
        scan = pl.scan_parquet(f)
        n = scan.select(pl.len()).collect().item()
        for start in range(0, n, slice_rows):
            part = scan.slice(start, slice_rows).collect()
            part, pos = validate_judgments(part, items, file=f"{f} (rows {start + 1}-{start + part.height})",
                                           positions=True)
            codes = code_judgments(part, key, judges, positions=pos).with_columns(narrow).collect()
            for (k,), piece in codes.partition_by("bucket", as_dict=True, include_key=False).items():
                pieces.setdefault(int(k), []).append(piece)
            del codes
            p = pos.to_numpy()
            o = (part.get_column("order") == "BA").to_numpy().astype(np.int64)
            rs = part.get_column("rationale_supported")
            has = rs.is_not_null().to_numpy()
            r = np.where(has, rs.fill_null(0).cast(pl.Int64).to_numpy() + 1, 0)  # 0 null, 1 for 0, 2 for 1
            combos += np.bincount((b_of[p] * 2 + o) * 3 + r, minlength=combos.size)
            evaluated[p[has]] = True
            del part, pos, p, o, rs, has, r
    coded = {k: pl.concat(v, how="vertical", rechunk=False) for k, v in sorted(pieces.items())}
    return coded, _proxy(_facts(key, combos, evaluated))


def _facts(key: pl.DataFrame, combos, evaluated) -> list[pl.DataFrame]:
    """The rows :func:`_proxy` stacks, from the integer facts of :func:`stream_coded`: every (benchmark,
    order) seen (rationale null), every (benchmark, order, rationale) with a rationale, and each item
    with an evaluated rationale (order AB, rationale 1)."""
    import numpy as np

    names = key.select("b", "benchmark").unique().sort("b")
    name = dict(zip(names.get_column("b").to_list(), names.get_column("benchmark").to_list()))
    seen = np.flatnonzero(combos)
    b, o, r = seen // 6, (seen // 3) % 2, seen % 3
    orders = ["AB", "BA"]
    pairs = sorted({(name[int(x)], orders[int(y)]) for x, y in zip(b, o)})
    with_rs = [(name[int(x)], orders[int(y)], int(z) - 1) for x, y, z in zip(b, o, r) if z]
    rs_t = pl.Int8
    out = [
        pl.DataFrame({"benchmark": [p[0] for p in with_rs], "order": [p[1] for p in with_rs],
                      "rationale_supported": [p[2] for p in with_rs]},
                     schema={"benchmark": pl.String, "order": pl.String, "rationale_supported": rs_t}),
        pl.DataFrame({"benchmark": [p[0] for p in pairs], "order": [p[1] for p in pairs]},
                     schema={"benchmark": pl.String, "order": pl.String}).with_columns(
            pl.lit(None, dtype=rs_t).alias("rationale_supported")),
        key.filter(pl.Series(evaluated)).select("benchmark", "item_id", pl.lit("AB").alias("order"),
                                                pl.lit(1, dtype=rs_t).alias("rationale_supported")),
    ]
    return out


def check_unique_codes(codes: pl.DataFrame, n_items: dict[int, int], n_judges: int, files: list[Path]) -> None:
    """Refuse a (judge, benchmark, item_id, order) repeated across slices or files (within one slice the
    schema check has already refused it); ``codes`` is one bucket's, ``n_items`` the item count per ``b``.

    Raises
    ------
    CAPInputError
        A key appears twice.
    """
    import numpy as np

    from cap_core.schema import _has_repeats

    for (b,), one in codes.partition_by("b", as_dict=True).items():
        # the bucket's items renumbered 0.. (a bucket holds a share of the items): the keys are then dense
        # enough to be counted in one pass rather than sorted
        idx = one.get_column("idx").to_numpy()
        seen = np.zeros(int(n_items[b]), dtype=bool)
        seen[idx] = True
        present = np.flatnonzero(seen)
        lookup = np.zeros(int(n_items[b]), dtype=np.int64)
        lookup[present] = np.arange(present.size)
        key = (lookup[idx] * n_judges + one.get_column("g").to_numpy().astype(np.int64)) * 2 \
            + one.get_column("o").to_numpy()
        if _has_repeats(key, int(present.size) * n_judges * 2):
            raise CAPInputError("duplicate key (judge, benchmark, item_id, order) across judgment files or slices",
                                file=", ".join(str(f) for f in files[:3]), column="order", expected="each key once",
                                fix="remove the repeated judgments (a day's log imported twice?)")


def _proxy(facts: list[pl.DataFrame]) -> pl.DataFrame:
    """Judgments-shaped frame holding the orders and the evaluated items (for plan_benchmark only)."""
    rows = []
    for f in facts:
        if "item_id" not in f.columns:
            f = f.with_columns(pl.lit(None, dtype=pl.String).alias("item_id"))
        rows.append(f.select("benchmark", "item_id", "order", pl.col("rationale_supported").cast(pl.Int8)))
    return pl.concat(rows, how="vertical").unique().with_columns(pl.lit("proxy").alias("judge"))


def stream_stats(root: str | Path, *, benchmarks: list[str] | None = None, judges: list[str] | None = None,
                 by_subset: bool = False, n_buckets: int = 8, slice_rows: int = SLICE_ROWS,
                 failures: str = "count"):
    """Sufficient statistics of the profile of a dataset directory, streamed (see module doc).

    Returns
    -------
    tuple of BenchStats
        As :func:`cap_core.profile.conditions.profile_stats`; pass them to
        :func:`cap_core.profile.conditions.profile_from_stats`.

    Raises
    ------
    CAPInputError
        Missing or invalid tables (file and row), unknown benchmark or judge names,
        ``failures`` not a rule of :data:`cap_core.verdicts.FAILURE_RULES`.
    """
    from cap_core.profile.conditions import _names_iv, distinct_bgo, stats_from_parts
    from cap_core.profile.units import item_key, partition_cells
    from cap_core.verdicts import check_failures

    failures = check_failures(failures)
    root = Path(root)
    files = judgment_files(root)
    items, decl = read_small_tables(root)
    all_judges = sorted(pl.scan_parquet(files).select(pl.col("judge").unique()).collect(engine="streaming")
                        .get_column("judge").drop_nulls().to_list())
    benches = _names_iv(benchmarks, sorted(items.get_column("benchmark").unique().to_list()), "benchmarks")
    judge_list = _names_iv(judges, all_judges, "judges")
    key, names = item_key(items, n_buckets)
    coded, proxy = stream_coded(files, items, key, judge_list, slice_rows)
    facts = pl.concat([distinct_bgo(c, len(judge_list)) for c in coded.values()]).unique() if coded else \
        pl.DataFrame(schema={"b": pl.Int32, "g": pl.Int64, "o": pl.Int8})
    small = Dataset(items, proxy, decl)
    bucket_of = key.select("b", "idx", "bucket")
    n_items = dict(zip(*key.group_by("b").len().select("b", "len").to_dict(as_series=False).values()))

    def run_parts(contexts):
        # bucket by bucket, every benchmark's part of it; a bucket's codes are freed once used
        out = {bench: [] for bench in contexts}
        items_b = {}
        for bench, ctx in contexts.items():
            buckets = bucket_of.filter(pl.col("b") == names.index(bench))
            items_b[bench] = ctx.items.with_columns(buckets.sort("idx").get_column("bucket"))
        empty = pl.DataFrame(schema=dict.fromkeys(("b", "g"), pl.Int16) | {"idx": pl.Int32}
                             | dict.fromkeys(("o", "code", "ok", "bad", "rs"), pl.Int8))
        for k in range(max(1, n_buckets)):
            part = coded.pop(k, empty)
            check_unique_codes(part, n_items, len(judge_list), files)
            for bench, ctx in contexts.items():
                b = names.index(bench)
                out[bench].append(partition_cells(ctx, items_b[bench].filter(pl.col("bucket") == k).drop("bucket"),
                                                  part.filter(pl.col("b") == b)))
            del part
        return out

    return stats_from_parts(small, benches, judge_list, bool(by_subset), facts, names, run_parts, failures)
