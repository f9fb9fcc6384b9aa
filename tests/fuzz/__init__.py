"""The fuzz campaign (issues 15 and 25): seeded mutations of the demo encounters and the shared
samples, and the attacks a shared file can make (SVG bombs, local paths in every picture
field, tiny and huge maps, out-of-range attributes, type coercions, bombs under the caps,
concurrent writers), each case run in a long-lived worker process under a memory limit and a
time limit, and classified (refused cleanly / accepted and round-trips / crashed / hung /
memory blow-up / memory held from earlier cases / cannot be saved / cannot be reopened /
refused without naming the file / local file pulled in / changed in silence).

* ``tests/fuzz/test_campaign.py`` runs a small seeded budget in CI (one case of each kind and
  the cases that once failed) and the runner's self-test;
* ``python -m tests.fuzz --count N [--kind KIND ...] [--seed S] [--jobs J] [--report F]`` runs a
  large one by hand and prints the counts table, with each kind's CPU time, largest peak
  resident memory and the load (README, "Reliability").

Modules: :mod:`tests.fuzz.mutate` (the mutations), :mod:`tests.fuzz.kinds` (what each kind
of input goes through and what it checks), :mod:`tests.fuzz.worker` (cases under limits,
measured: CPU, peak RSS, standard error), :mod:`tests.fuzz.runner` (the pool and the table).
"""
