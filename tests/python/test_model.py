"""The registry and a model's manifold from Python: what `liebatch list` shows, defect, projection,
perturbation by the group action, energy levels."""
import copy
import math
import pickle
import subprocess

import numpy as np
import pytest

import liebatch as lb
from conftest import EXE


def test_models_and_methods_are_the_command_lines():
    listed = subprocess.run([EXE, "list", "models"], capture_output=True, text=True, check=True).stdout
    names = [line for line in listed.splitlines() if line and not line.startswith(" ")]
    assert [m["name"] for m in lb.models()] == names
    methods = subprocess.run([EXE, "list", "methods"], capture_output=True, text=True, check=True).stdout
    assert [m["name"] for m in lb.methods()] == [line.split(":")[0].strip() for line in methods.splitlines()[1:]]
    top = next(m for m in lb.models() if m["name"] == "heavy_top")
    assert any(p.startswith("bruls_cardona") for p in top["presets"])
    assert lb.model("heavy_top").state_names == ["Pi_x", "Pi_y", "Pi_z", "Gamma_x", "Gamma_y", "Gamma_z"]
    # The names `list models` prints, for every model that has them.
    for m in lb.models():
        block = listed.split("\n" + m["name"] + "\n", 1)[-1].split("\n  parameters:", 1)[0]
        for key, label in (("components", "components by name"), ("observables", "observables")):
            line = next((x for x in block.splitlines() if x.startswith(f"  {label}:")), None)
            assert m[key] == ([] if line is None else line.split(":", 1)[1].strip().split(", ")), (m["name"], key)
    assert top["components"] == lb.model("heavy_top").state_names and "energy" in top["observables"]


def test_perturbation_keeps_the_orbit_and_projection_returns_to_the_manifold():
    top = lb.model("heavy_top", preset="bruls_cardona")
    y = np.repeat(top.initial[None, :], 50, axis=0)
    xi = np.random.default_rng(1).uniform(-0.5, 0.5, (50, 6))
    p = top.perturb(y, xi)
    assert np.allclose(np.linalg.norm(p[:, 3:], axis=1), 1, atol=1e-15, rtol=0)
    casimir = lambda a: np.einsum("ij,ij->i", a[:, :3], a[:, 3:])  # noqa: E731  Pi . Gamma
    assert np.allclose(casimir(p), casimir(y), atol=1e-13, rtol=0)
    assert not np.allclose(p, y)
    assert np.array_equal(top.perturb(top.initial, np.zeros(6)), top.initial)
    assert (top.defect(p) < 1e-15).all()
    off = p.copy()
    off[:, 3:] *= 1.01
    assert (top.defect(off) > 1e-3).all() and (top.defect(top.project(off)) < 1e-15).all()


def test_energy_levels_are_reached_where_the_potential_allows():
    chain = lb.model("pendulum_chain", preset="paper", N=2)
    energy = chain.observable_names.index("energy")
    y, ok = chain.on_energy_level(np.repeat(chain.initial[None, :], 3, axis=0), 40.0)
    assert ok.all()
    r = lb.solve(chain, y, t=(0, 1e-3), h=1e-3, samples=2)
    assert np.allclose(r.samples.obs[0, energy], 40.0, atol=1e-12, rtol=0)
    _, reachable = chain.on_energy_level(chain.initial, -1e3)  # below the potential's minimum
    assert not reachable


def test_a_chain_length_the_build_lacks_is_compiled_for_the_methods_asked():
    # 20 links for rkmk54: the plugin example.cli.chain20 compiled into the build's cache (the
    # fixture example_outputs), loaded here; a run of the chain20 example's first steps.
    chain = lb.model("pendulum_chain", preset="paper", methods=["rkmk54"], N=20, total_length=5)
    assert chain.dim == 120 and chain.initial.shape == (120,)
    r = lb.solve(chain, chain.initial, t=(0, 0.01), method="rkmk54", atol=1e-6, rtol=1e-6, samples=2)
    assert r.final.status_names() == ["ok"]
    assert np.allclose(np.linalg.norm(r.final.y[0:3, 0]), 1, atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match='compiled at run time for rkmk54'):
        lb.solve(chain, chain.initial, t=(0, 0.01), method="cf4", h=1e-3)
    with pytest.raises(TypeError, match="methods"):
        lb.model(lb.Source("x.hpp", "X", ["rkmk4"], None), methods=["rkmk4"])


