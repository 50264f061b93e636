"""``python -m gallerist.server`` is the ``gallerist`` command line."""
import sys

from gallerist.server.cli import main

sys.exit(main())
