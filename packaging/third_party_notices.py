"""The third-party notices Coverfire ships: what it is made of, under which licences.

    python packaging/third_party_notices.py wheel [-o THIRD_PARTY_NOTICES.txt]
    python packaging/third_party_notices.py wheel --check THIRD_PARTY_NOTICES.txt
    python packaging/third_party_notices.py check-bundle BUNDLE_FOLDER

* ``wheel``: the notices of the wheel (committed as ``THIRD_PARTY_NOTICES.txt``, shipped in
  the wheel's ``.dist-info/licenses/`` with ``LICENSE``): every distribution a wheel install
  pulls in (pyproject.toml's dependencies, followed through each one's own requirements in
  this environment), with its licence and home page. Versions are left out: pip picks them
  at install, and each brings its own licence files. ``--check`` fails when the file differs
  from what this environment gives (CI: .ci/check-wheel, in the fresh venv of the wheel).
* the bundle's (:func:`write_bundle_notices`, called by packaging/coverfire.spec with what
  PyInstaller collected, after packaging/bundle_filter.py): the same distributions at the
  versions bundled, **with their licence texts**; Python's licence; Qt and PySide6's
  LGPL-3.0 (and the GPL-3.0 it builds on: the wheels carry no text, packaging/licenses/ has
  them); PyInstaller's bootloader; and every other shared library the bundle carries (what
  PyInstaller copied from the build machine: libxcb, fontconfig, freetype ...), with the
  copyright file of the system package it came from (Debian/Ubuntu: ``dpkg -S``), then the
  list of every binary in the bundle and the entry that covers it.
* ``check-bundle``: every shared library and extension module in the built bundle is listed
  in its notices (CI: .ci/check-bundle), and no GNU readline or OpenSSL is there.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTICES = "THIRD_PARTY_NOTICES.txt"
LICENSES = ROOT / "packaging" / "licenses"
_LICENSE_FILE = re.compile(r"(^|/)(LICEN[CS]E|COPYING|NOTICE|AUTHORS)[^/]*$|LICENSE_[A-Z]+$", re.I)
_BINARY = re.compile(r"\.(so(\.\d+)*|dylib|dll|pyd)$")
#: What must never be in the bundle (issue 29 item 4): GNU readline (GPL-3.0), OpenSSL.
FORBIDDEN = re.compile(r"(^|/)(libreadline|libcrypto|libssl|readline\.cpython|_hashlib\.|_ssl\.)")
#: Distributions with no licence text in their wheel: the texts shipped for them.
EXTRA_TEXTS = {"pyside6-essentials": ("LGPL-3.0.txt", "GPL-3.0.txt"), "shiboken6": ("LGPL-3.0.txt", "GPL-3.0.txt")}
QT_NOTE = """\
Qt 6 and PySide6 (Qt for Python) are used under the GNU Lesser General Public License
version 3 (LGPL-3.0; its text and that of the GPL-3.0 it refers to follow). They are in the
bundle as separate shared libraries (PySide6/ and PySide6/Qt/lib/ in the bundle's folder),
unmodified from the PySide6-Essentials and shiboken6 wheels of PyPI, and can be replaced by
other builds of the same version. Their source: https://download.qt.io/official_releases/qt/
and https://download.qt.io/official_releases/QtForPython/ (or write to the Coverfire
maintainers for a copy)."""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project_dependencies(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The requirement strings of ``[project] dependencies`` (no extras)."""
    text = pyproject.read_text(encoding="utf-8")
    block = re.search(r"^dependencies\s*=\s*\[(.*?)^\]", text, re.M | re.S)
    if block is None:
        raise SystemExit(f"{pyproject}: no [project] dependencies")
    return re.findall(r'^\s*"([^"]+)"', block.group(1), re.M)


def _requirement_name(req: str) -> tuple[str, str | None]:
    """(name, marker or None) of a requirement string."""
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req).group(1)
    marker = req.split(";", 1)[1].strip() if ";" in req else None
    return name, marker


def _applies(marker: str | None) -> bool:
    if not marker:
        return True
    if "extra" in marker:
        return False
    try:
        from packaging.markers import Marker
    except ImportError:  # (pip's copy)
        from pip._vendor.packaging.markers import Marker
    return Marker(marker).evaluate()


