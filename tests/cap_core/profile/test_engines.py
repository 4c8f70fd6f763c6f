"""The streamed and the Dask engines give the in-memory profile exactly (same seed, same numbers).

The in-memory profile of data/default is pinned by the golden regression test; here the other
engines read the same data from Parquet, split its base items into groups, and must give the
same rows, values, intervals and replicates bit for bit.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cap_core import load_dataset, save_dataset
from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile, profile_from_stats
from cap_core.profile.engine_stream import stream_stats


@pytest.fixture(scope="module")
def on_disk(default_data_dir, tmp_path_factory):
    """data/default re-written with its judgments split into three Parquet parts under judgments/."""
    ds = load_dataset(default_data_dir)
    root = tmp_path_factory.mktemp("parts")
    save_dataset(ds, root)
    (root / "judgments.parquet").unlink()
    (root / "judgments").mkdir()
    j = ds.judgments.with_row_index("_r")
    for k in range(3):
        j.filter(pl.col("_r") % 3 == k).drop("_r").write_parquet(root / "judgments" / f"part-{k}.parquet")
    return ds, root


def _same(a, b):
    assert a.profile.equals(b.profile)
    np.testing.assert_array_equal(a.replicates, b.replicates)


def test_streamed_statistics_give_the_in_memory_profile(on_disk):
    ds, root = on_disk
    want = compute_profile(ds, n_resamples=200, seed=5, by_subset=True)
    # small slices and several base-item groups: the pieces must not change a number
    got = profile_from_stats(stream_stats(root, by_subset=True, n_buckets=4, slice_rows=3000), 200, 5, 0.95)
    _same(want, got)


def test_dask_engine_on_a_local_cluster_gives_the_in_memory_profile(on_disk):
    distributed = pytest.importorskip("distributed")
    from cap_core.profile.engine_dask import dask_stats

    ds, root = on_disk
    want = compute_profile(ds, n_resamples=200, seed=5, judges=ds.judges[:3])
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        stats = dask_stats(root, client=client, judges=ds.judges[:3], n_buckets=5)
    _same(want, profile_from_stats(stats, 200, 5, 0.95))


def test_repeated_judgment_across_files_is_refused(on_disk, tmp_path):
    ds, root = on_disk
    save_dataset(ds, tmp_path)
    (tmp_path / "judgments.parquet").unlink()
    (tmp_path / "judgments").mkdir()
    ds.judgments.write_parquet(tmp_path / "judgments" / "day1.parquet")
    ds.judgments.head(1).write_parquet(tmp_path / "judgments" / "day2.parquet")  # one verdict logged twice
    with pytest.raises(CAPInputError, match="duplicate key"):
        stream_stats(tmp_path)


def test_cli_stream_engine_writes_the_memory_profile(on_disk, default_data_dir, tmp_path, capsys):
    _, root = on_disk
    a, b = tmp_path / "memory.csv", tmp_path / "stream.csv"
    assert main(["profile", "--data", str(default_data_dir), "--bootstrap", "200", "--out", str(a)]) == 0
    assert main(["profile", "--data", str(root), "--engine", "stream", "--bootstrap", "200", "--out", str(b)]) == 0
    assert a.read_text() == b.read_text()
    assert main(["profile", "--data", str(root), "--scheduler", "tcp://x:1", "--out", str(b)]) == 2
    assert "--scheduler needs the Dask engine" in capsys.readouterr().err


def test_threaded_bootstrap_equals_one_thread_and_restores_blas(on_disk, monkeypatch):
    """Benchmarks spread over threads give the one-thread replicates bit for bit; BLAS limits come back."""
    from threadpoolctl import threadpool_info

    from cap_core.profile.conditions import profile_stats
    from cap_core.profile.engine import replicate_benchmarks

    ds, _ = on_disk
    stats = profile_stats(ds, ds.benchmarks, ds.judges, False)
    assert len(stats) > 2  # several benchmarks, so threads really share the work
    before = [(i["internal_api"], i["num_threads"]) for i in threadpool_info()]
    one = replicate_benchmarks(stats, 300, 7, 0.95, threads=1)
    many = replicate_benchmarks(stats, 300, 7, 0.95, threads=3)
    assert [(i["internal_api"], i["num_threads"]) for i in threadpool_info()] == before
    for (r1, lo1, hi1), (r3, lo3, hi3) in zip(one, many):
        np.testing.assert_array_equal(r1, r3)
        np.testing.assert_array_equal(lo1, lo3)
        np.testing.assert_array_equal(hi1, hi3)
    # and the public entry point with threading switched off by the environment gives the same profile
    monkeypatch.setenv("CAP_THREADS", "1")
    a = compute_profile(ds, n_resamples=300, seed=7)
    monkeypatch.setenv("CAP_THREADS", "3")
    _same(a, compute_profile(ds, n_resamples=300, seed=7))


def test_worker_threads_reads_the_environment(monkeypatch):
    from cap_core.config import worker_threads

    monkeypatch.setenv("CAP_THREADS", "1")
    assert worker_threads() == 1
    monkeypatch.setenv("CAP_THREADS", "6")
    assert worker_threads() == 6
    monkeypatch.setenv("CAP_THREADS", "zero")  # not a count: the cores decide, between 1 and 4
    assert 1 <= worker_threads() <= 4
