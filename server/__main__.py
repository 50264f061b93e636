"""``python -m server`` is the ``gallerist`` command line."""
import sys

from server.cli import main

sys.exit(main())
