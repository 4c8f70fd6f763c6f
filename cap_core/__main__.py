"""``python -m cap_core`` — see :mod:`cap_core.cli`."""

import sys

from cap_core.cli import main

sys.exit(main())
