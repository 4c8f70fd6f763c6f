"""``python -m cap_core`` — see :mod:`cap_core.cli.main`."""

import gc
import sys

# everything imported so far (polars and the package) lives as long as the process: keep it out of the
# collector's passes, so a short verb (a cached `judge` re-run) does not traverse it on every collection
gc.freeze()

from cap_core.cli.main import main  # noqa: E402

sys.exit(main())
