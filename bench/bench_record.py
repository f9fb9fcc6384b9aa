"""The recorded fight's costs on a big scene (issue 31: "saving a 20-round fight of the
200-token scene stays within the save budget of Never freeze", 50 ms a GUI-thread turn).

Plays ``--rounds`` SR5 Combat Turns on bench's 200-token / 2,000-obstacle scene
(:data:`bench.scene.LARGE`; every token takes its phases, the first ``--fighters`` of each
turn move and fire: assets/encounters/make_recorded_fight.py's ``play``), then measures, in
CPU time of this thread:

* ``record step``: what :func:`engine.record.extend` adds to a commit (mean and worst);
* ``save, kept texts``: the file text of the encounter after one more step, by the window's
  writer (:class:`engine.encounter_text.EncounterText`, texts kept from the save before),
  and the atomic write of it;
* ``save, first``: the same with nothing kept (the first save after an open; the window
  makes the texts ahead in idle turns, :meth:`EncounterText.warm`);
* ``warm turn``: the longest :meth:`EncounterText.warm` slice;
* ``open``: reading the file back with the record checked step by step;
* the record's steps and bytes.

    python bench/bench_record.py [--rounds 20] [--fighters 10] [--keep FIGHT.coverfire.json]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assets.encounters.make_recorded_fight import play  # noqa: E402
from bench.scene import LARGE, make_scene  # noqa: E402
from engine import record  # noqa: E402
from engine.encounter_text import EncounterText  # noqa: E402
from engine.files import atomic_write_bytes, load_encounter  # noqa: E402


def cpu_ms(fn, *a, **k):
    t = time.thread_time()
    out = fn(*a, **k)
    return (time.thread_time() - t) * 1000, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--fighters", type=int, default=10)
    ap.add_argument("--keep", type=Path, help="also write the fight to this file (for bench_record_save.py)")
    args = ap.parse_args(argv)
    enc = make_scene(**LARGE).model_copy(update={"ruleset": "sr5"})
    t0 = time.perf_counter()
    costs: list[float] = []
    real_extend = record.extend

    def timed(*a, **k):
        ms, out = cpu_ms(real_extend, *a, **k)
        costs.append(ms)
        return out

    import assets.encounters.make_recorded_fight as mk
    mk.record.extend = timed
    try:
        enc = play(enc, rounds=args.rounds, fighters=args.fighters)
    finally:
        mk.record.extend = real_extend
    played = time.perf_counter() - t0
    rec = enc.record
    writer = EncounterText()
    first_ms, text = cpu_ms(writer.text, enc)
    out = Path(tempfile.mkdtemp()) / "fight.coverfire.json"
    data = text.encode("utf-8")
    write_ms, _ = cpu_ms(atomic_write_bytes, out, data)
    system = enc.system
    nxt = system.apply(enc, system.action_from_data({"kind": "end_phase"})) if system.settings(enc).acting else None
    after = record.extend(enc, nxt.encounter, label=nxt.label) if nxt is not None else enc
    kept_ms, text2 = cpu_ms(writer.text, after)
    write2_ms, _ = cpu_ms(atomic_write_bytes, out, text2.encode("utf-8"))
    warm_writer = EncounterText()
    worst_warm = 0.0
    while True:
        ms, more = cpu_ms(warm_writer.warm, after)
        worst_warm = max(worst_warm, ms)
        if not more:
            break
    if args.keep:
        atomic_write_bytes(args.keep, text2.encode("utf-8"))
    open_ms, back = cpu_ms(load_encounter, out)
    assert back.record == after.record
    load = os.getloadavg()[0]
    rec_bytes = len(text2) - len(EncounterText().text(after.model_copy(update={"record": None})))
    print(f"bench_record: {args.rounds} rounds on {len(enc.tokens)} tokens / {len(enc.obstacles)} obstacles, "
          f"{len(after.record.steps):,} steps ({sum(s.kind != 'edit' for s in after.record.steps):,} stops), "
          f"played in {played:.0f} s; load {load:.1f}")
    print(f"  record: {rec_bytes / 1e6:.2f} MB in a {len(text2) / 1e6:.2f} MB file "
          f"({rec_bytes / max(1, len(after.record.steps)):.0f} bytes a step)")
    print(f"  record step (extend, per commit): mean {sum(costs) / len(costs):.2f} ms, worst {max(costs):.1f} ms CPU")
    print(f"  save, kept texts: text {kept_ms:.1f} ms + write {write2_ms:.1f} ms CPU (budget 50 ms)")
    print(f"  save, first (nothing kept): text {first_ms:.0f} ms + write {write_ms:.1f} ms CPU; "
          f"warm slices at most {worst_warm:.1f} ms")
    print(f"  open with the record checked: {open_ms:.0f} ms CPU")
    del rec
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
