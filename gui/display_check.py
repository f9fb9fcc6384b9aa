"""Whether the window can open on this machine's display, asked before Qt is: with no display
Qt's xcb platform aborts the process with a page of advice about reinstalling Qt and
``libxcb-cursor0``. :func:`no_display_message` says it in one line instead."""

from __future__ import annotations

import sys
from collections.abc import Mapping

#: Platform plugins that need a display server (Qt picks xcb on Linux when none is named).
_NEEDS_DISPLAY = {"xcb": ("DISPLAY",), "wayland": ("WAYLAND_DISPLAY",), "wayland-egl": ("WAYLAND_DISPLAY",)}


def no_display_message(env: Mapping[str, str], platform: str | None = None) -> str | None:
    """The one line to print when the window cannot open for want of a display, or None.
    ``QT_QPA_PLATFORM`` may name several plugins (``wayland;xcb``): Qt tries each, so the
    window can open when any of them can. Windows and macOS always have their display."""
    platform = sys.platform if platform is None else platform
    if platform in ("win32", "darwin"):
        return None
    names = [n.split(":", 1)[0].strip() for n in env.get("QT_QPA_PLATFORM", "").split(";") if n.strip()]
    if not names:  # (Qt's default on Linux: Wayland when a session says so, else xcb)
        names = ["wayland", "xcb"] if env.get("WAYLAND_DISPLAY") else ["xcb"]
    for name in names:
        needs = _NEEDS_DISPLAY.get(name)
        if needs is None or any(env.get(var) for var in needs):
            return None  # (offscreen, vnc, eglfs ..., or a display to use)
    wanted = " or ".join(sorted({var for n in names for var in _NEEDS_DISPLAY[n]}))
    return (f"coverfire: no display to open the window on ({wanted} is not set; the window needs a "
            f"desktop session). Without one: coverfire analyze FILE, coverfire export FILE -o x.png, "
            f"or QT_QPA_PLATFORM=offscreen")
