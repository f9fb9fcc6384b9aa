"""Write ``recorded-fight.json``: the SR5 demo with a recorded fight of three Combat Turns
(issue 31: the after-action report's demo), played through the engine's ``RuleSystem`` with
seeded dice, as the window would record it (:func:`engine.record.extend` after every
commit).

Vex (a ganger) is hidden from the players, so the players' report shows how hidden tokens
are left out. Run from the checkout: ``python assets/encounters/make_recorded_fight.py``.
``play`` is also what bench/bench_record.py plays on a big scene.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from engine import record  # noqa: E402
from engine.errors import IllegalActionError  # noqa: E402
from engine.files import load_encounter, save_encounter  # noqa: E402
from engine.rules import MoveTo  # noqa: E402

OUT = HERE / "recorded-fight.json"


def _do(enc, system, data, *, actor=None, targets=(), dice=None):
    out = system.apply(enc, system.action_from_data(data), dice)
    return record.extend(enc, out.encounter, label=out.label, actor=actor, targets=targets)


def _nearest_foe(enc, me, rng):
    foes = [t for t in enc.tokens if t.side != me.side and t.side != "neutral"]
    foes.sort(key=lambda t: math.hypot(t.x - me.x, t.y - me.y))
    return foes[0] if foes and rng.random() < 0.8 else (foes[1] if len(foes) > 1 else None)


def play(enc, rounds: int, seed: int = 7, *, fighters: int | None = None):
    """``enc`` after ``rounds`` Combat Turns: each acting character steps a metre toward
    the nearest foe now and then, and fires at it (refused attacks are skipped); with
    ``fighters`` only the first that many phases of a turn do so, the rest end their phase."""
    system = enc.system
    rng = random.Random(seed)
    for _ in range(rounds):
        entered = {t.id: rng.randint(6, 22) for t in enc.tokens if t.side != "neutral"}
        enc = _do(enc, system, {"kind": "start_turn", "entered": entered})
        turn = system.round_number(enc)
        phases = 0
        while True:
            st = system.settings(enc)
            actor = st.acting
            if actor is None or system.round_number(enc) != turn:
                break
            phases += 1
            if fighters is not None and phases > fighters:
                enc = _do(enc, system, {"kind": "end_phase"}, actor=actor)
                continue
            me = enc.token(actor)
            foe = _nearest_foe(enc, me, rng)
            if foe is not None and rng.random() < 0.5:
                d = math.hypot(foe.x - me.x, foe.y - me.y)
                if d > 3:
                    to = (me.x + (foe.x - me.x) / d, me.y + (foe.y - me.y) / d)
                    out = system.on_moves(enc, [MoveTo(actor, to)])
                    enc = record.extend(enc, out.encounter, label=out.label, actor=actor)
                    me = enc.token(actor)
            if foe is not None:
                try:
                    enc = _do(enc, system, {"kind": "attack", "attacker": actor, "targets": [foe.id]},
                              actor=actor, targets=(foe.id,))
                except IllegalActionError:
                    pass
            enc = _do(enc, system, {"kind": "end_phase"}, actor=actor)
    return enc


def main() -> int:
    enc = load_encounter(HERE / "demo.json")
    vex = enc.token("ganger-6")
    enc = enc.model_copy(update={
        "name": "Recorded fight: the warehouse (demo)",
        "tokens": tuple(t.model_copy(update={"hidden": True}) if t is vex else t for t in enc.tokens)})
    enc = play(enc, rounds=3)
    save_encounter(enc, OUT)
    print(f"{OUT.name}: {len(enc.record.steps)} steps over {enc.system.round_number(enc)} Combat Turns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
