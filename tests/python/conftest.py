"""What the Python module's tests share: the `liebatch` command of the same build, run on a config."""
import json
import os
import subprocess

import numpy as np
import pytest

import liebatch as lb

EXE = os.environ.get("LIEBATCH_EXE", "")
SOURCE = os.environ.get("LIEBATCH_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def cli(tmp_path):
    """cli(config, command="run") runs `liebatch` on the config (a dict) and returns lb.load of its output."""
    if not EXE:
        pytest.fail("LIEBATCH_EXE is not set: run these tests through ctest (label python)")

    def run(config, command="run", *args):
        cfg = tmp_path / "config.json"
        cfg.write_text(json.dumps(config))
        out = tmp_path / "out.h5"
        if out.exists():
            out.unlink()
        p = subprocess.run([EXE, command, str(cfg), "-o", str(out), "-q", "--no-plot", "--force", *args],
                           capture_output=True, text=True)
        assert p.returncode in (0, 1), p.stderr
        return lb.load(out)
    return run


def assert_same(a, b, skip=()):
    """Every array of output a equals b's, bitwise (NaN where NaN), with the same shape and kind."""
    keys = sorted(k for k in a.keys() if not any(k.startswith(s) for s in skip))
    assert keys == sorted(k for k in b.keys() if not any(k.startswith(s) for s in skip))
    for k in keys:
        x, y = a[k], b[k]
        if isinstance(x, list):
            assert x == y, k
            continue
        assert x.shape == y.shape and x.dtype == y.dtype, (k, x.shape, y.shape, x.dtype, y.dtype)
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), k


def assert_same_run(a_path, b_path, aside=("created", "command_line")):
    """Outputs a and b (files) hold the same run: every array bitwise (assert_same), and every
    attribute, but the root's that say how the output was made (`aside`)."""
    a, b = lb.load(a_path), lb.load(b_path)
    assert_same(a, b)
    for where, attrs in a.attrs.items():
        skip = aside if where == "" else ()
        assert {k: v for k, v in attrs.items() if k not in skip} == {k: v for k, v in b.attrs[where].items() if k not in skip}, where


def lossy_section(count, t1=20):
    """A heavy top ensemble of `count` members with a Poincaré section that keeps 2 hits per member
    and chunk: hits beyond max_hits are lost and counted, in every chunk (slices, jobs of ranks and
    checkpoints must keep every record and count)."""
    return {"model": {"name": "heavy_top", "parameters": {"inertia": [2, 1.5, 0.8], "com": [0.1, 0.05, 0.5]}},
            "method": "rkmk54", "time": {"t0": 0, "t1": t1}, "step": {"adaptive": True, "atol": 1e-9, "rtol": 1e-9},
            "initial": {"state": [1, 0, 0, 0, 0, 1], "ensemble": {"count": count, "scale": 0.3, "seed": 5}},
            "outputs": {"samples": 3},
            "section": {"type": "hyperplane", "component": "Gamma_x", "value": 0, "direction": "up", "max_hits": 2}}
