"""Old name of :mod:`geometry.nav` (movement: paths, charges, shoves, grapples), kept so that
code written against it still imports. New code imports from :mod:`geometry.nav`."""

from geometry.nav import *  # noqa: F401,F403
from geometry.nav import __all__  # noqa: F401
