"""``make bench``: every target of issue 13 with its figure, same-run baseline ratio, peak memory and verdict.

Runs each benchmark script in its own process (so peak memory is per measurement), collects
their ``RESULT`` lines (:mod:`bench.common`) and prints one table. ``--quick`` skips the
100M out-of-core run and the 10M baseline (each takes minutes on two shared cores).
The fresh-clone ``make test`` time is not measured here (it needs a fresh clone and an
empty pip cache); ``bench/bench_llm_build.sh`` measures the llama-cpp-python build.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str]) -> list[dict]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True)
    recs = [json.loads(line[7:]) for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    for line in out.stdout.splitlines():
        if not line.startswith("RESULT "):
            print("   " + line)
    if out.returncode or not recs:
        print(f"   !! {' '.join(args)} failed (exit {out.returncode}): {out.stderr.strip()[-800:]}")
        return [{"figure": " ".join(args), "value": float("nan"), "unit": "", "target": "", "met": False,
                 "baseline": None, "ratio": None, "peak_mb": None, "note": "failed"}]
    print(f"   ({' '.join(args)}: {time.perf_counter() - t:.0f} s)")
    return recs


def main() -> None:
    quick = "--quick" in sys.argv
    scale = ["bench/bench_scale.py"] + (["--no-big", "--no-baseline"] if quick else [])
    jobs = [["bench/bench_profile.py", "--quick"], scale, ["bench/bench_pages.py"],
            ["bench/bench_audit.py", "--quick", "--naive", "1"], ["bench/bench_cache.py"]]
    recs = []
    for job in jobs:
        print(f"== {' '.join(job)}", flush=True)
        recs += _run(job)
    print()
    print(f"{'figure':58s} {'value':>10s} {'target':>30s} {'ratio':>9s} {'peak MB':>8s}  met")
    for r in recs:
        ratio = f"{r['ratio']:.1f}x" if r.get("ratio") else "-"
        peak = f"{r['peak_mb']:.0f}" if r.get("peak_mb") else "-"
        print(f"{r['figure'][:58]:58s} {r['value']:>8.3g} {r['unit']:<2s}{r['target'][:30]:>30s} {ratio:>9s} "
              f"{peak:>8s}  {'yes' if r['met'] else 'NO'}")
        if r.get("note"):
            print(f"{'':4s}{r['note']}")
    print(f"{'fresh-clone make test':58s} {'-':>10s} {'<= 10 minutes':>30s} {'-':>9s} {'-':>8s}  not measured here")


if __name__ == "__main__":
    main()
