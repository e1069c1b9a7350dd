"""Step control from the command line, against what a run can deliver: the adaptive floor scales
with the span, float refuses tolerances it cannot resolve, HEDOP5 past its limit shows in its
observables, and validate does not count samples that two runs both never reached."""
import json
import shlex
import subprocess

import numpy as np
import pytest

import liebatch as lb
from conftest import EXE

OK, UNDERFLOW, DEXPINV_SINGULAR = 1, 3, 5


def run(tmp_path, config, command="run", *args):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(config))
    out = tmp_path / "c.h5"
    if out.exists():
        out.unlink()
    p = subprocess.run([EXE, command, str(cfg), "-o", str(out), "--no-plot", *args], capture_output=True, text=True)
    return p, (lb.load(out) if out.exists() else None)


def scaled_body(step):
    # The free rigid body in units that make its span 1e-11: it turns as the unit body over 10.
    return {"model": {"name": "free_rigid_body"}, "method": "rkmk54", "time": {"t1": 1e-11},
            "step": dict({"adaptive": True, "atol": 1e-6, "rtol": 1e-10}, **step),
            "initial": {"states": [[3e12, 8e12, 5e12]]}, "outputs": {"samples": 0}}


def test_the_adaptive_floor_scales_with_the_span(tmp_path):
    p, o = run(tmp_path, scaled_body({}))
    assert p.returncode == 0, p.stderr
    assert o["final/status"][0] == OK and o["final/steps"][0] > 10
    p, o = run(tmp_path, scaled_body({"h_min": 1e-12, "h0": 1e-12}))  # the old absolute floor: above the steps it needs
    assert p.returncode == 1 and o["final/status"][0] in (UNDERFLOW, DEXPINV_SINGULAR)  # by the rejection's cause
    p, _ = run(tmp_path, scaled_body({"h_min": 1e-12}))  # h0 = span/1000 = 1e-14
    assert p.returncode == 2 and "config /step/h_min: h_min 1e-12 is above h0 1e-14" in p.stderr, p.stderr


def test_float_refuses_tolerances_below_its_resolution(tmp_path):
    body = {"model": {"name": "free_rigid_body"}, "method": "rkmk54", "time": {"t1": 10}, "step": {"adaptive": True, "rtol": 1e-10},
            "initial": {"state": [0.3, 0.8, 0.5]}}
    p, o = run(tmp_path, body, "run", "--precision", "float")
    assert p.returncode == 2 and "config /step/rtol: 1e-10 is below what float resolves" in p.stderr, p.stderr
    assert o is None
    body["step"] = {"adaptive": True}  # float's defaults: 1e-6
    p, o = run(tmp_path, body, "run", "--precision", "float")
    assert p.returncode == 0, p.stderr
    assert o["final/status"][0] == OK and o["final/rejected"][0] < o["final/steps"][0]


def pendulum(h, t1, gravity=None):
    model = {"name": "planar_pendulum", "preset": "pend2d"}
    if gravity is not None:
        model["parameters"] = {"gravity": gravity}
    return {"model": model, "method": "hedop5", "time": {"t1": t1}, "step": {"h": h}, "outputs": {"samples": 2}}


def test_hedop5_past_its_stability_limit_shows_in_the_constraint_observables(tmp_path):
    # The whole state diverges, its velocity tangent to the constraint and its multiplier
    # consistent with it, so no status says so (docs/constrained.md): the samples' |Phi| does.
    p, o = run(tmp_path, pendulum(1.1, 10))
    assert p.returncode == 0 and o["final/status"][0] == OK, p.stderr
    assert o["samples/observables"][-1, 1, 0] > 1e100
    p, o = run(tmp_path, pendulum(0.01, 10))
    assert p.returncode == 0 and o["final/status"][0] == OK
    assert o["samples/observables"][-1, 1, 0] < 1e-9


def test_validate_counts_no_difference_where_both_runs_never_reached_a_sample(tmp_path):
    states = tmp_path / "states.txt"
    states.write_text("1 0 0\n0.5 0.5 20\n1e150 1e150 1e150\n1 1 1\n")
    cfg = {"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t1": 2}, "step": {"h": 0.01},
           "initial": {"file": str(states)}, "outputs": {"samples": 5}}
    p, o = run(tmp_path, cfg, "validate")
    assert p.returncode == 1, p.stderr  # a member did not finish (documented)
    assert (o["final/status"] == [OK, OK, 2, OK]).all()
    line = next(x for x in p.stdout.splitlines() if "sampled state" in x)
    assert "inf" not in line and "ABOVE" not in line, p.stdout
    assert "statuses differing: 0" in p.stdout, p.stdout


def chain(**parameters):
    return {"model": {"name": "pendulum_chain", "preset": "paper", "parameters": dict({"N": 1}, **parameters)}, "method": "rkmk4",
            "time": {"t1": 0.5}, "step": {"h": 0.01}, "outputs": {"samples": 3}}


def test_a_one_link_chain_takes_its_arrays_as_arrays_or_numbers(tmp_path):
    p, listed = run(tmp_path, chain(lengths=[1.3], masses=[2]))
    assert p.returncode == 0, p.stderr
    p, plain = run(tmp_path, chain(lengths=1.3, masses=2))
    assert p.returncode == 0, p.stderr
    assert np.array_equal(listed["final/y"], plain["final/y"])
    p, _ = run(tmp_path, chain(lengths=[1.3, 1]))
    assert p.returncode == 2 and "config /model/parameters/lengths: expected an array of 1 entry" in p.stderr, p.stderr


def test_converge_records_its_methods_and_each_members_parameters(tmp_path):
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"mass": {"linspace": [14, 16, 3]}}},
           "time": {"t1": 0.1}, "converge": {"methods": ["rkmk4", "cf4"], "steps": [0.01, 0.005]}}
    p, o = run(tmp_path, cfg, "converge")
    assert p.returncode == 0, p.stderr
    assert o.attrs[""]["method"] == "rkmk4, cf4"
    assert o["parameters/mass"].tobytes() == np.linspace(14, 16, 3).tobytes()


def test_the_command_line_is_recorded_as_a_shell_reads_it(tmp_path):
    d = tmp_path / "sp ace"
    d.mkdir()
    (d / "a b.json").write_text(json.dumps(pendulum(0.01, 0.1)))
    p = subprocess.run([EXE, "run", str(d / "a b.json"), "-o", str(d / "o'1.h5"), "-q", "--no-plot"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    line = lb.load(d / "o'1.h5").attrs[""]["command_line"]
    assert shlex.split(line) == [EXE, "run", str(d / "a b.json"), "-o", str(d / "o'1.h5"), "-q", "--no-plot"]
