"""The bundle's program: the same ``coverfire`` command the wheel installs."""

import sys

from gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
