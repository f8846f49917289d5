"""The engine of `tirxc sim` (docs/sim.md): threads as fibers, barriers and warp collectives as
scheduling points with CUDA's results, located errors for deadlocks, traps and limits, and the
CuPy launcher's checks on NumPy arguments."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from transpiler import sim

KERNELS = Path(__file__).with_name("kernels")


@pytest.fixture(scope="module")
def votes():
    return sim.load(KERNELS / "warp_votes.tx")


@pytest.fixture(scope="module")
def broken():
    return sim.load(KERNELS / "broken.tx")


def _run_votes(votes):
    results = np.zeros((4, 64, 8), np.uint32)
    count = np.zeros(1, np.int32)
    votes.warp_votes(results, count)
    return results, count


def test_warp_votes_and_block_count_have_cudas_results(votes):
    results, _ = _run_votes(votes)
    assert (results[..., 0] == 0xAAAAAAAA).all()  # ballot of the odd lanes
    assert (results[..., 1] == 1).all() and (results[..., 2] == 1).all()  # any / all
    assert (results[..., 3] == sum(range(32))).all()  # __reduce_add_sync
    assert (results[..., 4] == 32).all()  # __syncthreads_count of the even threads


def test_activemask_is_the_lanes_that_reach_it_together(votes):
    results, _ = _run_votes(votes)
    lanes = np.arange(64) % 32
    assert (results[:, lanes < 8, 5] == 0xFF).all()
    assert (results[:, lanes >= 8, 5] == 0).all()


def test_shuffles_with_a_width_stay_in_their_group(votes):
    results, _ = _run_votes(votes)
    lane = np.arange(64) % 32
    up = np.where(lane % 8 >= 1, lane - 1, lane)
    down = np.where(lane % 8 + 2 < 8, lane + 2, lane)
    assert (results[:, :, 6] == up).all() and (results[:, :, 7] == down).all()


def test_atomics_count_every_thread_of_every_block(votes):
    _, count = _run_votes(votes)
    assert count[0] == 4 * 64


def test_a_deadlock_names_the_waiting_threads_and_what_they_wait_at(broken):
    with pytest.raises(sim.SimError) as err:
        broken.deadlock(np.zeros(64, np.float32))
    message = str(err.value)
    assert "deadlock" in message and "block (0, 0, 0)" in message
    assert "threads 0-15 wait at __shfl_xor_sync (mask 0xffffffff)" in message
    assert "threads 16-31 wait at __syncthreads" in message


def test_an_assertion_stops_the_run_at_its_tx_line(broken):
    values = np.ones(64, np.float32)
    values[5] = -1
    with pytest.raises(sim.SimError) as err:
        broken.checked(values)
    assert "thread (5, 0, 0)" in str(err.value) and "broken.tx:27:5: A must not be negative" in str(err.value)


def test_the_step_limit_bounds_a_block(broken):
    with pytest.raises(sim.SimError, match="step limit"):
        broken.many_barriers(np.zeros(64, np.float32), options=sim.Options(step_limit=5000))


def test_grid_limit_runs_only_the_first_blocks(votes):
    results = np.zeros((4, 64, 8), np.uint32)
    votes.warp_votes(results, np.zeros(1, np.int32), options=sim.Options(block_limit=1))
    assert (results[0, :, 3] == 496).all() and (results[1:] == 0).all()


def test_arguments_are_refused_with_the_launchers_messages(votes):
    with pytest.raises(ValueError, match="shape"):
        votes.warp_votes(np.zeros((4, 64, 7), np.uint32), np.zeros(1, np.int32))
    with pytest.raises(TypeError, match="must have dtype uint32"):
        votes.warp_votes(np.zeros((4, 64, 8), np.float32), np.zeros(1, np.int32))


def test_keyword_arguments_name_parameters(votes):
    results = np.zeros((4, 64, 8), np.uint32)
    count = np.zeros(1, np.int32)
    votes.warp_votes(C=count, R=results)
    assert count[0] == 256


def test_what_cannot_run_yet_is_refused_by_name_at_its_line():
    from tests.conftest import ROOT

    with pytest.raises(sim.SimLoadError) as err:
        sim.load(ROOT / "tests" / "sim" / "tcgen05" / "shift_refused.tx", arch="sm_100a")
    assert "shift_refused.tx:17:9: error[E0810]: not supported yet by tirxc sim: tcgen05.shift" in str(err.value)
