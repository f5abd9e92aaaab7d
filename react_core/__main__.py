"""``python -m react_core``: the command line (see react_core.cli.main)."""

import sys

from react_core.cli.main import main

sys.exit(main())