def closure(requirements: list[str]) -> list[metadata.Distribution]:
    """The distributions installed here that ``requirements`` need, followed through their
    own requirements (those whose markers hold here), sorted by name."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [r for r in requirements]
    while todo:
        name, marker = _requirement_name(todo.pop())
        if not _applies(marker) or _norm(name) in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"third_party_notices: {name} is required but not installed here") from None
        seen[_norm(name)] = dist
        todo.extend(dist.requires or [])
    return sorted(seen.values(), key=lambda d: _norm(d.metadata["Name"]))


def licence_of(dist: metadata.Distribution) -> str:
    """A distribution's licence: its SPDX ``License-Expression``, else its ``License`` field's
    first line, else its ``License ::`` classifiers."""
    md = dist.metadata
    if md.get("License-Expression"):
        return md["License-Expression"]
    lic = (md.get("License") or "").strip().splitlines()
    if lic and len(lic[0]) < 80 and lic[0].upper() != "UNKNOWN":
        return lic[0]
    found = [c.split("::")[-1].strip() for c in md.get_all("Classifier") or [] if c.startswith("License ::")]
    return ", ".join(found) or "see its licence file"


def home_of(dist: metadata.Distribution) -> str:
    md = dist.metadata
    if md.get("Home-page"):
        return md["Home-page"]
    for url in md.get_all("Project-URL") or []:
        label, _, link = url.partition(",")
        if label.strip().lower() in ("homepage", "home", "source", "repository", "source code"):
            return link.strip()
    return "https://pypi.org/project/" + md["Name"]


def wheel_notices(dists: list[metadata.Distribution]) -> str:
    lines = ["Third-party software a Coverfire wheel installs", "=" * 47, "",
             "Coverfire itself is under the MIT licence (LICENSE). Installing its wheel (pip, pipx)",
             "also installs these distributions from PyPI, each with its own licence files:", ""]
    for d in dists:
        lines.append(f"* {_norm(d.metadata['Name'])}: {licence_of(d)} ({home_of(d)})")
    lines += ["", "Made by packaging/third_party_notices.py; the standalone bundle carries a longer",
              "notice with every licence text and the libraries it bundles.", ""]
    return "\n".join(lines)


def _texts(dist: metadata.Distribution) -> list[tuple[str, str]]:
    """(file name, text) of each licence file a distribution installed."""
    out = []
    for f in dist.files or []:
        if _LICENSE_FILE.search(str(f)) and not str(f).endswith((".py", ".pyc")):
            try:
                out.append((str(f), Path(dist.locate_file(f)).read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
    for name in EXTRA_TEXTS.get(_norm(dist.metadata["Name"]), ()):
        out.append((f"packaging/licenses/{name}", (LICENSES / name).read_text(encoding="utf-8")))
    return out


def _owner_map(dists: list[metadata.Distribution]) -> dict[str, str]:
    """Real path of each file a distribution installed -> the distribution's name."""
    owners = {}
    for d in dists:
        for f in d.files or []:
            owners[os.path.realpath(d.locate_file(f))] = d.metadata["Name"]
    return owners


def _system_package(path: str) -> tuple[str | None, str | None]:
    """(package, its copyright text) of a system library (Debian and derivatives: dpkg)."""
    for candidate in dict.fromkeys([path, os.path.realpath(path)]):
        try:
            res = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None, None
        if res.returncode == 0 and ":" in res.stdout:
            pkg = res.stdout.split(":", 1)[0].strip()
            base = pkg.split(":")[0]
            for doc in (Path("/usr/share/doc") / base / "copyright", Path("/usr/share/doc") / pkg / "copyright"):
                if doc.is_file():
                    return base, doc.read_text(encoding="utf-8", errors="replace")
            return base, None
    return None, None


