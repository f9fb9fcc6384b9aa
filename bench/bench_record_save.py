"""The save and first-step costs of a long recorded fight read from a file (issue 31), as the
window meets them after opening it: ``python bench/bench_record_save.py FILE`` (a file
bench/bench_record.py wrote, e.g. its 20-round fight on the 200-token scene, kept with
``--keep PATH``). CPU time of this thread; the load is printed beside.

* ``open``: reading it, the record checked step by step (the window reads a big file in its
  loader process);
* ``prepare``: :func:`engine.record.prepare`, which the window runs in a worker thread;
* ``step``: the next action's :func:`engine.record.extend`, prepared and not;
* ``save``: the file text after one more action, with the last save's texts kept, and the
  atomic write (budget: one GUI-thread turn, 50 ms);
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import record  # noqa: E402
from engine.encounter_text import EncounterText  # noqa: E402
from bench.bench_record import cpu_ms  # noqa: E402
from engine.files import atomic_write_bytes, load_encounter  # noqa: E402


def main(argv=None) -> int:
    path = Path((argv or sys.argv[1:])[0])
    open_ms, enc = cpu_ms(load_encounter, path)
    gc.freeze()  # (as the window does after reading a big file)
    system = enc.system
    writer = EncounterText()
    while writer.warm(enc, 0.5):
        pass
    writer.text(enc)
    acting = system.settings(enc).acting
    action = {"kind": "end_phase"} if acting else {"kind": "start_turn",
                                                   "entered": {t.id: 10 for t in enc.tokens}}
    out = system.apply(enc, system.action_from_data(action))
    record._LAST.clear()
    cold_ms, _ = cpu_ms(record.extend, enc, out.encounter, label=out.label)
    record._LAST.clear()
    prep_ms, _ = cpu_ms(record.prepare, enc)
    step_ms, after = cpu_ms(record.extend, enc, out.encounter, label=out.label)
    saves = []
    target = Path(tempfile.mkdtemp()) / "fight.coverfire.json"
    for _ in range(5):
        text_ms, text = cpu_ms(writer.text, after)
        write_ms, _ = cpu_ms(atomic_write_bytes, target, text.encode("utf-8"))
        saves.append((text_ms, write_ms))
        nxt = system.apply(after, system.action_from_data({"kind": "end_phase"})) \
            if system.settings(after).acting else None
        if nxt is None:
            break
        after = record.extend(after, nxt.encounter, label=nxt.label)
    print(f"bench_record_save: {path.name}: {len(enc.record.steps):,} steps, {path.stat().st_size / 1e6:.1f} MB; "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"  open (record checked): {open_ms:.0f} ms CPU; prepare (worker thread): {prep_ms:.0f} ms")
    print(f"  next step: {step_ms:.1f} ms prepared, {cold_ms:.0f} ms not")
    best = min(saves, key=lambda s: s[0] + s[1])
    worst = max(saves, key=lambda s: s[0] + s[1])
    print(f"  save after one more action: text {best[0]:.1f} + write {best[1]:.1f} ms at best, "
          f"{worst[0]:.1f} + {worst[1]:.1f} ms at worst of {len(saves)} (budget 50 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
