"""Scale benchmark: 10M verdicts from the CLI, 100M out of core, and the Dask engine (issues 13 and 22).

Run: ``.venv/bin/python bench/bench_scale.py [--items 100000] [--judges 50] [--big-items 1000000]
[--no-baseline] [--no-big] [--dask] [--big-dir DIR]``  (not part of the test suite).

Data (:mod:`bench.synth_large`): one benchmark, ``items x judges x 2 orders`` verdicts,
written as a dataset directory under ``/tmp`` (deleted afterwards). Each measurement runs
in its own process, so its peak resident memory (``ru_maxrss``, MiB) is its own:

* 10M (``--items 100000 --judges 50``): ``profile`` from the command line (``python -m
  cap_core profile --data DIR --out FILE``, 1,000 resamples), beside the library path in the
  same run (``load_dataset`` then ``compute_profile``); with ``--baseline``, also the code of
  :data:`BASE_COMMIT` (before issue 13), extracted read-only from git.
* 100M (``--big-items 1000000``): ``profile --engine stream`` from the command line on
  judgments split into Parquet parts, beside a polars streaming pass over the same files
  that computes the per-(judge, base item) correct counts (judgments joined to the items,
  grouped by judge and base item: the core of the statistics, in polars' own engine).
* ``--dask``: the 10M data through ``--engine dask`` on a local cluster of 2 workers,
  and ``--engine stream``, for the README's "when to switch" figures.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import result  # noqa: E402

#: The code before issue 13 (baseline of the same-run ratios).
BASE_COMMIT = "4acee3d"

_RUN = r"""
import json, resource, runpy, sys, time
t0 = time.perf_counter()
how, data, out = sys.argv[1], sys.argv[2], sys.argv[3]
extra = {}
if how == "library":
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile
    ds = load_dataset(data)
    extra["build"] = time.perf_counter() - t0
    res = compute_profile(ds, n_resamples=1000, seed=0)
    from cap_core.export import write_csv  # the CLI's writer (12 significant digits), so the bytes compare
    write_csv(res.profile, out)
elif how == "polars":
    import glob
    import polars as pl
    files = sorted(glob.glob(data + "/judgments/*.parquet")) or [data + "/judgments.parquet"]
    items = pl.scan_parquet(data + "/items.parquet").select("benchmark", "item_id", "base_item_id", "gold")
    got = (pl.scan_parquet(files).join(items, on=["benchmark", "item_id"])
           .group_by("judge", "benchmark", "base_item_id")
           .agg(pl.len().alias("n"), (pl.col("verdict") == pl.col("gold")).sum().alias("correct"))
           .collect(engine="streaming"))
    extra["groups"] = got.height
else:  # the command line, as `python -m cap_core profile ...` runs it
    engine = how.split(":", 1)[1] if ":" in how else "memory"
    sys.argv = ["cap", "profile", "--data", data, "--engine", engine, "--out", out]
    try:
        runpy.run_module("cap_core", run_name="__main__")
    except SystemExit as exc:
        if exc.code:
            raise
t1 = time.perf_counter()
print("TIMING " + json.dumps({"total": t1 - t0, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                              **extra}), flush=True)
"""


def generate(out: Path, n_items: int, n_judges: int, parts: bool) -> None:
    """Write the dataset directory in a child process (its memory is not counted)."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from pathlib import Path\nimport polars as pl\n"
            "from bench.synth_large import items_frame, write_parquet_dataset, make_large\n"
            "from cap_core.schema import DECLARATION_SCHEMA\n"
            f"out = Path({str(out)!r}); n, j = {n_items}, {n_judges}\n"
            "out.mkdir(parents=True, exist_ok=True)\n"
            "pl.DataFrame(schema=DECLARATION_SCHEMA).write_parquet(out / 'declarations.parquet')\n"
            + ("write_parquet_dataset(out, n, j)\n" if parts else
               "items, jud = make_large(n, j)\nitems.write_parquet(out / 'items.parquet')\n"
               "jud.write_parquet(out / 'judgments.parquet')\n"))
    subprocess.run([sys.executable, "-c", code], check=True)


