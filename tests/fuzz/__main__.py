"""``python -m tests.fuzz [--count N] [--kind KIND ...] [--seed S] [--jobs J] [--nice N]
[--recycle N] [--report FILE]``: run the campaign and print the counts table; ``--case SEED:KIND:I``
replays one case in this process (with its detail)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tests.fuzz import runner
from tests.fuzz.kinds import KINDS, run_case


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--count", type=int, default=100, help="cases of each kind (default 100)")
    ap.add_argument("--kind", action="append", choices=sorted(KINDS), help="a kind (default: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--nice", type=int, default=10, help="niceness of the workers (default 10)")
    ap.add_argument("--timeout", type=float, default=runner.TIMEOUT)
    ap.add_argument("--recycle", type=int, default=0,
                    help="replace each worker after this many cases (default 0: only when it dies)")
    ap.add_argument("--report", help="write the counts and every failing case (JSON) here")
    ap.add_argument("--case", help="replay one case, e.g. 1:encounter:17")
    ap.add_argument("--replay", help="run again, in workers, the failing cases of a --report FILE")
    args = ap.parse_args(argv)
    if args.case:
        outcome, detail = run_case(args.case, Path(tempfile.mkdtemp()) / "case")
        print(f"{args.case}: {outcome}: {detail}")
        return 0
    kinds = args.kind or list(KINDS)
    last = [0.0]
    told = [0]

    started = time.monotonic()

    def write_report(campaign, partial: bool) -> None:
        if args.report:
            Path(args.report).write_text(json.dumps({
                "counts": {k: dict(v) for k, v in campaign.counts.items()}, "failures": campaign.failures,
                "cpu": dict(campaign.cpu), "cpu_max": dict(campaign.cpu_max), "rss": dict(campaign.rss),
                "load": campaign.load(),
                "seconds": campaign.seconds or time.monotonic() - started, "seed": args.seed,
                "partial": partial}, indent=1, ensure_ascii=True), encoding="utf-8")

    def progress(done, total, campaign):
        for f in campaign.failures[told[0]:]:  # each failing case as soon as it is known
            print(f"  FAIL {f['case']}: {f['outcome']}: {f['detail'][:400]}", file=sys.stderr, flush=True)
        told[0] = len(campaign.failures)
        now = time.monotonic()
        if now - last[0] > 10 or done == total:
            last[0] = now
            print(f"  {done:,}/{total:,} cases, {campaign.bad():,} failing", file=sys.stderr, flush=True)
            write_report(campaign, partial=True)  # a campaign stopped early keeps its counts

    if args.replay:
        names = [f["case"] for f in json.loads(Path(args.replay).read_text(encoding="utf-8"))["failures"]]
        campaign = runner.run_cases(names, args.jobs, timeout=args.timeout, nice=args.nice, progress=progress,
                                    recycle=args.recycle)
    else:
        campaign = runner.run(kinds, args.count, args.seed, args.jobs, timeout=args.timeout, nice=args.nice,
                              progress=progress, recycle=args.recycle)
    print(campaign.table())
    print(f"\n{sum(sum(c.values()) for c in campaign.counts.values()):,} cases in {campaign.seconds:.0f} s "
          f"(seed {args.seed}, {args.jobs} workers, {args.timeout:g} s of CPU and {runner.MEMORY >> 20} MiB each; "
          f"load {campaign.load()})")
    for f in campaign.failures[:40]:
        print(f"  {f['case']}: {f['outcome']}: {f['detail'][:400]}")
    write_report(campaign, partial=False)
    return 1 if campaign.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
