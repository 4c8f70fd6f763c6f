"""Profile statistics on a Dask cluster, for judgment logs larger than one machine.

``dask.dataframe`` reads the judgments Parquet files of a dataset directory (one task per
file / row group, pandas underneath). On the workers every partition is validated by
:func:`cap_core.schema.validate_judgments` and coded to compact integers
(:func:`cap_core.profile.units.code_judgments`, the one verdict rule); the codes are
shuffled by groups of base items (``bucket``) and each group becomes its rows of the
per-base sums by :func:`cap_core.profile.units.partition_cells`, the code of the in-memory
path. Only those per-base sums (``n_base x cells``) travel back; the bootstrap then runs
locally (:func:`cap_core.profile.conditions.profile_from_stats`), so the profile equals
the single-machine one exactly at the same seed.

The items and declarations tables are read on the client (they are small: one row per
item) and sent to the workers once.

``dask`` and ``distributed`` are imported only here, when the engine is asked for.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

__all__ = ["dask_stats", "connect", "check_workers"]


def connect(scheduler: str | None = None, n_workers: int = 2):
    """A ``distributed.Client``: to ``scheduler`` (``tcp://host:port``), else a local cluster of ``n_workers``.

    Raises
    ------
    CAPInputError
        dask / distributed are not installed, or the scheduler cannot be reached.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise CAPInputError("the Dask engine needs dask and distributed", argument="engine",
                            expected="dask[dataframe] and distributed installed",
                            fix="pip install -r requirements.txt, or use --engine memory") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise CAPInputError("cannot reach the Dask scheduler", argument="scheduler", got=scheduler,
                                expected="the address of a running scheduler, e.g. tcp://10.0.0.5:8786",
                                fix=f"start `dask scheduler` there or leave --scheduler out ({type(exc).__name__})"
                                ) from None
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False, dashboard_address=None)
    return Client(cluster)


#: Evaluated on every worker (``eval`` travels by name, so a worker without CAP Studio can still answer):
#: None when ``cap_core`` cannot be imported there, else the installed ``cap-studio`` version ('' when the
#: code is on the worker's path without being installed, e.g. a checkout).
_PROBE = ("(lambda u, m: None if u.find_spec('cap_core') is None else next((d.version for d in m.distributions() "
          "if (d.metadata['Name'] or '').lower() == 'cap-studio'), ''))"
          "(__import__('importlib.util').util, __import__('importlib.metadata').metadata)")


def check_workers(client, wait_s: float = 30.0) -> None:
    """Refuse, in one line, a cluster whose workers cannot run the engine's tasks.

    The tasks are functions of :mod:`cap_core`, sent by reference: a worker must import the
    same CAP Studio as this process (``pip install cap-studio`` in the workers' environment,
    then start them). Without the check a worker that lacks it fails deep inside Dask with a
    deserialization traceback.

    Raises
    ------
    CAPInputError
        No worker joined the scheduler within ``wait_s`` seconds; a worker cannot import
        ``cap_core`` (the scheduler too: it unpacks the task graph); a worker has another version
        of CAP Studio installed than this process.
    """
    from importlib import metadata

    address = getattr(getattr(client, "scheduler", None), "address", None) or "the scheduler"
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except (TimeoutError, OSError):
        raise CAPInputError("no Dask worker joined the scheduler", argument="scheduler", got=address,
                            expected=f"at least one worker within {wait_s:g} s",
                            fix=f"start workers with `dask worker {address}` in an environment where CAP "
                                "Studio is installed") from None
    try:
        mine = metadata.version("cap-studio")
    except metadata.PackageNotFoundError:  # running from a checkout: the workers' version cannot be compared
        mine = ""
    found = {f"the scheduler {address}": client.run_on_scheduler(eval, _PROBE), **client.run(eval, _PROBE)}
    for worker, theirs in found.items():  # the scheduler unpacks the task graph too: it needs the package
        if theirs is None:
            raise CAPInputError("a Dask worker cannot import cap_core", argument="scheduler", got=worker,
                                expected="CAP Studio installed in the scheduler's and every worker's environment",
                                fix=f"run `pip install cap-studio{'==' + mine if mine else ''}` (or this checkout) "
                                    "where the scheduler and the workers run, then restart them")
        if mine and theirs and theirs != mine:
            raise CAPInputError("a Dask worker runs another version of CAP Studio", argument="scheduler",
                                got=f"{worker}: {theirs}", expected=f"{mine}, as here",
                                fix=f"install cap-studio=={mine} where the workers run, then restart them")


