"""``make bench``: every speed target with its figure, its same-run baseline, its goal and whether it is met.

Runs each benchmark script in its own process (so peak memory is per measurement), collects
their ``RESULT`` lines (:mod:`bench.common`) and prints one table: figure, value now (and peak
memory), the baseline timed in the same run, the ratio, the goal, met or not, and the load
average when the figure was taken. ``--quick`` skips the 100M out-of-core run and the
old-code 10M baseline (minutes on two shared cores); ``--no-browser`` skips the browser pairing;
``--big-dir DIR`` keeps and reuses the 100M dataset.
The fresh-clone ``make test`` time is not measured here (it needs a fresh clone and an empty
pip cache): ``bench/fresh_clone_test.sh`` measures it.
"""

from __future__ import annotations

import json
import os
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
                 "baseline": None, "ratio": None, "peak_mb": None, "note": "failed", "load": os.getloadavg()[0]}]
    print(f"   ({' '.join(args)}: {time.perf_counter() - t:.0f} s)")
    return recs


def _num(v: float, unit: str) -> str:
    if v != v:  # NaN
        return "-"
    return f"{v:.3g} {unit}".strip() if abs(v) < 1000 else f"{v:,.0f} {unit}".strip()


def table(recs: list[dict]) -> str:
    """The records as a Markdown table (the README's Speed table is pasted from it)."""
    lines = ["| figure | now | same-run baseline | ratio | goal | met | load |", "|---|---|---|---|---|---|---|"]
    for r in recs:
        now = _num(r["value"], r["unit"])
        if r.get("peak_mb"):
            now += f", {r['peak_mb'] / 1024:.2f} GiB peak" if r["peak_mb"] >= 512 else ""
        base = "-"
        if r.get("baseline") is not None:
            base = f"{r.get('baseline_label') or 'baseline'}: {_num(r['baseline'], r['unit'])}"
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") else "-"
        lines.append(f"| {r['figure']} | {now} | {base} | {ratio} | {r['target']} | {'yes' if r['met'] else 'NO'} | "
                     f"{r.get('load', '-')} |")
    return "\n".join(lines)


def main() -> None:
    quick = "--quick" in sys.argv
    scale = ["bench/bench_scale.py"] + (["--no-big", "--no-baseline"] if quick else [])
    if "--big-dir" in sys.argv:  # keep and reuse the 100M dataset (bench_scale.py --big-dir)
        scale += ["--big-dir", sys.argv[sys.argv.index("--big-dir") + 1]]
    jobs = [["bench/bench_profile.py", "--quick"], scale, ["bench/bench_pages.py"],
            ["bench/bench_audit.py", "--quick", "--naive", "1"], ["bench/bench_cache.py"]]
    if "--no-browser" not in sys.argv:
        jobs.insert(3, ["bench/bench_browser.py"])
    recs = []
    for job in jobs:
        print(f"== {' '.join(job)} (load average {os.getloadavg()[0]:.1f})", flush=True)
        recs += _run(job)
    print()
    print(table(recs))
    for r in recs:
        if r.get("note"):
            print(f"- {r['figure']}: {r['note']}")
    print("- fresh-clone `make test`: not measured here (bench/fresh_clone_test.sh; the README states the figure "
          "and the machine)")


if __name__ == "__main__":
    main()
