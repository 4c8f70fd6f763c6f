"""Shared helpers of the benchmarks: timing, peak memory and the one-line result record.

Every benchmark script prints human-readable lines and, last, one line
``RESULT {json}`` per target (issues 13 and 22: ``figure``, ``value``, ``unit``, ``target``,
``met``, ``baseline`` with ``baseline_label`` (what it is) and ``ratio`` when a baseline was
timed in the same run, ``peak_mb`` the peak resident memory in MiB, ``load`` the 1-minute
load average when the figure was taken). ``bench/run_all.py`` (``make bench``) runs each
script in its own process and prints the table.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux ``ru_maxrss`` is in kB)."""
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024.0 if sys.platform != "darwin" else kb / 2**20


def best_of(fn, repeat: int = 5) -> tuple[float, list[float]]:
    """(median seconds, all runs) of ``fn()`` run ``repeat`` times."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2], times


def result(figure: str, value: float, unit: str, target: str, met: bool, *, baseline: float | None = None,
           ratio: float | None = None, note: str = "", peak_mb: float | None = None, baseline_label: str = "") -> None:
    """Print the ``RESULT`` record of one target (peak memory of this process, or ``peak_mb`` of a child)."""
    rec = {"figure": figure, "value": round(float(value), 4), "unit": unit, "target": target, "met": bool(met),
           "baseline": None if baseline is None else round(float(baseline), 4), "baseline_label": baseline_label,
           "ratio": None if ratio is None else round(float(ratio), 2),
           "peak_mb": round(peak_rss_mb() if peak_mb is None else peak_mb, 1),
           "load": round(os.getloadavg()[0], 1), "note": note}
    print("RESULT " + json.dumps(rec), flush=True)


#: ``python -c TIMED_SERVER run APP ...`` runs ``streamlit`` and appends one JSON line per script run to
#: ``$CAP_RUN_LOG``: its ``start`` and ``end`` (epoch seconds), ``wall_ms`` and thread ``cpu_ms``, and the
#: ``page`` it ran. The one server wrapper of the page and browser benchmarks.
TIMED_SERVER = """
import json, os, sys, time
from streamlit.runtime.scriptrunner import script_runner as sr
_run = sr.ScriptRunner._run_script
def timed(self, rerun_data):
    t, p, c = time.time(), time.perf_counter(), time.thread_time()
    try:
        return _run(self, rerun_data)
    finally:
        with open(os.environ["CAP_RUN_LOG"], "a") as f:
            f.write(json.dumps({"start": t, "end": time.time(), "wall_ms": (time.perf_counter() - p) * 1000,
                                "cpu_ms": (time.thread_time() - c) * 1000,
                                "page": getattr(rerun_data, "page_name", None) or ""}) + "\\n")
sr.ScriptRunner._run_script = timed
from streamlit.web import cli
sys.exit(cli.main())
"""
