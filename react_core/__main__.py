"""``python -m react_core``: the command line (see react_core.cli)."""

import sys

from react_core.cli import main

sys.exit(main())
