"""lb.solve against `liebatch run|poincare` of the same config: the same code, so the same bits."""
import numpy as np
import pytest

import liebatch as lb
from conftest import assert_same

EYE = [1, 0, 0, 0, 1, 0, 0, 0, 1]
# Every command-line model, with a state (where no preset gives one) and the methods it is run with:
# fixed rkmk4 and adaptive rkmk54, and the symplectic and constrained models' own methods.
CASES = [
    ("free_rigid_body", {}, [1, 0.5, -0.3], ["rkmk4", "rkmk54"]),
    ("rigid_body_attitude", {}, EYE + [1, 0.5, -0.3], ["rkmk4", "rkmk54", "slgi_half", "hp_sv_cay"]),
    ("heavy_top", {"preset": "bruls_cardona"}, None, ["rkmk4", "rkmk54", "cf4"]),
    ("heavy_top_spatial", {"preset": "bruls_cardona"}, None, ["rkmk4", "rkmk54", "slgi_half", "hp_sv_exp"]),
    ("heavy_top_quadratic", {"preset": "bruls_cardona"}, None, ["slgi_half"]),
    ("heavy_top_se3", {"preset": "bruls_cardona"}, None, ["hedop5", "hedop5 adaptive"]),
    ("planar_pendulum", {"preset": "pend2d"}, None, ["hedop5", "hedop5 adaptive"]),
    ("pendulum_chain", {"preset": "paper", "parameters": {"N": 2}}, None, ["rkmk4", "rkmk54"]),
    ("quadrotor_load", {"preset": "paper"}, None, ["rkmk4", "rkmk54"]),
    ("lorenz", {"parameters": {"rho": {"linspace": [10, 28, 3]}}}, [1, 1, 1], ["rkmk4", "rkmk54"]),
]


def config(name, spec, state, method):
    adaptive = method.endswith("adaptive") or method == "rkmk54"
    method = method.split()[0]
    m = dict(spec, name=name)
    initial = {"ensemble": {"count": 5, "scale": 0.01, "seed": 3}}
    if state is not None:
        initial["state"] = state
    step = {"adaptive": True, "atol": 1e-9, "rtol": 1e-9} if adaptive else {"h": 0.002}
    return {"model": m, "method": method, "time": {"t0": 0, "t1": 0.2}, "step": step, "initial": initial,
            "outputs": {"samples": 3}}, adaptive


def solve_as(cfg, out, **kw):
    m = cfg["model"]
    model = lb.model(m["name"], preset=m.get("preset"), **m.get("parameters", {}))
    step = cfg["step"]
    steps = {"atol": step["atol"], "rtol": step["rtol"]} if step.get("adaptive") else {"h": step["h"]}
    return lb.solve(model, out["initial/y"].T, t=(cfg["time"]["t0"], cfg["time"]["t1"]), method=cfg["method"],
                    samples=cfg["outputs"]["samples"], **steps, **kw)


def test_a_solve_records_its_members_as_a_whole_run(tmp_path):
    top = lb.model("heavy_top", preset="bruls_cardona")
    r = lb.solve(top, np.repeat(np.array(top.initial, ndmin=2), 5, axis=0), t=(0, 0.01), h=1e-3)
    root = r.attrs[""]
    assert (root["members_begin"], root["members_end"], root["members_total"]) == (0, 5, 5)
    r.save(tmp_path / "solve.h5")  # so a merge takes it as the whole of a run
    assert_same(lb.merge([tmp_path / "solve.h5"], tmp_path / "merged.h5"), lb.load(tmp_path / "solve.h5"))


