"""The tests' default timeouts stretch with the machine's load (tests/conftest.py): a hang
still ends, a test slowed down by other processes is not taken for one."""

from __future__ import annotations

import pytest

from tests.conftest import MAX_STRETCH, timeout_stretch


def test_a_quiet_or_busy_machine_keeps_the_timeouts():
    assert timeout_stretch(0.3, 2) == 1.0
    assert timeout_stretch(2.0, 2) == 1.0  # one process a core


def test_a_loaded_machine_stretches_them_by_its_load_a_core_up_to_a_limit():
    assert timeout_stretch(6.0, 2) == 3.0
    assert timeout_stretch(15.0, 2) == MAX_STRETCH == 5.0
    assert timeout_stretch(4.0, 0) == 4.0  # (no core count: one core)


def test_a_test_of_its_own_keeps_its_own_timeout(request):
    assert request.node.get_closest_marker("timeout").args[0] == 7


test_a_test_of_its_own_keeps_its_own_timeout = pytest.mark.timeout(7)(test_a_test_of_its_own_keeps_its_own_timeout)
