"""The bundle's program: the same ``coverfire`` command the wheel installs; started with
``--coverfire-child`` it is one of the program's own child processes (:mod:`engine.child`),
which then imports only what that child needs."""

import sys

if __name__ == "__main__":
    from engine.child import is_child_start

    if is_child_start(sys.argv[1:]):
        from engine.child import run

        sys.exit(run(sys.argv[2:]))
    from gui.cli import main

    sys.exit(main())