def write_bundle_notices(out: Path, binaries, dists: list[metadata.Distribution] | None = None) -> Path:
    """Write the bundle's notices to ``out`` from PyInstaller's ``binaries`` (``(dest, src,
    kind)``) and the distributions bundled (default: the closure of the dependencies)."""
    dists = closure(project_dependencies()) if dists is None else dists
    owners = _owner_map(dists)
    base = os.path.realpath(sys.base_prefix)
    covered: list[tuple[str, str]] = []
    system: dict[str, tuple[str | None, list[str]]] = {}
    for dest, src, _kind in binaries:
        dest = dest.replace("\\", "/")
        real = os.path.realpath(src)
        name = owners.get(real)
        if name is None and (real.startswith(base + os.sep) or Path(dest).name.startswith(("libpython", "python"))):
            name = "Python"
        if name is None:
            pkg, text = _system_package(src)
            key = pkg or Path(dest).name
            system.setdefault(key, (text, []))[1].append(dest)
            name = f"system package {pkg}" if pkg else "a library of the build machine (no package found)"
        covered.append((dest, name))
    v = sys.version_info
    parts = ["Third-party software in the Coverfire bundle", "=" * 44, "",
             "Coverfire itself is under the MIT licence (LICENSE, beside this file).",
             f"The bundle carries Python {v.major}.{v.minor}.{v.micro}, the Python distributions below, Qt, and",
             "the shared libraries they need, each under its own licence, as listed here.", "",
             "Contents", "--------", f"* Python {v.major}.{v.minor}.{v.micro}: PSF-2.0"]
    parts += [f"* {d.metadata['Name']} {d.version}: {licence_of(d)} ({home_of(d)})" for d in dists]
    parts += [f"* {pkg} (system library): see below" for pkg in sorted(system)]
    parts += ["* PyInstaller's bootloader: GPL-2.0-or-later with the PyInstaller bootloader exception "
              "(https://pyinstaller.org)", ""]
    parts += ["Qt and PySide6", "--------------", QT_NOTE, ""]
    py_licence = Path(sys.base_prefix) / "lib" / f"python{v.major}.{v.minor}" / "LICENSE.txt"
    if not py_licence.is_file():
        py_licence = Path(sys.base_prefix) / "LICENSE.txt"
    parts += [f"Python {v.major}.{v.minor}.{v.micro}", "-" * 11,
              py_licence.read_text(encoding="utf-8", errors="replace") if py_licence.is_file()
              else "PSF-2.0: https://docs.python.org/3/license.html", ""]
    for d in dists:
        title = f"{d.metadata['Name']} {d.version} ({licence_of(d)})"
        parts += [title, "-" * len(title)]
        texts = _texts(d)
        if not texts:
            parts += [f"(no licence file in its distribution; licence: {licence_of(d)}; {home_of(d)})", ""]
        for fname, text in texts:
            parts += [f"[{fname}]", text.rstrip(), ""]
    for pkg in sorted(system):
        text, files = system[pkg]
        title = f"{pkg} (system library: {', '.join(Path(f).name for f in files)})"
        parts += [title, "-" * len(title), text.rstrip() if text else "(no copyright file found on the build machine)", ""]
    parts += ["PyInstaller's bootloader", "------------------------",
              "The executable's start-up code is PyInstaller's bootloader, under the GPL-2.0-or-later with this",
              "exception: \"In addition to the permissions in the GNU General Public License, the authors give",
              "you unlimited permission to link or embed compiled bootloader and related files into",
              "combinations with other programs, and to distribute those combinations without any",
              "restriction coming from the use of those files.\" (https://github.com/pyinstaller/pyinstaller)", ""]
    parts += ["Every binary in the bundle and what covers it", "-" * 45]
    parts += [f"{dest}: {name}" for dest, name in sorted(covered)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return out


def check_bundle(folder: Path) -> list[str]:
    """What is wrong with a built bundle's notices (empty: nothing): LICENSE and the notices
    there, every binary in it listed, nothing of :data:`FORBIDDEN`."""
    found = sorted(folder.rglob(NOTICES))
    problems = []
    if not found:
        return [f"no {NOTICES} in {folder}"]
    notices = found[0]
    if not (notices.parent / "LICENSE").is_file():
        problems.append(f"no LICENSE beside {notices}")
    text = notices.read_text(encoding="utf-8")
    listed = {line.split(": ", 1)[0] for line in text.split("Every binary in the bundle and what covers it", 1)[-1].splitlines()}
    for f in sorted(folder.rglob("*")):
        if f.is_file() and not f.is_symlink() and _BINARY.search(f.name):
            rel = f.relative_to(notices.parent).as_posix()
            if FORBIDDEN.search(rel):
                problems.append(f"{rel} is in the bundle (readline and OpenSSL are left out)")
            if rel not in listed:
                problems.append(f"{rel} is not in {NOTICES}")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    w = sub.add_parser("wheel")
    w.add_argument("-o", "--output", type=Path)
    w.add_argument("--check", type=Path)
    b = sub.add_parser("check-bundle")
    b.add_argument("folder", type=Path)
    a = p.parse_args(argv)
    if a.what == "wheel":
        text = wheel_notices(closure(project_dependencies()))
        if a.check:
            have = a.check.read_text(encoding="utf-8") if a.check.is_file() else ""
            if have != text:
                import difflib

                sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True),
                                                           str(a.check), "this environment"))
                print(f"third_party_notices: {a.check} is not what this environment installs; "
                      f"run python packaging/third_party_notices.py wheel -o {a.check}", file=sys.stderr)
                return 1
            print(f"third_party_notices: {a.check} names the {text.count(chr(10) + '* ')} distributions installed")
            return 0
        if a.output:
            a.output.write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    problems = check_bundle(a.folder)
    for line in problems:
        print(f"third_party_notices: {line}", file=sys.stderr)
    if not problems:
        print(f"third_party_notices: every binary in {a.folder} is in its {NOTICES}; no readline, no OpenSSL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
