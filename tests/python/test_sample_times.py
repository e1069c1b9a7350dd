"""Sample times that coincide in rounding (a span of a few ulps of t0): every sample is recorded at
its documented time, also where two equal times lie on either side of a chunk's end. Once the
second of them was left to the next chunk, which wrote it one slot before its buffer: heap
corruption, an abort or a segmentation fault, or another member's data overwritten."""
import json
import subprocess

import numpy as np
import pytest

import liebatch as lb
from conftest import EXE


def sample_times(t0, t1, n):
    """t0 + (t1 - t0)·(k/(n - 1)), t1 for the last (README, outputs)."""
    k = np.arange(n, dtype=float)
    t = t0 + (t1 - t0) * (k / (n - 1))
    t[-1] = t1
    return t


@pytest.mark.parametrize("method,step", [("rkmk4", {"h": 1e-12}), ("rkmk54", {"adaptive": True, "h0": 1e-12})])
@pytest.mark.parametrize("packs", [True, False])
@pytest.mark.parametrize("samples", [66, 200])
@pytest.mark.parametrize("t1", [1.00000000000001, 1.0000000000000004])  # the second: seven samples round to t1, past chunk 2
def test_equal_sample_times_are_each_recorded(tmp_path, method, step, packs, samples, t1):
    t0 = 1.0
    times = sample_times(t0, t1, samples)
    assert (np.diff(times) == 0).any()  # the case: equal neighbours (at 66, samples 63 and 64, the end of chunk 0)
    # (A member that reached t1 in an earlier chunk left those rounding to t1 in a later one NaN.)
    states = [[0.3, 0.8, 0.5], [1, 0.2, 0.1], [0.1, 0.2, 1]]
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"model": {"name": "free_rigid_body"}, "method": method, "time": {"t0": t0, "t1": t1}, "step": step,
                               "initial": {"states": states}, "outputs": {"samples": samples, "plot": False}}))
    out = tmp_path / "c.h5"
    p = subprocess.run([EXE, "run", str(cfg), "-o", str(out), "-q"] + ([] if packs else ["--no-simd"]), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    o = lb.load(out)
    assert (o["final/status"] == 1).all()
    for m in range(len(states)):
        assert o["samples/t"][:, m].tobytes() == times.tobytes()
    y = o["samples/y"]
    assert np.isfinite(y).all()
    # Over a span of 1e-14 every sample is the initial state to round-off, and equal times give equal states.
    assert np.allclose(y, np.array(states).T[None], rtol=0, atol=1e-13)
    same = np.flatnonzero(np.diff(times) == 0)
    assert np.array_equal(y[same], y[same + 1])
