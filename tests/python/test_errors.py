"""Bad input from Python: the argument and the value named, the command line's classes of error
(ValueError for what a config would refuse with exit 2, OSError for exit 3, TypeError for arrays
that are no numbers), and nothing run."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import liebatch as lb

TOP = lb.model("heavy_top", preset="bruls_cardona")
LORENZ = {"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t0": 0, "t1": 0.01}, "step": {"h": 1e-3},
          "initial": {"state": [1, 0, 0]}}


def solve(**kw):
    args = dict(model=TOP, y0=TOP.initial, t=(0, 0.01), h=1e-3)
    args.update(kw)
    return lb.solve(**args)


@pytest.mark.parametrize("make,error,text", [
    (lambda: lb.model("heavy_topp"), ValueError, r"^model name: unknown model 'heavy_topp'; expected one of free_rigid_body"),
    (lambda: lb.model("heavy_top", preset="nope"), ValueError, r"^preset: unknown preset 'nope' for heavy_top; expected one of bruls_cardona"),
    (lambda: lb.model("heavy_top", masss=1), ValueError, r"^parameter masss: unknown key"),
    (lambda: lb.model("heavy_top", mass=-1), ValueError, r"^parameter mass: expected a number > 0, got -1"),
    (lambda: lb.model("heavy_top", mass=lb.linspace(-1, 1, 3)), ValueError, r"^parameter mass/linspace: point 0 is -1"),
    (lambda: lb.model("heavy_top", mass={"gamma": [1, 2]}), ValueError, r"unknown variation"),
    (lambda: lb.model("heavy_top", mass=lb.linspace(1, 2, 0)), ValueError, r"expected a point count"),
    (lambda: lb.model("heavy_top", mass=lb.linspace(1, 2, 2**32), gravity=lb.linspace(1, 2, 2**32)), ValueError,
     r"grid of 4294967296 points times 4294967296 is more than 2\^40 members"),
    (lambda: lb.model("heavy_top", mass="heavy"), TypeError, r"^parameter mass: expected a number"),
    (lambda: lb.model("pendulum_chain", N=np.array([1.0, 2.0])), ValueError, r"^parameter N"),
    (lambda: solve(method="rk99"), ValueError, r"^method: unknown method 'rk99'"),
    (lambda: solve(method="hedop5"), ValueError, r"^method: .*hedop5"),
    (lambda: solve(h=0), ValueError, r"^h: expected a number > 0, got 0"),
    (lambda: solve(h=-1e-3), ValueError, r"^h: expected a number > 0"),
    (lambda: solve(h=None), ValueError, r"^h: expected a step size"),
    (lambda: solve(t=(1, 0)), ValueError, r"^t: "),
    (lambda: solve(t=(0, float("inf"))), ValueError, r"^t: expected a finite number"),
    (lambda: solve(method="rkmk4", h=None, atol=1e-8), ValueError, r"^atol/rtol \(adaptive steps\): method 'rkmk4' has no embedded pair"),
    (lambda: solve(samples=-1), ValueError, r"^samples: "),
    (lambda: solve(section=lb.Hyperplane("Gamma_w", 0)), ValueError, r"^section: .*Gamma_w"),
    (lambda: solve(section=lb.Hyperplane("Gamma_x", 0), max_hits=0), ValueError, r"^max_hits: "),
    (lambda: solve(y0=np.zeros((4, 5))), ValueError, r"^y0: expected an array of shape \(members, 6\), got shape \(4, 5\)"),
    (lambda: solve(y0=np.zeros((0, 6))), ValueError, r"^y0: no members"),
    (lambda: solve(y0=1.0), ValueError, r"^y0: expected an array of shape \(members, 6\), got shape \(\)$"),
    (lambda: solve(y0=np.zeros(4)), ValueError, r"got shape \(4,\)$"),
    (lambda: solve(y0=np.array([np.nan, 0, 0, 0, 0, 1.0])), ValueError, r"^y0\[0, 0\] is nan; expected finite numbers"),
    (lambda: solve(y0=np.array([[0, 0, 0, 0, 0, 1.0], [0, 0, 0, 0, 0, 2.0]])), ValueError,
     r"^y0\[1\] is off the model's manifold: defect 1.* > tolerance .*normalize=True"),
    (lambda: solve(y0=np.array(["a"] * 6)), TypeError, r"^y0: expected an array of float64 or float32 numbers"),
    (lambda: solve(y0=np.ones(6, dtype=np.complex128)), TypeError, r"^y0: expected an array of float64 or float32"),
    (lambda: solve(y0=np.ones(6, dtype=object)), TypeError, r"^y0: expected an array of float64 or float32"),
    (lambda: solve(h="small"), TypeError, r"^h: expected a number, got 'small'"),
    (lambda: solve(method=4), TypeError, r"^method: expected a method's name"),
    (lambda: solve(model="heavy_top"), TypeError, r"^model: expected a liebatch.Model"),
    (lambda: solve(section="x"), TypeError, r"^section: expected lb.Hyperplane"),
    (lambda: solve(y0=TOP.initial.astype(np.float32), section=lb.Hyperplane("Gamma_x")), ValueError, r"^y0: float32 runs take no section"),
    (lambda: lb.solve(lb.model("lorenz", rho=lb.linspace(0, 1, 3)), np.zeros((4, 3)), h=0.1), ValueError,
     r"^y0: 4 members for a parameter grid of 3 points"),
    (lambda: solve(model=lb.model("heavy_top", preset="bruls_cardona", sampler={"kind": "box"}, mass=1.0)), ValueError,
     r"^sampler: no model parameter is drawn"),
    (lambda: lb.run_config("/nonexistent/config.json"), OSError, r"cannot read config '/nonexistent/config.json'"),
    (lambda: lb.run_config({"model": {"name": "lorenz"}}), ValueError, r"^config /time: missing \(required\)"),
    (lambda: lb.run_config({"model": {"name": "lorenz"}}, "integrate"), ValueError, r"^command: expected one of run"),
    (lambda: lb.run_config({"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t0": 0, "t1": 1}, "step": {"h": 1e-3},
                            "initial": {"state": [1, 0, 0]}, "bogus": 1}), ValueError, r"^config /bogus: unknown key"),
    (lambda: lb.run_config({"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "method": "rkmk4",
                            "time": {"t0": 0, "t1": 1}, "step": {"h": 1e-3}}, "run", "gpu"), RuntimeError,
     r"device 'gpu' requested but unusable"),
    (lambda: solve(device="gpu"), RuntimeError, r"device 'gpu' requested but unusable"),
    # The command line's choices and ranges for its options, named as arguments (they ran as "auto",
    # in double, or on 3000 threads before).
    (lambda: solve(device="bogus"), ValueError, r"^device: expected one of auto, cpu, gpu, got 'bogus'"),
    (lambda: solve(threads=5000), ValueError, r"^threads: expected an integer in \[0, 4096\], got 5000"),
    (lambda: solve(samples=2.7), TypeError, r"^samples: expected an integer, got 2.7"),
    (lambda: solve(tolerance=-1), ValueError, r"^tolerance: expected a number > 0, got -1"),
    (lambda: solve(tolerance=0), ValueError, r"^tolerance: expected a number > 0, got 0"),  # as a config's
    (lambda: lb.run_config(LORENZ, precision="quad"), ValueError, r"^precision: expected one of double, float, got 'quad'"),
    (lambda: lb.run_config(LORENZ, batch=-1), ValueError, r"^batch: expected an integer in \[0, "),
    (lambda: lb.run_config(LORENZ, threads=-2), ValueError, r"^threads: expected an integer in \[0, 4096\], got -2"),
    (lambda: lb.linspace(0, 1, 2.9), TypeError, r"^linspace n: expected an integer, got 2.9"),
    (lambda: lb.Hyperplane(0, value=float("nan")), ValueError, r"^value: expected a finite number, got nan"),
    (lambda: lb.Stroboscopic(float("inf")), ValueError, r"^period: expected a finite number, got inf"),
    (lambda: lb.statistics(solve(samples=3), bins=2**40), ValueError, r"^bins: expected an integer in \[1, 16777216\]"),
    # Short, and named: a number past double's range in a parameter; a range as wide as all doubles.
    (lambda: lb.model("free_rigid_body", inertia=[10**400, 1, 1]), ValueError,
     r"^parameter inertia/0: number 10{76}\.\.\. \(401 characters\) is out of the range of a double"),
    (lambda: lb.statistics(solve(samples=3), lo=-1e308, hi=1e308), ValueError,
     r"^statistics: histogram range \[-1e\+308, 1e\+308\) is not finite lo < hi with a finite width$"),
    # Refused before any allocation, as the command line refuses it (it was std::bad_alloc, or swap).
    (lambda: solve(y0=np.repeat(np.array(TOP.initial, ndmin=2), 1000, axis=0), samples=2**24), ValueError,
     r"needs about .* of memory"),
    (lambda: lb.solve(lb.model("lorenz", rho=lb.linspace(0, 21, 4 * 10**11)), [1.0, 0, 0], h=0.1), ValueError,
     r"needs about .* of memory"),  # one state for a grid of 4e11 points: repeated after the check, not before
    (lambda: lb.model("lorenz", rho=lb.linspace(0, 21, 3)).parameters(3 * 10**14), ValueError, r"needs about .* of memory"),
    (lambda: lb.model("lorenz", rho=lb.linspace(0, 21, 3)).parameters(2.5), TypeError, r"^members: expected an integer, got 2.5"),
    (lambda: lb.model("lorenz", rho=lb.linspace(0, 21, 3)).parameters(-1), ValueError, r"^members: expected an integer in \[1, "),
    # Numbers float64 does not hold exactly are not rounded silently.
    (lambda: solve(y0=TOP.initial.astype(np.longdouble) + np.longdouble(4) * np.finfo(np.longdouble).eps), TypeError,
     r"^y0\[5\] is 1.0000000000000000004, which float64 does not hold exactly \(dtype float128\)"),
    (lambda: lb.solve(lb.model("lorenz"), np.array([2**53 + 1, 0, 0], dtype=np.int64), h=0.1), TypeError,
     r"^y0\[0\] is 9007199254740993, which float64 does not hold exactly"),
    (lambda: TOP.defect(np.ones(6, dtype=np.complex128)), TypeError, r"^y: expected an array of float64 or float32"),
    (lambda: TOP.defect("abc"), TypeError, r"^y: expected an array of float64 or float32"),
    (lambda: solve(y0=[[0, 0, 0, 0, 0, 1.0], [0, 0, 1.0]]), ValueError, r"^y0: expected an array of numbers with rows of one length"),
    (lambda: lb.values([[1, 2], [3, 4]]), ValueError, r"^values: expected a list of numbers \(1-D\), got shape \(2, 2\)"),
    (lambda: lb.model("heavy_top", preset="bruls_cardona", com=np.array([0, 1.0, 0])), ValueError,
     r"^parameter com: expected an array of 3 entries.*\(a 1-D array is a sweep of a single number; give a list"),
    (lambda: lb.model("pendulum_chain"), ValueError, r"^parameters: missing \(required: N\)"),
    (lambda: lb.compile_model(path="/nonexistent/model.hpp", type="M"), OSError, r"^source: "),
    (lambda: lb.run_config(dict(LORENZ, time={"t0": 0, "t1": float("nan")})), ValueError, r"^t: expected a finite number \(JSON"),
    (lambda: lb.model("heavy_top", mass={"values": [float("nan")]}), ValueError, r"^parameter mass/values/0: expected a finite number"),
])
def test_bad_input_names_the_argument_and_value(make, error, text):
    with pytest.raises(error, match=text):
        make()


def test_numpy_numbers_and_byte_orders_are_taken_as_python_s():
    # A float32 state in big-endian order runs in float, as the native one does.
    y = TOP.initial.astype(np.float32)
    a = solve(y0=y, samples=3)
    b = solve(y0=y.astype(">f4"), samples=3)
    assert a.attrs[""]["precision"] == b.attrs[""]["precision"] == "float"
    assert np.array_equal(a.final.y, b.final.y) and a.final.y.dtype == np.float32
    # numpy scalars and arrays where JSON is built (a component from np.argmax, a seed from numpy).
    s = solve(section=lb.Hyperplane(np.int64(3), np.float32(0.0)), samples=0, t=(0, 1))
    assert s.attrs[""]["config"] == solve(section=lb.Hyperplane(3, 0.0), samples=0, t=(0, 1)).attrs[""]["config"]
    m = lb.model("heavy_top", preset="bruls_cardona", sampler={"kind": "sobol", "seed": np.int64(3)}, mass=lb.normal(15, 0.1))
    assert m.parameters(4)["mass"].shape == (4,)
    r = lb.run_config(dict(LORENZ, initial={"state": np.array([1.0, 0, 0])}))
    assert r.final.status_names() == ["ok"]


def test_solve_records_a_config_that_is_not_run_as_another_ensemble(tmp_path):
    # It held row 0 of y0 as "state" and a tolerance of 1e300: run again, one member's copies.
    r = solve(y0=np.repeat(TOP.initial[None], 3, axis=0), tolerance=1e-9)
    cfg = json.loads(r.attrs[""]["config"])
    assert cfg["initial"] == {"states": "lb.solve's y0: the output's initial/y", "tolerance": 1e-9, "normalize": False}
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    p = subprocess.run([os.environ["LIEBATCH_EXE"], "run", str(tmp_path / "c.json"), "-o", str(tmp_path / "c.h5")], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "/initial/states" in p.stderr, p.stderr


def test_normalize_projects_states_off_the_manifold():
    y = TOP.initial.copy()
    y[3:] *= 1.001
    r = solve(y0=y, normalize=True)
    assert abs(np.linalg.norm(r["initial/y"][3:, 0]) - 1) < 1e-15


def test_a_failing_member_is_flagged_and_leaves_the_others_alone():
    lz = lb.model("lorenz", rho=28.0)
    y0 = np.array([[1.0, 1, 1], [1e300, 1e300, 1e300]])
    r = lb.solve(lz, y0, t=(0, 1), h=1e-2, method="rkmk4")
    names = r.final.status_names()
    assert names[0] == "ok" and names[1] != "ok"
    alone = lb.solve(lz, y0[:1], t=(0, 1), h=1e-2, method="rkmk4")
    assert np.array_equal(alone.final.y[:, 0], r.final.y[:, 0])
    assert np.isnan(r.samples.t[1, 1]) and np.isnan(r.samples.y[1, :, 1]).all()  # never reached: NaN, not 0


def test_hostile_configs_get_the_command_lines_answers(tmp_path):
    base = {"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t0": 0, "t1": 1}, "step": {"h": 1e-3},
            "initial": {"state": [1, 0, 0]}}
    # More members than memory holds: refused at once, naming the sizes.
    huge = dict(base, initial={"state": [1, 0, 0], "ensemble": {"count": 2 ** 40, "scale": 0.1}})
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"members"):
        lb.run_config(huge)
    assert time.monotonic() - t0 < 5
    # Deep nesting and huge values: a short message with the path.
    deep = dict(base, model={"name": "lorenz", "parameters": {"rho": {"values": [[[[[[1]]]]]]}}})
    with pytest.raises(ValueError, match=r"^config /model/parameters/rho/values/0: expected a finite number"):
        lb.run_config(deep)
    with pytest.raises(ValueError, match=r"^config /method: unknown method '.{0,80}\.\.\. \(100000 characters\)"):
        lb.run_config(dict(base, method="x" * 100_000))
    # A config file that is a directory, or unreadable: OSError with the reason.
    with pytest.raises(OSError, match=r"cannot read config"):
        lb.run_config(tmp_path)
    # A states file named by a config read from a dict is resolved against the current directory.
    with pytest.raises(OSError, match=r"no-such-states\.h5|no-such-states"):
        lb.run_config(dict(base, initial={"file": "no-such-states.h5"}))


def test_save_never_replaces_links_directories_or_foreign_files(tmp_path):
    r = lb.solve(TOP, TOP.initial, t=(0, 0.01), h=1e-3)
    (tmp_path / "target.h5").write_text("precious")
    os.symlink(tmp_path / "target.h5", tmp_path / "link.h5")
    (tmp_path / "dir.h5").mkdir()
    for name, text in (("link.h5", "a link"), ("dir.h5", "a directory"), ("target.h5", "liebatch did not write it")):
        with pytest.raises(FileExistsError, match=text):
            r.save(tmp_path / name)
    with pytest.raises(ValueError, match=r"^path: expected a file name ending in \.h5"):
        r.save(tmp_path / "out.txt")
    assert (tmp_path / "target.h5").read_text() == "precious"
    assert sorted(os.listdir(tmp_path)) == ["dir.h5", "link.h5", "target.h5"]
    r.save(tmp_path / "target.h5", force=True)  # replaced only when asked
    assert lb.load(tmp_path / "target.h5").final.y.shape == (6, 1)
    # Its mode is the command line's (0666 less the umask), and a read-only file is never replaced.
    mask = os.umask(0o027)
    try:
        r.save(tmp_path / "new.h5")
    finally:
        os.umask(mask)
    assert (tmp_path / "new.h5").stat().st_mode & 0o777 == 0o640
    (tmp_path / "new.h5").chmod(0o444)
    with pytest.raises(FileExistsError, match="read-only"):
        r.save(tmp_path / "new.h5", force=True)


def test_save_ended_by_sigterm_leaves_no_temporary(tmp_path):
    """SIGTERM in the middle of save (sent from its write: deterministic) removes the temporary, then
    ends the process as SIGTERM does."""
    script = f"""
import os, signal
import numpy as np
import liebatch as lb
class Bomb:
    def __array__(self, dtype=None, copy=None):
        os.kill(os.getpid(), signal.SIGTERM)
        return np.zeros(3)
top = lb.model("heavy_top", preset="bruls_cardona")
r = lb.solve(top, top.initial, t=(0, 0.01), h=1e-3)
r.arrays["zzz"] = Bomb()
r.save({str(tmp_path / "out.h5")!r})
print("not ended")
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert p.returncode == -signal.SIGTERM and "not ended" not in p.stdout, (p.returncode, p.stderr)
    assert os.listdir(tmp_path) == []
