"""Where CAP Studio keeps its files, and the default bootstrap settings.

One place for every folder the product reads or writes and for the numbers every page
and verb shares. Environment variables override the folders:

========================  ==============================================  ==========================
variable                  meaning                                         default
========================  ==============================================  ==========================
``CAP_DATA_DIR``          embedded data (``default/``, ``published/``…)   ``<repo>/data``
``CAP_CACHE_DIR``         the judging cache (one diskcache, JSON values)  ``$CAP_RUNS_DIR/cache`` if
                                                                          that is set, else
                                                                          ``<repo>/.cache/judging``
``CAP_RUNS_DIR``          live-run output folders of the dashboard        ``<repo>/.cache/live_runs``
========================  ==============================================  ==========================

The public data folder (raw public files and the papers' tables) is *not* here: it exists
only beside a developer's checkout, and only the default-data build
(:mod:`cap_core.importers.default_data`, which names it) and the tests read it. A user's own
copy of the public label sets is passed explicitly (the Label audit page's folder input,
``audit --public-data``).

This module imports nothing of the project, so every layer may use it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = [
    "REPO_ROOT", "app_root", "installed", "data_dir", "default_data_dir", "published_dir", "validity_data_dir", "pandalm_data_dir",
    "audit_data_dir", "cache_dir", "runs_dir", "N_RESAMPLES", "SEED", "LEVEL", "MAX_RESAMPLES", "worker_threads",
]

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Where ``pip install .`` puts the dashboard script, its pages, its settings and the embedded data
#: (``[tool.setuptools.data-files]`` of pyproject.toml).
SHARE_DIR = Path(sys.prefix) / "share" / "cap-studio"


def installed() -> bool:
    """True when running from an installed package (no checkout around ``cap_core``)."""
    return not (REPO_ROOT / "app.py").is_file()


def app_root() -> Path:
    """The folder holding ``app.py``, ``app_pages/``, ``.streamlit/`` and ``data/``: the checkout, or
    :data:`SHARE_DIR` of an installed package."""
    return SHARE_DIR if installed() else REPO_ROOT


def _user_cache() -> Path:
    """``$XDG_CACHE_HOME/cap-studio`` (default ``~/.cache/cap-studio``): an installed package writes here."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".cache") / "cap-studio"


def _writable_root() -> Path:
    """The checkout's ``.cache`` folder, or the user cache of an installed package."""
    return _user_cache() if installed() else REPO_ROOT / ".cache"

#: Bootstrap resamples used by every page and verb unless told otherwise (CAP §3.3).
N_RESAMPLES = 1000
#: Default seed of every resample stream.
SEED = 0
#: Confidence level of every interval (a fraction).
LEVEL = 0.95
#: Largest accepted resample count. A profile's replicate matrix takes cells x resamples
#: x 8 bytes (float64): the 413 cells of ``data/default`` at 100,000 resamples hold 330 MB,
#: and the peak of ``compute_profile`` (measured with tracemalloc: 11.9 kB per resample,
#: the counts and matrix products besides the replicates) is about 1.2 GB. Ten times more
#: would exhaust a laptop. CAP uses 1,000 (§3.3).
MAX_RESAMPLES = 100_000


def _env_dir(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value).expanduser() if value else default


def data_dir() -> Path:
    """The embedded data folder (``$CAP_DATA_DIR``, else ``data/`` of :func:`app_root`)."""
    return _env_dir("CAP_DATA_DIR", app_root() / "data")


def default_data_dir() -> Path:
    """The embedded default dataset (LLMBar and JudgeBench verdicts, no texts)."""
    return data_dir() / "default"


def published_dir() -> Path:
    """Published tables of the three papers, as CSV (see ``data/README.md``)."""
    return data_dir() / "published"


def validity_data_dir() -> Path:
    """Probe bases, built-in probes and the public gradings mapped onto (S, R)."""
    return data_dir() / "validity"


def pandalm_data_dir() -> Path:
    """The PandaLM dataset (binary and three-level graded verdicts)."""
    return data_dir() / "pandalm"


def audit_data_dir() -> Path:
    """Derived audit figures of the public label sets (written by the default-data build)."""
    return data_dir() / "audit"


def cache_dir() -> Path:
    """The one judging cache of the project: ``$CAP_CACHE_DIR``; else, when only ``$CAP_RUNS_DIR``
    is set, ``$CAP_RUNS_DIR/cache`` (nothing is written inside the repo); else ``<repo>/.cache/judging``
    (an installed package: ``~/.cache/cap-studio/judging``)."""
    if not os.environ.get("CAP_CACHE_DIR") and os.environ.get("CAP_RUNS_DIR"):
        return runs_dir() / "cache"
    return _env_dir("CAP_CACHE_DIR", _writable_root() / "judging")


def worker_threads() -> int:
    """Threads the bootstrap may use at once: ``$CAP_THREADS`` if set (1 turns threading off),
    else the cores this process may run on, at most 4 (the per-benchmark work is small)."""
    raw = os.environ.get("CAP_THREADS", "").strip()
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def runs_dir() -> Path:
    """Where the dashboard's live runs write their folders (``$CAP_RUNS_DIR``; else ``<repo>/.cache/live_runs``,
    or ``~/.cache/cap-studio/live_runs`` for an installed package)."""
    return _env_dir("CAP_RUNS_DIR", _writable_root() / "live_runs")
