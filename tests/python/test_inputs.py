"""Inputs refused before any work, each naming its key: a state that is no state (NaN, overflowed
numbers), an output that cannot be put where it goes, a convergence reference no finer than the
steps it judges, methods no liebatch has, numbers a float run cannot hold; and a plot left from an
earlier run is said to be one."""
import json
import math
import os
import subprocess
import time

import numpy as np
import pytest

import liebatch as lb
from conftest import EXE

FREE_BODY = {"model": {"name": "free_rigid_body"}, "method": "rkmk4", "time": {"t1": 1}, "step": {"h": 0.1},
             "initial": {"state": [0.3, 0.8, 0.5]}, "outputs": {"plot": False}}


def liebatch(tmp_path, command, config, *extra, output="out.h5"):
    (tmp_path / "cfg.json").write_text(json.dumps(config))
    return subprocess.run([EXE, command, "cfg.json", "-o", output, "-q", *map(str, extra)], capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.parametrize("config,message", [
    # Every number 1e200: the chain's |q| overflows to inf, and its defect was NaN read as 0.
    ({"model": {"name": "pendulum_chain", "parameters": {"N": 2}}, "initial": {"state": [1e200] * 12}},
     "initial state 0 is off the model's manifold: defect nan"),
    # Perturbations of scale 1e300 overflow the attitude: initial/y all NaN, and the run went on.
    ({"model": {"name": "rigid_body_attitude"},
      "initial": {"state": [1, 0, 0, 0, 1, 0, 0, 0, 1, 0.3, 0.8, 0.5], "ensemble": {"count": 3, "scale": 1e300}}},
     "member 0 starts off the model's manifold: defect nan"),
], ids=["overflowed chain", "overflowed attitude"])
def test_a_state_that_is_no_state_is_refused(tmp_path, config, message):
    cfg = dict(FREE_BODY, **config)
    p = liebatch(tmp_path, "run", cfg)
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not (tmp_path / "out.h5").exists()


def test_a_state_with_nan_has_a_nan_defect():
    assert math.isnan(lb.model("rigid_body_attitude").defect(np.full(12, np.nan)))
    assert math.isnan(lb.model("pendulum_chain", N=2).defect(np.full(12, 1e200)))
    assert math.isnan(lb.model("free_rigid_body").defect(np.array([np.nan, 0, 0])))  # so*(3): no constraint, still no state


def test_an_output_that_cannot_be_put_in_place_is_refused_before_the_run(tmp_path):
    # converge ran every study first (seconds to hours), then found no directory for its output.
    study = {"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "time": {"t0": 0, "t1": 1},
             "converge": {"methods": ["rkmk4", "cf4"], "steps": {"h0": 0.001, "factor": 0.5, "count": 4}, "reference": {"h": 1e-6}}}
    t = time.monotonic()
    p = liebatch(tmp_path, "converge", study, output="none/x.h5")
    assert p.returncode == 3 and "cannot write output 'none/x.h5': no directory" in p.stderr, p.stderr
    assert time.monotonic() - t < 2
    # A name longer than NAME_MAX: the temporary shortens its own, so only the rename at the end failed.
    name = "x" * 300 + ".h5"
    p = liebatch(tmp_path, "run", FREE_BODY, output=name)
    assert p.returncode == 3 and "its name has 303 bytes, more than the 255" in p.stderr, p.stderr
    assert os.listdir(tmp_path) == ["cfg.json"]


def test_a_reference_no_finer_than_the_steps_is_refused(tmp_path):
    study = {"model": {"name": "free_rigid_body"}, "time": {"t0": 0, "t1": 1}, "initial": {"state": [0.3, 0.8, 0.5]},
             "converge": {"methods": ["rkmk4"], "steps": {"h0": 0.01, "count": 4}, "reference": {"method": "rkmk4", "h": 0.05}}}
    p = liebatch(tmp_path, "converge", study)
    assert p.returncode == 2 and "config /converge/reference/h: the reference step 0.05 must be finer than every step" in p.stderr, p.stderr


def test_methods_of_a_chain_are_names_of_methods_also_where_none_is_compiled(tmp_path):
    cfg = dict(FREE_BODY, model={"name": "pendulum_chain", "preset": "paper", "parameters": {"N": 2}, "methods": ["bogus"]})
    del cfg["initial"]
    p = liebatch(tmp_path, "run", cfg)
    assert p.returncode == 2 and "config /model/methods/0: unknown method 'bogus'" in p.stderr, p.stderr


@pytest.mark.parametrize("change,path", [
    ({"model": {"name": "free_rigid_body", "parameters": {"inertia": [1, 1e-50, 1]}}}, "/model/parameters/inertia/1"),
    ({"model": {"name": "free_rigid_body", "parameters": {"inertia": [1, 1, 1e40]}}}, "/model/parameters/inertia/2"),
    ({"time": {"t1": 1e39}, "step": {"h": 1e37}}, "/time"),
], ids=["a parameter below float's normals", "a parameter past float's range", "a span past float's range"])
def test_numbers_a_float_run_cannot_hold_are_refused(tmp_path, change, path):
    # Each ran, every member "nonfinite" (inf or 0 in float), and nothing named the number.
    cfg = dict(FREE_BODY, **change)
    p = liebatch(tmp_path, "run", cfg, "--precision", "float")
    assert p.returncode == 2 and f"config {path}: float cannot hold" in p.stderr and "use double" in p.stderr, p.stderr
    assert "float cannot hold" not in liebatch(tmp_path, "run", cfg).stderr  # double holds them


def test_a_plot_of_an_earlier_run_is_said_to_be_one(tmp_path):
    cfg = dict(FREE_BODY, time={"t1": 10}, step={"h": 0.01}, outputs={"samples": 11})
    cfg["initial"] = {"state": [0.3, 0.8, 0.5], "ensemble": {"count": 10, "scale": 0.3}}
    p = liebatch(tmp_path, "run", cfg)
    if not (tmp_path / "out.png").exists():
        pytest.skip(f"no plot drawn here (gnuplot): {p.stderr}")
    assert "earlier run" not in p.stderr, p.stderr
    time.sleep(0.01)
    p = liebatch(tmp_path, "run", cfg, "--no-plot")
    assert p.returncode == 0 and "'out.png' beside the output is an earlier run's plot; this run wrote none" in p.stderr, p.stderr
    # A table of another command's, under the same name: validate writes out.csv, run none.
    p = liebatch(tmp_path, "validate", dict(cfg, validate={"bound": 1e-6}))
    # Its own table, written out before the output is committed, may bear an earlier time: never noted.
    assert p.returncode in (0, 1) and "earlier run's table" not in p.stderr, p.stderr
    time.sleep(0.01)
    p = liebatch(tmp_path, "run", cfg, "--no-plot")
    assert "'out.csv' beside the output is an earlier run's table; this run wrote none" in p.stderr, p.stderr


def test_a_number_that_reads_as_zero_is_named_as_written(tmp_path):
    # "h": 1e-400 was refused as "got 0"; a key that looks like a number is no number.
    (tmp_path / "cfg.json").write_text(json.dumps(FREE_BODY).replace('"h": 0.1', '"h": 1e-400'))
    p = subprocess.run([EXE, "run", "cfg.json", "-q"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and "config line 1: number 1e-400 is below the smallest double" in p.stderr, p.stderr
    cfg = dict(FREE_BODY, outputs={"plot": False, "1e-400": 0.0})
    assert "number 1e-400" not in liebatch(tmp_path, "run", cfg).stderr


def test_a_stroboscopic_section_that_never_fires_is_refused(tmp_path):
    # t0 is the strobes' phase: 5 + k, k any whole number, misses (0, 0.5]; 5.3 + k does not.
    cfg = dict(FREE_BODY, time={"t1": 0.5}, section={"type": "stroboscopic", "period": 1, "t0": 5})
    p = liebatch(tmp_path, "poincare", cfg)
    assert p.returncode == 2 and "config /section/t0: no strobe t0 + k period" in p.stderr and "the first is at 1" in p.stderr, p.stderr
    cfg["section"]["t0"] = 5.3
    p = liebatch(tmp_path, "poincare", cfg)
    assert p.returncode == 0 and np.allclose(lb.load(tmp_path / "out.h5")["hits/t"], [0.3], rtol=0, atol=1e-15), p.stderr


def test_states_files_take_decimal_numbers_and_converge_each_method_once(tmp_path):
    (tmp_path / "s.txt").write_text("0x1p-2 0.8 0.5\n")  # strtod read it as 0.25
    p = liebatch(tmp_path, "run", dict(FREE_BODY, initial={"file": "s.txt"}))
    assert p.returncode == 2 and "expected a finite number, got '0x1p-2'" in p.stderr, p.stderr
    (tmp_path / "s.txt").write_text("+0.3 0.8 0.5\n")
    assert liebatch(tmp_path, "run", dict(FREE_BODY, initial={"file": "s.txt"})).returncode == 0
    study = {"model": {"name": "free_rigid_body"}, "time": {"t0": 0, "t1": 1}, "initial": {"state": [0.3, 0.8, 0.5]},
             "converge": {"methods": ["rkmk4", "rkmk4"], "steps": {"h0": 0.01, "count": 3}}}
    p = liebatch(tmp_path, "converge", study)
    assert p.returncode == 2 and "config /converge/methods/1: method 'rkmk4' is listed twice" in p.stderr, p.stderr


def test_a_state_of_the_quadratic_top_carries_its_parameters_p(tmp_path):
    # p = -M g X is a constant of the parameters: a state with another p ran another top (no
    # gravity here) while the output recorded mass 2; an ensemble perturbed p too.
    cfg = dict(FREE_BODY, method="slgi_half", time={"t1": 0.1}, step={"h": 0.01},
               model={"name": "heavy_top_quadratic", "parameters": {"mass": 2}},
               initial={"state": [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]})
    p = liebatch(tmp_path, "run", cfg)
    assert p.returncode == 2 and "initial state 0 is off the model's manifold" in p.stderr, p.stderr
    cfg["initial"]["normalize"] = True
    assert liebatch(tmp_path, "run", cfg).returncode == 0
    y = lb.load(tmp_path / "out.h5")["initial/y"][:, 0]
    assert lb.model("heavy_top_quadratic", mass=2).defect(y) == 0.0
    cfg["initial"] = {"state": y.tolist(), "ensemble": {"count": 8, "scale": 0.1}}
    assert liebatch(tmp_path, "run", cfg).returncode == 0
    y0 = lb.load(tmp_path / "out.h5")["initial/y"]
    assert np.array_equal(y0[12:15], np.repeat(y[12:15, None], 8, axis=1))


def test_an_energy_a_state_without_velocity_cannot_reach_says_so(tmp_path):
    # The pendulum at rest cannot be rescaled to energy 5: "below the potential energy" alone was wrong.
    cfg = dict(FREE_BODY, model={"name": "pendulum_chain", "parameters": {"N": 1}}, initial={"state": [1, 0, 0, 0, 0, 0], "energy": 5})
    p = liebatch(tmp_path, "run", cfg)
    assert p.returncode == 2 and "cannot be reached" in p.stderr and "or the state has no velocity" in p.stderr, p.stderr


def test_a_grid_point_count_that_is_no_integer_names_its_value(tmp_path):
    cfg = dict(FREE_BODY, initial={"state": [0.3, 0.8, 0.5],
                                   "ensemble": {"count": 8, "sampler": "grid", "points": [2, 2.5, 2], "scale": 0.1}})
    p = liebatch(tmp_path, "run", cfg)
    assert p.returncode == 2 and "config /initial/ensemble/points/1: expected an integer in [1, count = 8], got 2.5" in p.stderr, p.stderr


def test_a_missing_compiler_named_by_liebatch_cxx_is_said_to_be_so(tmp_path):
    (tmp_path / "m.hpp").write_text("template <class T> struct M {};\n")
    cfg = dict(FREE_BODY, model={"source": "m.hpp", "type": "M", "methods": ["rkmk4"], "gpu": False})
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    env = dict(os.environ, LIEBATCH_CXX=str(tmp_path / "no-such-g++"), LIEBATCH_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([EXE, "run", "cfg.json", "-q"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode != 0 and "the C++ compiler LIEBATCH_CXX names, '" in p.stderr, p.stderr


@pytest.mark.parametrize("command", ["converge", "validate"])
def test_run_options_on_converge_and_validate_are_named_as_such(tmp_path, command):
    # CLI11 said "The following arguments were not expected: 0:3 --members".
    for extra in (["--members", "0:3"], ["--balance", "dynamic"], ["--checkpoint-every", "5"], ["--resume"], ["--restart"]):
        p = liebatch(tmp_path, command, FREE_BODY, *extra)
        assert p.returncode == 2 and f"{extra[0]}: is for run and poincare; {command} takes no slices" in p.stderr, p.stderr
        assert not (tmp_path / "out.h5").exists()
