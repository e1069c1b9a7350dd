"""lb.run_config against the command line's files, and parameters from Python and from configs."""
import json
import os

import numpy as np
import pytest

import liebatch as lb
from conftest import SOURCE, assert_same

CONFIGS = os.path.join(SOURCE, "examples", "configs")
# The example outputs written by `liebatch` in this build (ctest fixture example_outputs).
OUTPUTS = [p for p in os.environ.get("LIEBATCH_EXAMPLE_OUTPUTS", "").split(":") if p]
COMMANDS = {"heavy_top_convergence": "converge", "poincare_heavy_top": "poincare"}
# Attributes that differ from run to run, and the commit each binary was built at (the command and
# the module of one build may be linked at different commits while one is rebuilt).
VOLATILE = ("created", "command_line", "liebatch_commit")


@pytest.mark.parametrize("h5", OUTPUTS, ids=lambda p: os.path.basename(p)[:-3])
def test_run_config_equals_the_command_lines_file(h5):
    name = os.path.basename(h5)[:-3]
    cli = lb.load(h5)
    mem = lb.run_config(os.path.join(CONFIGS, name + ".json"), COMMANDS.get(name, "run"))
    assert_same(mem, cli)
    assert set(mem.attrs) == set(cli.attrs)
    for where, attrs in cli.attrs.items():
        for k, v in attrs.items():
            if k not in VOLATILE:
                assert mem.attrs[where][k] == v, (where, k)


def test_every_example_is_compared():
    if "LIEBATCH_EXAMPLE_OUTPUTS" not in os.environ:
        pytest.fail("LIEBATCH_EXAMPLE_OUTPUTS is not set: run through ctest")
    if not OUTPUTS:
        pytest.skip("the example configs' outputs are not built here (LIEBATCH_BUILD_EXAMPLES=OFF)")
    names = {os.path.basename(p)[:-3] for p in OUTPUTS}
    assert {"heavy_top_convergence", "monte_carlo", "poincare_heavy_top", "lorenz_sweep"} <= names


def test_save_then_load_gives_the_output_back(tmp_path):
    top = lb.model("heavy_top", preset="bruls_cardona")
    r = lb.solve(top, top.initial, t=(0, 0.01), h=1e-3, samples=3)
    r.save(tmp_path / "top.h5")
    assert_same(lb.load(tmp_path / "top.h5"), r)
    r.save(tmp_path / "top.h5")  # its own file: replaced
    (tmp_path / "mine.h5").write_text("a user's file")
    with pytest.raises(FileExistsError, match="liebatch did not write it"):
        r.save(tmp_path / "mine.h5")
    assert (tmp_path / "mine.h5").read_text() == "a user's file"
    assert sorted(os.listdir(tmp_path)) == ["mine.h5", "top.h5"]  # no temporary left


# --- Per-member parameters
def lorenz_sweep():
    with open(os.path.join(CONFIGS, "lorenz_sweep.json")) as f:
        return json.load(f)


def test_the_rho_sweep_from_python_equals_the_command_line(cli):
    cfg = lorenz_sweep()
    out = cli(cfg)
    lz = lb.model("lorenz", rho=lb.linspace(0, 21, 4096))
    s = cfg["step"]
    r = lb.solve(lz, cfg["initial"]["state"], t=(cfg["time"]["t0"], cfg["time"]["t1"]), method=cfg["method"], h=s["h"],
                 samples=cfg.get("outputs", {}).get("samples", 2))
    assert r.final.y.shape == (3, 4096)
    assert np.allclose(r["parameters/rho"], np.linspace(0, 21, 4096), rtol=1e-15, atol=0)
    assert_same(r, out)
    # Member i is a one-member run with rho_i.
    for i in (0, 1234, 4095):
        one = lb.solve(lb.model("lorenz", rho=float(r["parameters/rho"][i])), cfg["initial"]["state"], t=(0, cfg["time"]["t1"]),
                       method=cfg["method"], h=s["h"])
        assert np.array_equal(one.final.y[:, 0], r.final.y[:, i]), i
    # An array is the same sweep as lb.values.
    arr = lb.solve(lb.model("lorenz", rho=np.linspace(0, 21, 4096)), cfg["initial"]["state"], t=(0, 0.1), h=s["h"], method="rkmk4")
    assert np.array_equal(arr["parameters/rho"], np.linspace(0, 21, 4096))


def test_perturbed_tops_draw_the_same_parameters_for_a_seed_and_others_for_another():
    def tops(seed):
        return lb.model("heavy_top", preset="bruls_cardona", sampler={"kind": "box", "seed": seed},
                        mass=lb.normal(15, 0.15), com=[0, lb.uniform(0.95, 1.05), 0])
    a, b, c = tops(3).parameters(10_000), tops(3).parameters(10_000), tops(4).parameters(10_000)
    assert a["mass"].shape == (10_000,) and a["com"].shape == (3, 10_000)
    assert np.array_equal(a["mass"], b["mass"]) and np.array_equal(a["com"], b["com"])
    assert not np.array_equal(a["mass"], c["mass"])
    assert abs(a["mass"].mean() - 15) < 0.01 and abs(a["mass"].std() - 0.15) < 0.01
    assert (a["com"][0] == 0).all() and (a["com"][2] == 0).all()
    assert a["com"][1].min() >= 0.95 and a["com"][1].max() <= 1.05
    # A run takes them: its output records the same values.
    top = tops(3)
    r = lb.solve(top, np.repeat(top.initial[None, :], 100, axis=0), t=(0, 0.01), h=1e-3)
    assert np.array_equal(r["parameters/mass"], a["mass"][:100])


def test_run_config_takes_a_dict_and_reports_the_exit_status():
    cfg = lorenz_sweep()
    cfg["model"]["parameters"]["rho"] = {"linspace": [0, 21, 64]}
    out = lb.run_config(cfg)
    assert out.exit_status == 0 and out.final.y.shape == (3, 64)
    assert out.attrs[""]["parameters"] == "rho: linspace(0, 21, 64)"