def run(how: str, data: Path, code_root: Path, out: Path) -> dict:
    """One measurement in a fresh process with ``code_root`` on the path: ``how`` is ``cli`` (``cli:stream``,
    ``cli:dask``: another engine), ``library`` or ``polars``; the profile is written to ``out``."""
    env = {"PYTHONPATH": str(code_root), "PATH": "/usr/bin:/bin", "HOME": "/tmp",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    got = subprocess.run([sys.executable, "-c", _RUN, how, str(data), str(out)], cwd=code_root, env=env,
                         capture_output=True, text=True)
    for line in got.stdout.splitlines():
        if line.startswith("TIMING "):
            return json.loads(line[7:])
    raise RuntimeError(got.stderr[-3000:])


def baseline_tree(tmp: Path) -> Path:
    """The code of :data:`BASE_COMMIT`, extracted read-only from git into ``tmp``."""
    dest = tmp / "baseline"
    dest.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASE_COMMIT, "cap_core"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--judges", type=int, default=50)
    ap.add_argument("--big-items", type=int, default=1_000_000)
    ap.add_argument("--no-baseline", action="store_true", help="(kept for make bench --quick; the old code runs "
                                                                   "only with --baseline)")
    ap.add_argument("--baseline", action="store_true", help=f"also time the code of {BASE_COMMIT}")
    ap.add_argument("--no-big", action="store_true")
    ap.add_argument("--no-10m", action="store_true")
    ap.add_argument("--dask", action="store_true")
    ap.add_argument("--big-dir", type=Path, help="keep the 100M dataset here (written if absent, reused if present)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cap-bench-scale-", dir="/tmp"))
    gib = 1024.0
    try:
        n_verdicts = args.items * args.judges * 2
        if not args.no_10m:
            data = tmp / "medium"
            t = time.perf_counter()
            generate(data, args.items, args.judges, parts=False)
            print(f"{n_verdicts / 1e6:.0f}M verdicts written in {time.perf_counter() - t:.0f} s")
            lib = run("library", data, ROOT, tmp / "lib.csv")
            cli = run("cli", data, ROOT, tmp / "cli.csv")
            same = (tmp / "lib.csv").read_bytes() == (tmp / "cli.csv").read_bytes()
            print(f"CLI {cli['total']:.1f} s, peak {cli['peak_mb']:.0f} MiB; library path {lib['total']:.1f} s "
                  f"(read + validate {lib['build']:.1f} s), peak {lib['peak_mb']:.0f} MiB; same profile: {same}")
            if args.baseline:
                base = run("library", data, baseline_tree(tmp), tmp / "base.csv")
                print(f"code of {BASE_COMMIT}: {base['total']:.1f} s, peak {base['peak_mb']:.0f} MiB")
            result(f"profile CLI, {n_verdicts / 1e6:.0f}M verdicts from Parquet", cli["total"], "s",
                   "<= 15 s and <= 2 GiB peak", cli["total"] <= 15 and cli["peak_mb"] <= 2 * gib and same,
                   baseline=lib["total"], ratio=cli["total"] / lib["total"], peak_mb=cli["peak_mb"],
                   baseline_label="library path (load_dataset + compute_profile)",
                   note=f"peak {cli['peak_mb']:.0f} MiB (library path {lib['peak_mb']:.0f} MiB); ratio = CLI / library;"
                        f" same profile: {same}")
            if args.dask:
                (data / "judgments").mkdir()
                (data / "judgments.parquet").rename(data / "judgments" / "part-0.parquet")
                for engine in ("stream", "dask"):
                    r = run(f"cli:{engine}", data, ROOT, tmp / f"{engine}.csv")
                    print(f"--engine {engine} on {n_verdicts / 1e6:.0f}M: {r['total']:.1f} s, peak "
                          f"{r['peak_mb']:.0f} MiB (client process); same profile as memory: "
                          f"{(tmp / f'{engine}.csv').read_bytes() == (tmp / 'cli.csv').read_bytes()}")
            shutil.rmtree(data)
        if not args.no_big:
            big = args.big_dir or tmp / "big"
            n_big = args.big_items * args.judges * 2
            if (big / "items.parquet").is_file():
                print(f"reusing the dataset in {big}")
            else:
                t = time.perf_counter()
                generate(big, args.big_items, args.judges, parts=True)
                print(f"{n_big / 1e6:.0f}M verdicts written as Parquet parts in {time.perf_counter() - t:.0f} s "
                      f"({sum(f.stat().st_size for f in big.rglob('*.parquet')) / 1e9:.1f} GB on disk)")
            floor = run("polars", big, ROOT, tmp / "unused.csv")
            r = run("cli:stream", big, ROOT, tmp / "big.csv")
            ratio = r["total"] / floor["total"]
            print(f"--engine stream on {n_big / 1e6:.0f}M: {r['total']:.1f} s, peak {r['peak_mb']:.0f} MiB; polars "
                  f"streaming pass {floor['total']:.1f} s, peak {floor['peak_mb']:.0f} MiB ({floor['groups']:,} groups)")
            result(f"{n_big / 1e6:.0f}M verdicts from Parquet, profile --engine stream", r["total"], "s",
                   "<= 180 s, <= 4 GiB peak, <= 3x the polars pass",
                   r["total"] <= 180 and r["peak_mb"] <= 4 * gib and ratio <= 3, baseline=floor["total"],
                   ratio=ratio, peak_mb=r["peak_mb"],
                   baseline_label="polars streaming join + group-by (judge, base item)",
                   note=f"ratio = ours / the polars pass; polars peak {floor['peak_mb']:.0f} MiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
