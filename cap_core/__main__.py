"""``python -m cap_core`` and the installed ``cap`` command — see :mod:`cap_core.cli.main`."""

import gc
import sys


def run() -> int:
    """The command line: every verb of :mod:`cap_core.cli.main`; returns the exit status."""
    # everything imported so far (polars and the package) lives as long as the process: keep it out of the
    # collector's passes, so a short verb (a cached `judge` re-run) does not traverse it on every collection
    gc.freeze()
    from cap_core.cli.main import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
