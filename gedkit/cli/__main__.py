"""``python -m gedkit.cli`` = the ``gedkit`` command."""

import sys

from gedkit.cli import main

sys.exit(main())
