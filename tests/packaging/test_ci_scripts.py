"""The README's two set-up commands and what CI runs stay the same commands."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^    (bash \.ci/install && .+)$", section, flags=re.M)


def test_the_readme_opens_with_two_commands_run_from_the_checkouts_venv():
    assert _setup_commands() == ["bash .ci/install && .venv/bin/coverfire",
                                 "bash .ci/install && .venv/bin/python -m pytest"]
    head = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:20])
    assert all(c in head for c in _setup_commands())


def test_ci_runs_exactly_the_readmes_test_command():
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert _setup_commands()[1] in lines


def test_install_never_calls_pip_outside_the_venv():
    script = (ROOT / ".ci" / "install").read_text()
    pip_lines = [ln for ln in script.splitlines() if "pip install" in ln and not ln.lstrip().startswith("#")]
    assert pip_lines and all(ln.lstrip().startswith('"$VENV/bin/python" -m pip install') for ln in pip_lines)
    assert '-m venv' in script and "python3-venv" in script


def test_ci_runs_every_check_after_the_suite():
    """The lowest Python and pins (.ci/check-lowest) are CI too, not a run by hand: each check
    is a step of its own, after the README's suite, none behind a condition."""
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    steps = [ln for ln in lines if ln.startswith("step ")]
    assert steps == ["step check-lowest bash .ci/check-lowest", "step check-wheel bash .ci/check-wheel",
                     "step check-bundle bash .ci/check-bundle"]
    assert lines.index(_setup_commands()[1]) < lines.index(steps[0])