def _code_partition(pdf, items: pl.DataFrame, key: pl.DataFrame, judges: list[str], file: str):
    """One pandas partition of judgments -> its codes (pandas), validated first."""
    from cap_core.profile.units import code_judgments
    from cap_core.schema import validate_judgments

    part = validate_judgments(pl.from_pandas(pdf), items, file=file)
    return code_judgments(part, key, judges).collect().to_pandas()


def _distinct(pdf, cols):
    """Distinct rows of ``cols`` in one partition (combined on the client: no shuffle)."""
    return pdf[cols].drop_duplicates()


def _remap(pdf, lookup):
    """Codes of all judges -> codes of the profiled judges (rows of other judges dropped)."""
    g = lookup[pdf["g"].to_numpy()]
    out = pdf[g >= 0].copy()
    out["g"] = g[g >= 0]
    return out


def _bucket_cells(pdf, contexts: dict, names: list[str], items_bucket: dict, n_judges: int):
    """The per-base sums of one shuffled partition, per (benchmark, bucket) group inside it.

    Returns ``(n_repeated_keys, [(benchmark, bucket, PartCells), ...])``: all verdicts of
    an item are in one partition after the shuffle, so repeated (judge, item, order) keys
    are found here.
    """
    from cap_core.profile.units import partition_cells

    coded = pl.from_pandas(pdf)
    ukey = (pl.col("idx") + pl.col("b").cast(pl.Int64) * (1 << 40)) * (2 * n_judges) + pl.col("g") * 2 + pl.col("o")
    n_dup = int(coded.select(ukey.is_duplicated().sum()).item()) if coded.height else 0
    out = []
    for (b, k), grp in coded.group_by(["b", "bucket"], maintain_order=True):
        bench = names[int(b)]
        if bench in contexts:
            ctx = contexts[bench]
            out.append((bench, int(k), partition_cells(ctx, items_bucket[(bench, int(k))], grp)))
    return n_dup, out


