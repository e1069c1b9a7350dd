"""The GIL is released while a run goes on, progress is reported, and Ctrl-C stops a run."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import liebatch as lb

TOP = lb.model("heavy_top", preset="bruls_cardona")


def members_for(seconds, t=2.0):
    """Members whose run over (0, t) takes about `seconds` here, from a measured rate: the timing
    tests below hold on a faster or a busier machine."""
    y0 = np.repeat(TOP.initial[None, :], 2048, axis=0)
    t0 = time.monotonic()
    lb.solve(TOP, y0, t=(0, 0.5), h=1e-3, method="rkmk4")
    rate = 2048 * 0.5 / max(time.monotonic() - t0, 1e-3)  # member-time units per second
    return np.repeat(TOP.initial[None, :], max(64, int(seconds * rate / t)), axis=0)


def long_run(samples, **kw):
    # About a minute of CPU work on this machine if nothing stops it.
    y0 = np.repeat(TOP.initial[None, :], 20_000, axis=0)
    return lb.solve(TOP, y0, t=(0, 600), h=1e-3, samples=samples, method="rkmk4", **kw)


def test_other_python_threads_run_during_a_solve():
    count, stop = [0], threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1
    th = threading.Thread(target=counter)
    th.start()
    y0 = members_for(1.0)
    t0 = time.monotonic()
    lb.solve(TOP, y0, t=(0, 2), h=1e-3, method="rkmk4")
    seconds = time.monotonic() - t0
    stop.set()
    th.join()
    assert seconds > 0.2, "the run was too short to tell"
    assert count[0] >= 2e4 * seconds, (count[0], seconds)  # >= 1e5 in 5 s


def test_progress_calls_a_callable_with_the_fraction_done():
    seen = []
    lb.solve(TOP, members_for(1.0), t=(0, 2), h=1e-3, method="rkmk4", progress=seen.append)
    assert len(seen) >= 3 and all(0 <= f <= 1 for f in seen) and seen == sorted(seen)
    assert seen[-1] == 1.0  # the end is always reported


def test_run_config_reports_progress_to_a_callable():
    seen = []
    lb.run_config({"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t0": 0, "t1": 20}, "step": {"h": 1e-3},
                   "initial": {"state": [1, 1, 1], "ensemble": {"count": 2000, "scale": 0.1, "seed": 1}}},
                  "run", progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] == 1.0


def test_progress_must_be_a_flag_or_a_callable():
    with pytest.raises(TypeError, match="progress"):
        lb.solve(TOP, TOP.initial, t=(0, 0.01), h=1e-3, progress="yes")
    lb.solve(TOP, TOP.initial, t=(0, 0.01), h=1e-3, progress=np.False_)  # a numpy bool is a flag


def seconds_to_stop(after, run):
    """Wall seconds until `run()`, sent SIGINT (Ctrl-C) `after` seconds in, raised KeyboardInterrupt."""
    timer = threading.Timer(after, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run()
    stopped = time.monotonic() - t0
    timer.join()
    return stopped


@pytest.mark.parametrize("samples", [0, 2, 101])
def test_ctrl_c_stops_a_run_within_a_second(samples):
    before = len(os.listdir("/proc/self/task"))
    stopped = seconds_to_stop(2.0, lambda: long_run(samples))
    assert 2.0 <= stopped < 3.5, stopped  # within about a second, whatever the sampling
    # The run's thread has ended. (A joined thread, the timer's among them, leaves /proc a moment
    # after its join returns: a thread left running stays there.)
    for _ in range(200):
        if len(os.listdir("/proc/self/task")) == before:
            break
        time.sleep(0.005)
    assert len(os.listdir("/proc/self/task")) == before
    r = lb.solve(TOP, TOP.initial, t=(0, 0.01), h=1e-3)  # and the next call works
    assert r.final.status_names() == ["ok"]


def test_ctrl_c_stops_a_run_config_within_a_second():
    # Few members over a long span: one leg was the whole run (minutes), so Ctrl-C waited for it.
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "method": "rkmk4", "time": {"t0": 0, "t1": 1e5},
           "step": {"h": 1e-3}, "initial": {"ensemble": {"count": 8, "scale": 0.01}}, "outputs": {"samples": 2, "plot": False}}
    stopped = seconds_to_stop(1.0, lambda: lb.run_config(cfg, "run", threads=1))
    assert 1.0 <= stopped < 2.5, stopped


@pytest.mark.parametrize("simd", [True, False])
def test_ctrl_c_stops_a_long_adaptive_leg_within_a_second(simd):
    # An adaptive run pauses at 1/200 of its span: here that is tens of seconds, which Ctrl-C once
    # waited for. Members are interrupted within a leg now, on packs and one at a time.
    lorenz = lb.model("lorenz")
    y0 = np.ones((4, 3)) + np.arange(4)[:, None] * 1e-3
    stopped = seconds_to_stop(1.0, lambda: lb.solve(lorenz, y0, t=(0, 1e6), method="rkmk54", atol=1e-13, rtol=1e-13, threads=1,
                                                    simd=simd))
    assert 1.0 <= stopped < 2.5, stopped
    assert lb.solve(lorenz, y0, t=(0, 0.1), method="rkmk54", atol=1e-8).final.status_names() == ["ok"] * 4


def test_ctrl_c_stops_converge_within_a_second():
    # Its reference run, at a hundredth of the steps' step, has no pauses of its own.
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "time": {"t1": 10},
           "initial": {"ensemble": {"count": 4, "scale": 0.01}},
           "converge": {"methods": ["rkmk4"], "steps": [1e-3, 5e-4], "reference": {"h": 1e-7}}}
    stopped = seconds_to_stop(1.0, lambda: lb.run_config(cfg, "converge", threads=1))
    assert 1.0 <= stopped < 2.5, stopped


def test_an_exception_in_the_progress_callable_stops_the_run():
    def fail(_):
        raise RuntimeError("enough")
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="enough"):
        long_run(0, progress=fail)
    assert time.monotonic() - t0 < 2.0
