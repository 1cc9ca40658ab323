"""``python -m gedkit`` = the ``gedkit`` command."""

import sys

from gedkit.cli import main

sys.exit(main())
