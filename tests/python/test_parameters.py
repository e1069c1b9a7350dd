"""Per-member parameters against numpy: sweeps equal numpy's linspace and logspace bit for bit, and
parameter draws are independent of the initial states' perturbations under the same seed; what a
float run or a Sobol' sequence cannot give is refused, naming the config path."""
import json
import subprocess

import mpmath
import numpy as np
import pytest

import liebatch as lb
from conftest import EXE


@pytest.mark.parametrize("a,b,n", [(4.4, 1.8, 3), (0, 21, 4097), (-1e-3, 5, 1000), (10, 1e-16, 3), (-8.1, 7.87, 4), (2, -3, 77)])
def test_sweeps_are_numpys_points(a, b, n):
    # linspace: numpy's points bit for bit (the last is b, not a + (b - a)·1 rounded).
    rho = lb.model("lorenz", rho=lb.linspace(a, b, n)).parameters(n)["rho"]
    assert rho.tobytes() == np.linspace(a, b, n).tobytes(), np.flatnonzero(rho != np.linspace(a, b, n))[:5]
    # logspace: 10 to those, rounded once (mpmath), so that 10^b is the last point; numpy's own
    # pow may be a vectorised one, within an ulp of it.
    if abs(a) < 300 and abs(b) < 300:
        rho = lb.model("lorenz", rho=lb.logspace(a, b, n)).parameters(n)["rho"]
        mpmath.mp.prec = 200
        exact = np.array([float(mpmath.power(10, mpmath.mpf(float(e)))) for e in np.linspace(a, b, n)])
        assert (np.abs(rho - exact) <= np.spacing(exact)).all() and rho[-1] == exact[-1] and rho[0] == exact[0]
        assert (np.abs(rho - np.logspace(a, b, n)) <= np.spacing(exact)).all()


def run(tmp_path, config, *args):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(config))
    out = tmp_path / "c.h5"
    if out.exists():
        out.unlink()
    p = subprocess.run([EXE, "run", str(cfg), "-o", str(out), "-q", "--no-plot", *args], capture_output=True, text=True)
    return p, out


def lorenz(parameters, initial, sampler=None):
    c = {"model": {"name": "lorenz", "parameters": parameters}, "method": "rkmk4", "time": {"t1": 0.01}, "step": {"h": 0.01},
         "initial": initial}
    if sampler:
        c["parameter_sampler"] = sampler
    return c


@pytest.mark.parametrize("kind", ["box", "sobol"])
def test_parameter_draws_are_independent_of_the_states_perturbations(tmp_path, kind):
    # Both samplers with seed 0: the draws once were the perturbations' numbers, sigma - 0.5 = x.
    p, out = run(tmp_path, lorenz({"sigma": {"uniform": [0, 1]}, "beta": {"uniform": [0, 1]}},
                                  {"state": [0, 0, 0], "ensemble": {"count": 1024, "scale": 0.5, "sampler": kind}}, {"kind": kind}))
    assert p.returncode == 0, p.stderr
    o = lb.load(out)
    y0 = o["initial/y"]
    for name in ("sigma", "beta"):
        x = o["parameters/" + name]
        for d in range(3):
            r = np.corrcoef(x, y0[d])[0, 1]
            assert abs(r) < 0.15, (name, d, r)  # independent: |r| ~ 1/32
    if kind == "sobol":  # one sequence: the parameters take coordinates 3 and 4, after the states' 0 to 2
        assert "coordinates 3 on of the initial states' sequence" in o.attrs[""]["parameters"]
        u = np.sort(o["parameters/sigma"])  # a (0, m, s)-net's coordinate: one point in each of 1024 cells
        assert np.array_equal(np.floor(u * 1024), np.arange(1024))


def refused(tmp_path, config, what, *args):
    p, out = run(tmp_path, config, *args)
    assert p.returncode == 2, p.stderr
    assert what in p.stderr, p.stderr
    assert not out.exists()


def test_what_a_sampler_or_float_cannot_give_is_refused(tmp_path):
    many = 2**32 + 1
    refused(tmp_path, lorenz({}, {"state": [1, 0, 0], "ensemble": {"count": many, "scale": 0.1, "sampler": "sobol"}}),
            "config /initial/ensemble/sampler: sobol covers at most 2^32 members")
    refused(tmp_path, lorenz({"rho": {"linspace": [0, 1, 2**31]}, "sigma": {"normal": [10, 1]}},
                             {"states": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, {"kind": "sobol", "seed": 1}),
            "config /parameter_sampler/kind: sobol covers at most 2^32 members")
    top = {"model": {"name": "heavy_top", "preset": "bruls_cardona",
                     "parameters": {"mass": {"uniform": [14, 16]}, "com": [{"uniform": [-0.1, 0.1]}] * 3,
                                    "inertia": [{"uniform": [1, 2]}] * 3}},
           "method": "rkmk4", "time": {"t1": 0.01}, "step": {"h": 0.01},
           "initial": {"ensemble": {"count": 8, "scale": 0.1, "sampler": "sobol"}}, "parameter_sampler": {"kind": "sobol"}}
    refused(tmp_path, top, "config /parameter_sampler/kind: sobol takes the parameters' coordinates after the initial states'")
    state = {"state": [1, 0, 0]}
    refused(tmp_path, lorenz({"rho": {"linspace": [0, 1e39, 3]}}, state),
            "config /model/parameters/rho/linspace: float cannot hold its point 2 (9.9999999999999994e+38)", "--precision", "float")
    refused(tmp_path, lorenz({"sigma": {"values": [1, 1e-42]}}, state), "float cannot hold its point 1", "--precision", "float")
    refused(tmp_path, lorenz({"rho": {"normal": [0, 1e39]}}, {"state": [1, 0, 0], "ensemble": {"count": 4, "scale": 0.1}}),
            "config /model/parameters/rho/normal: member 0 draws rho = ", "--precision", "float")
    assert run(tmp_path, lorenz({"rho": {"linspace": [0, 1e39, 3]}}, state))[0].returncode == 0  # double holds them
    # A draw outside the domain names its own path and the parameter's domain.
    bad = dict(top, parameter_sampler={"kind": "box"}, initial={"ensemble": {"count": 2, "scale": 0.1}})
    bad["model"]["parameters"] = {"com": [{"lognormal": [800, 1]}, 0, 0]}
    refused(tmp_path, bad, "config /model/parameters/com/0/lognormal: member 0 draws com[0] = inf")
    refused(tmp_path, bad, "outside the parameter's domain (a finite number) in 1000 draws")
    bad["model"]["parameters"] = {"mass": {"normal": [1, 0.2]}}
    bad["parameter_sampler"] = {"kind": "sobol"}
    refused(tmp_path, bad, "an unshifted sequence starts at the corner u = 0: give parameter_sampler a seed to shift it")
