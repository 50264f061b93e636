"""``python -m gallerist.cli`` is the ``gallerist`` command line."""
import sys

from gallerist.cli.main import main

sys.exit(main())
