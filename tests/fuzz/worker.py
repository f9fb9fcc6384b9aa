"""One fuzz worker: reads case names on stdin, answers ``{"case", "outcome", "detail",
"seconds"}`` JSON lines on stdout, under an address-space limit (``--memory`` bytes)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memory", type=int, default=1 << 30)
    ap.add_argument("--nice", type=int, default=0)
    args = ap.parse_args()
    if args.nice:
        os.nice(args.nice)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    out = sys.stdout
    sys.stdout = sys.stderr  # a case's own prints must not garble the answers
    from tests.fuzz import kinds

    for warm in (kinds._demos, kinds._uvtt, kinds._chummer, kinds._foundry, kinds._app):
        warm()
    import engine.analysis  # noqa: F401 - loaded before the limit, as the program would be
    import gui.snapshot  # noqa: F401
    import engine.importers.uvtt  # noqa: F401
    import engine.importers.chummer  # noqa: F401
    import engine.importers.detect  # noqa: F401
    import engine.importers.foundry  # noqa: F401

    resource.setrlimit(resource.RLIMIT_AS, (args.memory, args.memory))
    work = Path(tempfile.mkdtemp(prefix="coverfire-fuzz-"))
    out.write(json.dumps({"ready": os.getpid(), "work": str(work)}) + "\n")
    out.flush()

    def made() -> None:  # the runner times the case from here
        out.write(json.dumps({"made": True}) + "\n")
        out.flush()

    kinds.ON_INPUT_MADE.append(made)
    for line in sys.stdin:
        case = line.strip()
        if not case:
            continue
        t0 = time.monotonic()
        outcome, detail = kinds.run_case(case, work / "case")
        out.write(json.dumps({"case": case, "outcome": outcome, "detail": detail,
                              "seconds": round(time.monotonic() - t0, 3)}) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
