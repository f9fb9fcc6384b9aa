"""``coverfire analyze``: the spatial answers for an encounter file, as a table or JSON.

For the attacker (``--attacker``, or each token in turn) and every other token: distance,
range band and modifier of the chosen weapon (``--weapon``, default the one it has ready),
cover fraction and class, the zones touching the target and the charge plan to it.

JSON (``--json``), one object per attacker (a list of them without ``--attacker``)::

    {"attacker": "sam", "weapon": "Ares Predator V",
     "targets": [{"id": "ork-1", "distance": 5.0,
                  "range": {"band": "short", "modifier": 0},
                  "cover": {"fraction": 0.0, "class": "none"},
                  "zones": ["sup-1"],
                  "charge": {"possible": true, "movement": 4.8,
                             "path": [[3, 6], [2.2, 6], [6.2, 6]], "reason": null}}]}

Numbers are rounded to millimetres (distances, paths) and to 0.1 % (cover fractions).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any, TextIO

from engine import clock
from engine.analysis import Tactics, TargetReport
from engine.errors import CoverfireError
from engine.files import load_encounter
from engine.model import Encounter
from geometry.cover import cover_percent


def _num(v: float, nd: int = 3) -> float:
    r = round(float(v), nd)
    return 0.0 if r == 0 else r


def target_json(r: TargetReport) -> dict[str, Any]:
    """One target's report as JSON-ready data (the issue's shape)."""
    out: dict[str, Any] = {
        "id": r.id,
        "distance": _num(r.distance),
        "range": None if r.range is None else {"band": r.range.band, "modifier": r.range.modifier},
        "cover": {"fraction": _num(r.cover.fraction), "class": r.cover.cls},
        "zones": list(r.zones),
    }
    c = r.charge
    if c is not None:
        out["charge"] = {
            "possible": bool(c.possible),
            "movement": None if c.movement is None else _num(c.movement),
            "path": [[_num(x), _num(y)] for x, y in c.path],
            "reason": c.reason,
        }
    else:
        out["charge"] = None
    return out


def attacker_report(tactics: Tactics, attacker: str, weapon: str | None = None) -> dict[str, Any]:
    """The JSON-ready report for one attacker against every other token."""
    w = tactics.weapon_of(attacker, weapon)
    reports = tactics.targets(attacker, weapon, charges=True)
    return {"attacker": attacker, "weapon": None if w is None else w.name,
            "targets": [target_json(r) for r in reports]}


#: Seconds between progress lines while every token is analysed in turn.
PROGRESS_EVERY = 2.0


def analyze(encounter: Encounter, attacker: str | None = None, weapon: str | None = None,
            progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Reports for the attacker, or for every token in turn; ``progress(done, total)`` is
    called after each attacker (every token's charge to every other is planned: at 1,000
    tokens that is a million plans and takes minutes)."""
    if weapon is not None and attacker is None:
        raise CoverfireError("--weapon needs --attacker (tokens carry different weapons)")
    tactics = Tactics(encounter)
    ids = [attacker] if attacker is not None else [t.id for t in encounter.tokens]
    if attacker is not None:
        encounter.token(attacker)  # unknown id -> UnknownIdError
    out = []
    for i, a in enumerate(ids):
        out.append(attacker_report(tactics, a, weapon))
        if progress is not None:
            progress(i + 1, len(ids))
    return out


def stderr_progress(err: TextIO | None = None, every: float = PROGRESS_EVERY) -> Callable[[int, int], None]:
    """A progress callback for :func:`analyze` that prints ``coverfire: analysed 120 of 1,009
    attackers (12 s)`` to ``err`` (stderr) once the work has taken ``every`` seconds, then
    every ``every`` seconds, and a last line when done; quick runs print nothing."""
    start = clock.now()
    last = [start]

    def progress(done: int, total: int) -> None:
        now = clock.now()
        if now - last[0] < every and not (done == total and last[0] > start):
            return
        last[0] = now
        (err or sys.stderr).write(f"coverfire: analysed {done:,} of {total:,} attackers, every other token's "
                                  f"cover, range and charge ({now - start:.0f} s)\n")
        (err or sys.stderr).flush()

    return progress


def _table(encounter: Encounter, data: dict[str, Any], out: TextIO) -> None:
    a = encounter.token(data["attacker"])
    name = f"{a.name} ({a.id})" if a.name else a.id
    weapon = data["weapon"] or "no weapon"
    out.write(f"{name}, {a.stance}, at ({a.x:g}, {a.y:g}) with {weapon}\n")
    if not data["targets"]:
        out.write("  no other tokens\n\n")
        return
    rows = [("target", "dist m", "range", "cover", "zones", "charge")]
    for t in data["targets"]:
        rg = t["range"]
        rng = "out of range" if rg is None and data["weapon"] else ("-" if rg is None else
                                                                     f"{rg['band']} {rg['modifier']:+d}")
        cov = f"{cover_percent(t['cover']['fraction'], t['cover']['class'])}% {t['cover']['class']}"
        ch = t["charge"]
        if ch is None:
            charge = "-"
        elif ch["possible"]:
            charge = f"{ch['movement']:.1f} m"
        else:
            charge = f"no: {ch['reason']}"
        rows.append((t["id"], f"{t['distance']:.1f}", rng, cov, ", ".join(t["zones"]) or "-", charge))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for k, r in enumerate(rows):
        cells = [r[0].ljust(widths[0]), r[1].rjust(widths[1])] + [r[i].ljust(widths[i]) for i in (2, 3, 4)]
        out.write("  " + "  ".join(cells) + "  " + r[5] + "\n")
        if k == 0:
            out.write("  " + "  ".join("-" * w for w in widths) + "  " + "-" * 6 + "\n")
    out.write("\n")


def _imported_line(encounter: Encounter) -> str | None:
    """For an encounter imported from a Foundry scene: the scene's walls, doors and lights
    as Foundry counts them beside what the map holds of them (walls merged end to end are
    fewer obstacles; a light with a dim ring is two)."""
    imported = getattr(encounter, "imported", None)
    imported = imported if isinstance(imported, dict) else {}
    own = imported.get("foundry_counts")
    if imported.get("kind") != "foundry" or not isinstance(own, dict):
        return None
    doors = sum(1 for o in encounter.obstacles if o.door)
    walls = sum(1 for o in encounter.obstacles if not o.door)
    sources = {getattr(li, "foundry_light", li.id) for li in encounter.lights}
    return (f"imported from Foundry ({imported.get('from', '')}): the scene has {own.get('walls', 0)} walls "
            f"({own.get('doors', 0)} doors), {own.get('lights', 0)} lights as Foundry counts them; on the map "
            f"{doors} doors, {walls} other obstacles, {len(sources)} lights ({len(encounter.lights)} light areas)")


def run_analyze(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """The ``coverfire analyze`` sub-command; errors are :class:`CoverfireError` (exit 2)."""
    out = out or sys.stdout
    encounter = load_encounter(args.file)
    reports = analyze(encounter, getattr(args, "attacker", None), getattr(args, "weapon", None),
                      progress=stderr_progress())
    if getattr(args, "json", False):
        data = reports[0] if getattr(args, "attacker", None) is not None else reports
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(f"{encounter.name}: {len(encounter.tokens)} tokens, {len(encounter.obstacles)} obstacles, "
                  f"{len(encounter.zones)} zones\n")
        source = _imported_line(encounter)
        out.write((source + "\n" if source else "") + "\n")
        for rep in reports:
            _table(encounter, rep, out)
    return 0
