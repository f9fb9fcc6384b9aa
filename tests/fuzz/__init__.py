"""The fuzz campaign (issue 15): seeded mutations of the demo encounters and the shared
samples, each case run in a worker process under a memory limit and a time limit, and
classified (refused cleanly / accepted and round-trips / crashed / hung / memory blow-up /
cannot be saved / cannot be reopened).

* ``tests/fuzz/test_campaign.py`` runs a small seeded budget in CI and asserts no case of a
  failing class;
* ``python -m tests.fuzz --count N [--kind KIND ...] [--seed S] [--jobs J]`` runs a large
  one by hand and prints the counts table (README, "Reliability").

Modules: :mod:`tests.fuzz.mutate` (the mutations), :mod:`tests.fuzz.kinds` (what each kind
of input goes through), :mod:`tests.fuzz.worker` (one case under limits),
:mod:`tests.fuzz.runner` (the pool and the table).
"""
