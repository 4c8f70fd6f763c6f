"""The BLAS thread limit of the bootstrap (:func:`cap_core.bootstrap._one_blas_thread`) never walks the
loaded libraries with ``dl_iterate_phdr`` from Python.

threadpoolctl up to 3.6 listed the process's shared libraries through ``dl_iterate_phdr`` with a
Python callback: the callback needs the GIL while glibc holds its loader lock, so a thread
importing a C extension (``dlopen`` with the GIL held: the first ``numpy.random`` use, the
dashboard's pandas import aside) deadlocks against a bootstrap thread entering the limit. The
benchmarks hung that way (threadpoolctl issue 239, fixed in 3.7 by reading ``/proc/self/maps``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

_PROBE = r"""
import ctypes, sys
_getattr = ctypes.CDLL.__getattr__
def guarded(self, name):
    if name == "dl_iterate_phdr":
        raise AssertionError("dl_iterate_phdr called from Python")
    return _getattr(self, name)
ctypes.CDLL.__getattr__ = guarded
import numpy as np
from cap_core import bootstrap
with bootstrap._one_blas_thread():
    limited = [lib["num_threads"] for lib in bootstrap._CONTROLLER.info() if lib["user_api"] == "blas"]
    np.ones((50, 50)) @ np.ones((50, 50))
print("BLAS", limited)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the loader lock of glibc")
def test_the_blas_limit_finds_numpy_blas_without_dl_iterate_phdr():
    p = subprocess.run([sys.executable, "-c", _PROBE], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    line = p.stdout.strip().splitlines()[-1]
    assert line == "BLAS [1]", line  # numpy's BLAS found (through /proc/self/maps) and held to one thread
