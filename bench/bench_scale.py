"""Scale benchmark: 10M verdicts in memory, 100M out of core, and the Dask engine (issue 13).

Run: ``.venv/bin/python bench/bench_scale.py [--items 100000] [--judges 50] [--big-items 1000000]
[--no-baseline] [--no-big] [--dask]``  (not part of the test suite).

Data (:mod:`bench.synth_large`): one benchmark, ``items x judges x 2 orders`` verdicts,
written as a dataset directory under ``/tmp`` (deleted afterwards). Each measurement runs
in its own process, so its peak resident memory (``ru_maxrss``) is its own:

* 10M (``--items 100000 --judges 50``): ``load_dataset`` (read + validate) then
  ``compute_profile`` (1,000 resamples), cold; baseline: the same two calls with the code
  of the commit before this work (``git archive`` of ``BASE_COMMIT`` into /tmp), in the
  same run.
* 100M (``--big-items 1000000``): ``profile --engine stream`` on judgments split into
  Parquet parts (``stream_stats`` + ``profile_from_stats``).
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
import json, resource, sys, time
t0 = time.perf_counter()
engine, data = sys.argv[1], sys.argv[2]
if engine == "memory":
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile
    ds = load_dataset(data)
    t1 = time.perf_counter()
    res = compute_profile(ds, n_resamples=1000, seed=0)
else:
    from cap_core.profile.conditions import profile_from_stats
    if engine == "stream":
        from cap_core.profile.engine_stream import stream_stats
        stats = stream_stats(data)
    else:
        from cap_core.profile.engine_dask import connect, dask_stats
        client = connect(None, n_workers=2)
        stats = dask_stats(data, client=client)
        client.close()
    t1 = time.perf_counter()
    res = profile_from_stats(stats, 1000, 0, 0.95)
t2 = time.perf_counter()
print("TIMING " + json.dumps({"build": t1 - t0, "profile": t2 - t1, "total": t2 - t0, "rows": res.profile.height,
      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
      "digest": float(sum(v for v in res.profile["ci_low"].to_list() if v is not None))}), flush=True)
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


def run(engine: str, data: Path, code_root: Path) -> dict:
    """One measurement in a fresh process with ``code_root`` on the path."""
    env = {"PYTHONPATH": str(code_root), "PATH": "/usr/bin:/bin", "HOME": "/tmp",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    out = subprocess.run([sys.executable, "-c", _RUN, engine, str(data)], cwd=code_root, env=env,
                         capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("TIMING "):
            return json.loads(line[7:])
    raise RuntimeError(out.stderr[-3000:])


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
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-big", action="store_true")
    ap.add_argument("--no-10m", action="store_true")
    ap.add_argument("--dask", action="store_true")
    ap.add_argument("--big-dir", type=Path, help="keep the 100M dataset here (written if absent, reused if present)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cap-bench-scale-", dir="/tmp"))
    try:
        n_verdicts = args.items * args.judges * 2
        if not args.no_10m:
            data = tmp / "medium"
            t = time.perf_counter()
            generate(data, args.items, args.judges, parts=False)
            print(f"{n_verdicts / 1e6:.0f}M verdicts written in {time.perf_counter() - t:.0f} s")
            ours = run("memory", data, ROOT)
            print(f"ours: build {ours['build']:.1f} s + profile {ours['profile']:.1f} s = {ours['total']:.1f} s, "
                  f"peak {ours['peak_mb']:.0f} MB")
            base = None
            if not args.no_baseline:
                base = run("memory", data, baseline_tree(tmp))
                print(f"baseline ({BASE_COMMIT}): build {base['build']:.1f} s + profile {base['profile']:.1f} s = "
                      f"{base['total']:.1f} s, peak {base['peak_mb']:.0f} MB; same CI sum: "
                      f"{abs(base['digest'] - ours['digest']) < 1e-6}")
            result(f"{n_verdicts / 1e6:.0f}M verdicts, build + profile", ours["total"], "s", "<= 15 s, <= 2 GB peak",
                   ours["total"] <= 15 and ours["peak_mb"] <= 2048,
                   baseline=None if base is None else base["total"],
                   ratio=None if base is None else base["total"] / ours["total"],
                   note=f"build {ours['build']:.1f} s, profile {ours['profile']:.1f} s, peak {ours['peak_mb']:.0f} MB"
                        + ("" if base is None else f"; baseline peak {base['peak_mb']:.0f} MB"), peak_mb=ours["peak_mb"])
            if args.dask:
                (data / "judgments").mkdir()
                (data / "judgments.parquet").rename(data / "judgments" / "part-0.parquet")
                for engine in ("stream", "dask"):
                    r = run(engine, data, ROOT)
                    print(f"--engine {engine} on {n_verdicts / 1e6:.0f}M: statistics {r['build']:.1f} s + bootstrap "
                          f"{r['profile']:.1f} s = {r['total']:.1f} s, peak {r['peak_mb']:.0f} MB (client process); "
                          f"same CI sum as memory: {abs(r['digest'] - ours['digest']) < 1e-6}")
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
            r = run("stream", big, ROOT)
            print(f"--engine stream on {n_big / 1e6:.0f}M: statistics {r['build']:.1f} s + bootstrap "
                  f"{r['profile']:.1f} s = {r['total']:.1f} s, peak {r['peak_mb']:.0f} MB")
            result(f"{n_big / 1e6:.0f}M verdicts from Parquet on disk (stream)", r["total"], "s",
                   "completes out of core, <= 8 GB peak", r["peak_mb"] <= 8192,
                   note=f"statistics {r['build']:.1f} s, bootstrap {r['profile']:.1f} s", peak_mb=r["peak_mb"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