@pytest.mark.parametrize("name,spec,state,method", [(n, s, y, m) for n, s, y, ms in CASES for m in ms],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_solve_equals_the_command_line(cli, name, spec, state, method):
    cfg, _ = config(name, spec, state, method)
    out = cli(cfg)
    r = solve_as(cfg, out)
    assert set(out.final.status_names()) == {"ok"}, out.final.status_names()
    assert_same(r, out)
    for k in ("model", "method", "precision", "parameters", "cpu_simd", "batches"):
        assert r.attrs[""].get(k) == out.attrs[""].get(k), k
    for where, attrs in out.attrs.items():  # what the arrays' attributes say (status values, Newton counts)
        if where:
            assert r.attrs.get(where) == attrs, where


@pytest.mark.parametrize("max_hits,samples", [(16, 3), (2, 3), (2, 0)])
def test_poincare_hits_equal_the_command_line(cli, max_hits, samples):
    # With 2 kept per member and chunk some hits are lost: lb.solve must chunk as the command does.
    cfg, _ = config("heavy_top", {"parameters": {"inertia": [2, 1.5, 0.8], "com": [0.1, 0.05, 0.5]}}, [1, 0, 0, 0, 0, 1], "rkmk54")
    cfg["time"]["t1"] = 20
    cfg["outputs"]["samples"] = samples
    cfg["section"] = {"type": "hyperplane", "component": "Gamma_x", "value": 0, "direction": "up",
                      "condition": {"component": "Pi_z", "greater_than": 0}, "max_hits": max_hits}
    out = cli(cfg, "poincare")
    r = solve_as(cfg, out, section=lb.Hyperplane("Gamma_x", 0, "up", where=("Pi_z", ">", 0)), max_hits=max_hits)
    assert len(r.hits.t) >= 10
    if (max_hits, samples) == (2, 3):  # one chunk: most hits lost
        assert out.hits.lost.sum() > 0
    assert_same(r, out)


def test_a_section_without_samples_given_is_a_poincare_config_without_outputs(cli):
    # lb.solve took 2 samples, so one chunk: 200 of a poincare config's 2649 hits were kept at max_hits 1.
    cfg, _ = config("heavy_top", {"parameters": {"inertia": [2, 1.5, 0.8], "com": [0.1, 0.05, 0.5]}}, [1, 0, 0, 0, 0, 1], "rkmk54")
    cfg["time"]["t1"] = 20
    del cfg["outputs"]
    cfg["section"] = {"type": "hyperplane", "component": "Gamma_x", "value": 0, "direction": "up", "max_hits": 1}
    out = cli(cfg, "poincare")
    model = lb.model("heavy_top", inertia=[2, 1.5, 0.8], com=[0.1, 0.05, 0.5])
    r = lb.solve(model, out["initial/y"].T, t=(0, 20), method="rkmk54", atol=cfg["step"]["atol"], rtol=cfg["step"]["rtol"],
                 section=lb.Hyperplane("Gamma_x", 0, "up"), max_hits=1)
    assert "samples/y" not in r and len(r.hits.t) > 2 * len(r.final.status_names())  # one chunk keeps 1 a member
    assert_same(r, out)


def test_hits_of_a_model_without_observables_equal_the_command_line(cli):
    # Lorenz has no observables: hits/observables once claimed one number a hit over no memory (heap
    # addresses read as numbers, and writable).
    cfg, _ = config("lorenz", {}, [1, 1, 1], "rkmk4")
    cfg["time"]["t1"] = 5
    cfg["section"] = {"type": "hyperplane", "component": "x", "value": 0}
    out = cli(cfg, "poincare")
    r = solve_as(cfg, out, section=lb.Hyperplane("x"))
    assert len(r.hits.t) > 0 and r["hits/observables"].shape == out["hits/observables"].shape == (0,)
    assert_same(r, out)


def test_float_runs_return_float32_equal_to_the_command_line(cli):
    cfg, _ = config("heavy_top", {"preset": "bruls_cardona"}, None, "rkmk4")
    out = cli(cfg, "run", "--precision", "float")
    r = solve_as(cfg, {"initial/y": out["initial/y"].astype(np.float32)})
    assert r.final.y.dtype == np.float32 and r.samples.obs.dtype == np.float32
    for k in ("final/y", "final/t", "samples/y", "samples/observables"):
        assert np.array_equal(r[k], out[k].astype(np.float32)), k
        assert np.array_equal(r[k].astype(np.float64), out[k]), k  # float's numbers, exactly


def test_results_are_the_engines_vectors_not_copies():
    top = lb.model("heavy_top", preset="bruls_cardona")
    r = lb.solve(top, top.initial, t=(0, 0.01), h=1e-3, samples=3)
    for k in ("final/y", "final/t", "samples/y", "samples/observables"):
        a = r[k]
        assert not a.flags.owndata and type(a.base).__name__ == "PyCapsule", k
    # The arrays outlive the call and stay valid after others.
    y = r.final.y.copy()
    lb.solve(top, top.initial, t=(0, 0.01), h=1e-3)
    assert np.array_equal(r.final.y, y)