def dask_stats(root: str | Path, *, benchmarks: list[str] | None = None, judges: list[str] | None = None,
               by_subset: bool = False, client=None, scheduler: str | None = None, n_buckets: int | None = None,
               failures: str = "count"):
    """Sufficient statistics of the profile of a dataset directory, computed on a Dask cluster.

    Parameters
    ----------
    root : path
        Dataset directory (``items.parquet``, ``declarations.parquet``,
        ``judgments.parquet`` or ``judgments/*.parquet``); every worker must see it
        (a shared file system or object store path).
    client : distributed.Client, optional
        Use this client; else :func:`connect` (``scheduler`` or a local cluster),
        closed afterwards.
    n_buckets : int, optional
        Groups of base items (default: two per worker).

    Returns
    -------
    tuple of BenchStats
        As :func:`cap_core.profile.conditions.profile_stats`.

    Raises
    ------
    CAPInputError
        As :func:`cap_core.profile.engine_stream.stream_stats`, and :func:`connect`'s.
    """
    import dask
    import dask.dataframe as dd

    from cap_core.profile.conditions import _names_iv, stats_from_parts
    from cap_core.profile.engine_stream import _proxy, judgment_files, read_small_tables
    from cap_core.profile.units import item_key
    from cap_core.verdicts import check_failures

    failures = check_failures(failures)
    root = Path(root)
    files = judgment_files(root)
    items, decl = read_small_tables(root)
    own = client is None
    client = connect(scheduler) if own else client
    try:
        check_workers(client)
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        n_buckets = int(n_buckets or 2 * n_workers)
        ddf = dd.read_parquet([str(f) for f in files])
        judge_parts = dask.compute(*[dask.delayed(_distinct)(p, ["judge"]) for p in ddf.to_delayed()])
        all_judges = sorted({str(j) for p in judge_parts for j in p["judge"].dropna()})
        benches = _names_iv(benchmarks, sorted(items.get_column("benchmark").unique().to_list()), "benchmarks")
        judge_list = _names_iv(judges, all_judges, "judges")
        key, names = item_key(items, n_buckets)
        items_f, key_f = client.scatter(items, broadcast=True), client.scatter(key, broadcast=True)
        meta = pl.DataFrame(schema={"b": pl.Int32, "bucket": pl.Int32, "g": pl.Int64, "idx": pl.Int64,
                                    "o": pl.Int8, "code": pl.Int8, "ok": pl.Int8, "bad": pl.Int8,
                                    "rs": pl.Int8}).to_pandas()
        # every judge is coded (the coverage facts count evaluated rationales of all judges), then narrowed
        coded_all = ddf.map_partitions(_code_partition, items_f, key_f, all_judges, str(root / "judgments"),
                                       meta=meta).persist()
        parts = coded_all.to_delayed()
        bgo, evaluated = (dask.compute(*[dask.delayed(_distinct)(p, cols) for p in parts])
                          for cols in (["b", "g", "o"], ["b", "idx", "rs"]))
        bgo = pl.from_pandas(pd.concat(bgo)).unique()
        ev = pl.from_pandas(pd.concat(evaluated)).filter(pl.col("rs") >= 0).select("b", "idx").unique()
        lookup = np.full(len(all_judges), -1, dtype=np.int64)
        lookup[[all_judges.index(j) for j in judge_list]] = np.arange(len(judge_list))
        coded = coded_all.map_partitions(_remap, lookup, meta=meta)
        # coverage facts: orders per benchmark and the items with an evaluated rationale (any judge)
        orders = bgo.select("b", "o").unique().select(
            pl.col("b").replace_strict(list(range(len(names))), names, return_dtype=pl.String).alias("benchmark"),
            pl.when(pl.col("o") == 1).then(pl.lit("BA")).otherwise(pl.lit("AB")).alias("order"),
            pl.lit(None, dtype=pl.Int8).alias("rationale_supported"))
        ev_items = ev.join(key.select("b", "idx", "benchmark", "item_id"), on=["b", "idx"]).select(
            "benchmark", "item_id", pl.lit("AB").alias("order"), pl.lit(1, dtype=pl.Int8).alias("rationale_supported"))
        proxy = _proxy([orders, ev_items])
        facts = bgo.with_columns(pl.col("g").replace_strict(list(range(len(lookup))), lookup.tolist(),
                                                            return_dtype=pl.Int64)).filter(pl.col("g") >= 0).select(
            pl.col("b").cast(pl.Int32), pl.col("g").cast(pl.Int64), pl.col("o").cast(pl.Int8)).unique()

        def run_parts(contexts):
            buckets = key.select("benchmark", "idx", "bucket")
            items_bucket = {}
            for bench, ctx in contexts.items():
                with_b = ctx.items.with_columns(
                    buckets.filter(pl.col("benchmark") == bench).sort("idx").get_column("bucket"))
                for k in range(n_buckets):
                    items_bucket[(bench, k)] = with_b.filter(pl.col("bucket") == k).drop("bucket")
            shuffled = coded.shuffle("bucket", npartitions=n_buckets)
            ctx_f = client.scatter(contexts, broadcast=True)
            ib_f = client.scatter(items_bucket, broadcast=True)
            tasks = [dask.delayed(_bucket_cells)(part, ctx_f, names, ib_f, len(judge_list))
                     for part in shuffled.to_delayed()]
            got = dask.compute(*tasks)
            if sum(n for n, _ in got):
                raise CAPInputError("duplicate key (judge, benchmark, item_id, order) across judgment files",
                                    file=str(root), column="order", expected="each key once",
                                    fix="remove the repeated judgments (a log imported twice?)")
            out = {bench: [] for bench in contexts}
            for _, lst in got:
                for bench, _, cells in lst:
                    out[bench].append(cells)
            return out

        return stats_from_parts(Dataset(items, proxy, decl), benches, judge_list, bool(by_subset), facts, names,
                                run_parts, failures)
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