def test_statistics_agree_with_numpy_over_the_members_that_ended_ok():
    top = lb.model("heavy_top", preset="bruls_cardona", mass=lb.linspace(10, 20, 200))
    y0 = np.repeat(top.initial[None, :], 200, axis=0)
    y0[7, :3] = 1e300  # fails at once: left out, counted
    r = lb.solve(top, y0, t=(0, 0.1), h=1e-3, samples=5)
    assert r.samples.obs.shape[1] >= 2
    s = lb.statistics(r, bins=8)["samples"]
    ok = np.array([n == "ok" for n in r.final.status_names()])
    assert ok.sum() == 199
    x = r.samples.obs[:, :, ok]
    assert (s["count"] == 199).all() and (s["failed"] == 1).all()
    assert np.allclose(s["mean"], x.mean(axis=2), rtol=1e-14, atol=0)
    # Where every member has the same value (the energy at t0: X.Gamma = 0, so the mass drops out) the
    # library's variance is 0 and numpy's a rounding error of the mean's square.
    assert (np.abs(s["var"] - x.var(axis=2, ddof=1)) <= 1e-12 * x.var(axis=2, ddof=1) + 1e-14 * s["mean"] ** 2).all()
    assert np.array_equal(s["min"], x.min(axis=2)) and np.array_equal(s["max"], x.max(axis=2))
    assert s["bins"].shape == (5, r.samples.obs.shape[1], 8) and (s["bins"].sum(axis=2) == 199).all()
    for k, o in np.ndindex(*s["bins"].shape[:2]):  # the data range, closed as numpy's last bin is
        if s["lo"][k, o] < s["hi"][k, o]:
            assert np.array_equal(s["bins"][k, o], np.histogram(x[k, o], bins=8, range=(s["lo"][k, o], s["hi"][k, o]))[0])


def test_statistics_of_a_section_without_samples_are_its_hits():
    # poincare's default, and lb.solve's with a section: no samples, once refused.
    top = lb.model("heavy_top", preset="bruls_cardona")
    r = lb.solve(top, top.perturb(np.repeat(top.initial[None], 8, axis=0), np.linspace(-0.05, 0.05, 48).reshape(8, 6)),
                 t=(0, 5), h=1e-3, section=lb.Hyperplane("Gamma_x", 0.0))
    assert "samples/observables" not in r and len(r["hits/member"]) > 8
    h = lb.statistics(r)["hits"]
    assert (h["count"] == len(r["hits/member"])).all()
    o = r["hits/observables"]
    exact = np.array([math.fsum(o[:, k]) / len(o) for k in range(o.shape[1])])  # (numpy's mean is 1e-14 off here)
    assert np.allclose(h["mean"], exact, rtol=1e-15, atol=0)


def test_histograms_are_numpys_on_values_at_the_edges():
    # Bins were decided by the rounded quotient (x - lo)/(hi - lo)·bins: 0.3, 0.6 and 0.7 of [0, 1) in
    # 10 bins came out one bin high. Hundredths put a value on or beside every edge.
    v = np.array([k / 100 for k in range(100)] + [0.3, 0.6, 0.7, np.nextafter(0.3, 0), np.nextafter(0.1, 1)])
    ok = lb.solve(lb.model("heavy_top", preset="bruls_cardona"), lb.model("heavy_top", preset="bruls_cardona").initial[None, :],
                  t=(0, 0.01), h=1e-3)["final/status"][0]
    out = lb.Output({"samples/observables": v[None, None, :], "final/status": np.full(len(v), ok, np.uint8)}, {})
    s = lb.statistics(out, bins=10, lo=0.0, hi=1.0)["samples"]
    assert np.array_equal(s["bins"][0, 0], np.histogram(v, bins=10, range=(0, 1))[0])


def test_a_model_pickles_and_copies_as_what_it_was_made_from():
    # multiprocessing and Dask send a model to their workers: it could not be pickled.
    m = lb.model("heavy_top", preset="bruls_cardona", mass=lb.normal(15, 0.15), sampler={"kind": "sobol", "seed": 3})
    for twin in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert twin.spec == m.spec and twin.sampler == m.sampler and twin.grid == m.grid
        for k, v in m.parameters(8).items():
            assert np.array_equal(twin.parameters(8)[k], v), k
        a, b = (lb.solve(x, x.initial, t=(0, 0.01), h=1e-3) for x in (m, twin))
        assert np.array_equal(a.final.y, b.final.y)
