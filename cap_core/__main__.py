"""``python -m cap_core`` — see :mod:`cap_core.cli.main`."""

import sys

from cap_core.cli.main import main

sys.exit(main())
