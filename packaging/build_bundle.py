"""Build Coverfire's standalone one-folder bundle with PyInstaller (docs/packaging.md).

    python -m pip install ".[bundle]"        # once, in a virtual environment
    python packaging/build_bundle.py         # -> dist/coverfire/ (Linux, Windows) or
                                             #    dist/Coverfire.app (macOS)
    python packaging/build_bundle.py --check # then start it offscreen and export the demo

The same command builds on Linux, Windows and macOS (PyInstaller does not cross-compile:
build on each). It bundles this checkout's code with the Python, Qt and libraries of the
interpreter that runs it, leaves out what packaging/bundle_filter.py lists, then prints the
bundle's size and the time the build took. ``--check`` runs the built program: ``--version``,
``export demo`` to a PNG, and the window on the demo for a few seconds, all offscreen.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "coverfire.spec"


def folder_size(path: Path) -> int:
    """Bytes in every file under ``path`` (links not followed)."""
    return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def executable(dist: Path) -> Path:
    """The built command-line program inside ``dist`` (packaging/bundle_layout.py)."""
    sys.path.insert(0, str(ROOT / "packaging"))
    from bundle_layout import command_line

    return command_line(dist, sys.platform)


def build(dist: Path, work: Path) -> float:
    """Run PyInstaller on the spec; returns the seconds it took."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        raise SystemExit('PyInstaller is not installed here: python -m pip install ".[bundle]"') from None
    t0 = time.monotonic()
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    res = subprocess.run(cmd, cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"PyInstaller failed (exit {res.returncode})")
    return time.monotonic() - t0


def tidy(bundle: Path) -> list[str]:
    """After PyInstaller: strip the debug symbols of ``libpython`` when it has them (a pyenv
    build's is 23 MB, 6 MB stripped; stripping everything breaks numpy, so nothing else), and
    remove links left pointing at libraries the filter dropped. Returns what it did."""
    done = []
    strip = shutil.which("strip")
    if sys.platform.startswith("linux") and strip:
        for lib in bundle.rglob("libpython*.so*"):
            if lib.is_file() and not lib.is_symlink():
                before = lib.stat().st_size
                if subprocess.run([strip, "--strip-unneeded", str(lib)]).returncode == 0 and lib.stat().st_size < before:
                    done.append(f"stripped {lib.name}: {before / 2**20:.0f} -> {lib.stat().st_size / 2**20:.0f} MiB")
    for link in [p for p in bundle.rglob("*") if p.is_symlink() and not p.exists()]:
        link.unlink()
        done.append(f"removed dangling link {link.relative_to(bundle)}")
    return done


def check(dist: Path, seconds: float = 8.0) -> None:
    """Start the bundle as a GM would, offscreen, in a throwaway home: print its version,
    export the demo, and keep its window open on the demo for ``seconds``."""
    exe = executable(dist)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home),
                   XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"),
                   APPDATA=str(home / "AppData"), LOCALAPPDATA=str(home / "AppData" / "Local"))
        env.pop("PYTHONPATH", None)
        run = lambda *a, **k: subprocess.run([str(exe), *a], capture_output=True, text=True,  # noqa: E731
                                             env=env, cwd=tmp, **k)
        res = run("--version", timeout=60)
        if res.returncode != 0 or not res.stdout.strip():
            raise SystemExit(f"bundle --version failed: {res.stdout}{res.stderr}")
        print(f"bundle: coverfire --version -> {res.stdout.strip()}")
        png = home / "x.png"
        res = run("export", "demo", "-o", str(png), timeout=120)
        data = png.read_bytes() if png.exists() else b""
        if res.returncode != 0 or not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise SystemExit(f"bundle export failed: {res.stdout}{res.stderr}")
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        print(f"bundle: coverfire export demo -o x.png -> {w}x{h} PNG")
        try:
            res = run("demo", timeout=seconds)
        except subprocess.TimeoutExpired as exc:  # still running: the window is up
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        else:
            raise SystemExit(f"bundle window exited at once (status {res.returncode}): {res.stderr}")
        if "Traceback" in err or "not loaded" in err:
            raise SystemExit(f"bundle window reported errors:\n{err}")
        print(f"bundle: coverfire demo -> window open for {seconds:g} s without errors")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle goes (default dist/)")
    p.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's work folder")
    p.add_argument("--check", action="store_true", help="after building, start the bundle offscreen and export the demo")
    p.add_argument("--check-only", action="store_true", help="check a bundle already built in --dist")
    a = p.parse_args(argv)
    if not a.check_only:
        took = build(a.dist, a.work)
        bundle = a.dist / ("Coverfire.app" if sys.platform == "darwin" else "coverfire")
        for line in tidy(bundle):
            print(f"bundle: {line}")
        print(f"bundle: built {bundle} in {took:.0f} s, {folder_size(bundle) / 2**20:.0f} MiB")
    if a.check or a.check_only:
        check(a.dist)
    return 0


if __name__ == "__main__":
    sys.exit(main())
