"""What the bundle is called and holds on each platform (packaging/coverfire.spec and
packaging/build_bundle.py use it; tests/packaging/test_bundle_layout.py checks it with each
platform's names, since only the Linux bundle is built here).

* Linux: ``coverfire/coverfire``, the window and the command line in one.
* Windows: ``coverfire\\Coverfire.exe`` opens the window without a console window;
  ``coverfire\\coverfire-cli.exe`` is the command line. (Not ``coverfire.exe``: Windows file
  names ignore case, so ``Coverfire.exe`` and ``coverfire.exe`` would be one file, and the
  second build would overwrite the first.)
* macOS: ``Coverfire.app``; the command line is ``Coverfire.app/Contents/MacOS/coverfire``.
  Its ``Info.plist`` declares the files Finder may open with it (:func:`info_plist`); they
  come as ``QFileOpenEvent`` (gui/file_open_events.py).
"""

from __future__ import annotations

from pathlib import Path

#: The bundle identifier (macOS).
BUNDLE_ID = "org.coverfire.Coverfire"


def executables(platform: str) -> list[tuple[str, bool]]:
    """``(name, console)`` of each executable PyInstaller makes on ``platform``
    (``sys.platform``), the command line's first."""
    if platform == "win32":
        return [("coverfire-cli", True), ("Coverfire", False)]
    if platform == "darwin":
        return [("coverfire", False)]
    return [("coverfire", True)]


def file_names(platform: str) -> list[str]:
    """The executables' file names on ``platform`` (``.exe`` on Windows)."""
    return [name + (".exe" if platform == "win32" else "") for name, _ in executables(platform)]


def command_line(dist: Path, platform: str) -> Path:
    """The built command-line program inside ``dist``."""
    if platform == "darwin":
        return dist / "Coverfire.app" / "Contents" / "MacOS" / "coverfire"
    return dist / "coverfire" / file_names(platform)[0]


def icon(icons: Path, platform: str) -> Path | None:
    """The icon file PyInstaller gives the executables: ``.ico`` on Windows, ``.icns`` on
    macOS (both written by packaging/render_icons.py); None on Linux (the desktop entry's)."""
    if platform == "win32":
        return icons / "coverfire.ico"
    if platform == "darwin":
        return icons / "coverfire.icns"
    return None


def info_plist(version: str) -> dict:
    """The keys the macOS app's ``Info.plist`` adds to PyInstaller's: the document types
    Finder opens with Coverfire (the types of docs/packaging.md: encounters, Universal VTT
    maps, Chummer saves) and the types it declares for them."""
    def exported(uti, desc, exts, conforms, mime=None):
        spec = {"public.filename-extension": exts}
        if mime:
            spec["public.mime-type"] = mime
        return {"UTTypeIdentifier": uti, "UTTypeDescription": desc, "UTTypeConformsTo": conforms,
                "UTTypeTagSpecification": spec}

    types = [
        # an encounter is JSON; Finder goes by the last extension, so *.coverfire.json is
        # public.json, for which Coverfire is offered as an alternative (Open With)
        ("Coverfire encounter", ["public.json"], "Alternate", "Editor"),
        ("Universal VTT map", [f"{BUNDLE_ID}.uvtt"], "Owner", "Viewer"),
        ("Chummer5a character", [f"{BUNDLE_ID}.chum5", f"{BUNDLE_ID}.chum5lz"], "Owner", "Viewer"),
    ]
    return {
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "NSHighResolutionCapable": True,
        "CFBundleDocumentTypes": [{"CFBundleTypeName": name, "LSItemContentTypes": utis, "LSHandlerRank": rank,
                                   "CFBundleTypeRole": role} for name, utis, rank, role in types],
        "UTExportedTypeDeclarations": [
            exported(f"{BUNDLE_ID}.uvtt", "Universal VTT map", ["dd2vtt", "uvtt", "df2vtt"], ["public.json", "public.data"],
                     "application/x-uvtt"),
            exported(f"{BUNDLE_ID}.chum5", "Chummer5a character", ["chum5"], ["public.xml", "public.data"],
                     "application/x-chummer5"),
            exported(f"{BUNDLE_ID}.chum5lz", "Chummer5a compressed character", ["chum5lz"], ["public.data"],
                     "application/x-chummer5-compressed"),
        ],
    }
