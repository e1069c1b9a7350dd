"""Users' models compiled at run time (cli/models/plugins.cpp): the built-in models written as user
headers give their numbers bitwise, errors come at the user's lines, and the cache is safe."""
import glob
import json
import re
import os
import signal
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest

import liebatch as lb
from conftest import EXE, SOURCE, assert_same

MODELS = os.path.join(SOURCE, "tests", "models")
# (header, template, built-in model, parameters, state): the same model both ways.
CASES = [
    ("free_rigid_body.hpp", "Body", "free_rigid_body", {"inertia": [2, 1, 0.5]}, [1, 0.5, -0.3]),
    ("heavy_top.hpp", "Top", "heavy_top", {"inertia": [2, 1.5, 0.8], "com": [0.1, 0.05, 0.5], "mass": 2, "gravity": 9.81},
     [1, 0.2, 0, 0, 0.6, 0.8]),
]


def config(model, state, method):
    adaptive = method == "rkmk54"
    step = {"adaptive": True, "atol": 1e-9, "rtol": 1e-9} if adaptive else {"h": 0.01}
    return {"model": model, "method": method, "time": {"t0": 0, "t1": 2}, "step": step,
            "initial": {"state": state, "ensemble": {"count": 20, "scale": 0.05, "seed": 7}}, "outputs": {"samples": 5}}


def user_spec(header, template, parameters, gpu=False):
    """The model object of a user's header; without GPU kernels (nvcc takes a minute or two), but
    in the tests of the GPU path."""
    return {"source": os.path.join(MODELS, header), "type": template, "parameters": parameters, "gpu": gpu}


@pytest.mark.parametrize("method", ["rkmk4", "rkmk54"])
@pytest.mark.parametrize("header,template,name,parameters,state", CASES, ids=[c[2] for c in CASES])
def test_a_user_header_gives_the_built_in_models_numbers(cli, header, template, name, parameters, state, method):
    built_in = config({"name": name, "parameters": parameters}, state, method)
    user = config(user_spec(header, template, parameters), state, method)
    for flags in ([], ["--no-simd"]):  # packs, and one member at a time
        a, b = cli(built_in, "run", *flags), cli(user, "run", *flags)
        assert set(b.final.status_names()) == {"ok"}
        assert_same(a, b)
        assert b.attrs[""]["model"] == template
    # From Python: the same source compiled by lb.compile_model, run by lb.solve.
    src = lb.compile_model(path=os.path.join(MODELS, header), type=template, methods=["rkmk4", "rkmk54"], gpu=False)
    steps = {"atol": 1e-9, "rtol": 1e-9} if method == "rkmk54" else {"h": 0.01}
    r = lb.solve(lb.model(src, **parameters), a["initial/y"].T, t=(0, 2), method=method, samples=5, **steps)
    assert_same(r, a)


def test_a_float_run_of_a_user_model_equals_the_built_in_one(cli):
    header, template, name, parameters, state = CASES[0]
    a = cli(config({"name": name, "parameters": parameters}, state, "rkmk4"), "run", "--precision", "float")
    b = cli(config(user_spec(header, template, parameters), state, "rkmk4"), "run", "--precision", "float")
    assert_same(a, b)


def test_a_method_it_was_not_compiled_for_is_refused_with_the_way_to_add_it():
    src = lb.compile_model(path=os.path.join(MODELS, "free_rigid_body.hpp"), type="Body", methods=["rkmk4", "rkmk54"], gpu=False)
    with pytest.raises(ValueError, match="compiled for rkmk4, rkmk54"):
        lb.solve(lb.model(src), [1, 0, 0], t=(0, 1), h=0.1, method="cf4")


def test_parameters_defaults_and_names_come_from_the_header():
    src = lb.compile_model(path=os.path.join(MODELS, "heavy_top.hpp"), type="Top", methods=["rkmk4", "rkmk54"], gpu=False)
    m = lb.model(src, mass=lb.linspace(1, 2, 3))
    assert m.observable_names == ["energy", "|Gamma|", "Pi.Gamma"] and m.dim == 6
    assert np.array_equal(m.parameters()["mass"], [1, 1.5, 2])
    with pytest.raises(ValueError, match=r"parameter mass.*> 0"):
        lb.model(src, mass=-1)
    with pytest.raises(ValueError, match="parameter inertial: unknown key"):
        lb.model(src, inertial=[1, 2, 3])


# --- Errors: the compiler's message at the user's line, nothing cached.
GOOD = open(os.path.join(MODELS, "free_rigid_body.hpp")).read()
BROKEN = [
    ("a syntax error", GOOD.replace("return lb::vec3(-mu[0]", "return lb::vec3(-mu[0] +* "), "f(T, const", "expected"),
    ("a missing f", GOOD.replace("LB_HD lb::Vec3<T> f(T,", "LB_HD lb::Vec3<T> g(T,"), "struct Body", "no member `f(t, y)`"),
    ("a wrong state size", GOOD.replace("LB_HD lb::Vec3<T> f(T, const lb::Vec3<T>& mu) const { return lb::vec3(",
                                        "LB_HD lb::Vec<T, 4> f(T, const lb::Vec3<T>& mu) const { return lb::Vec<T, 4>{"
                                        ).replace("/ inertia[2]); }", "/ inertia[2], 0}; }"),
     "struct Body", "f(t, y) must return typename space::algebra::vec"),
    ("a parameter without a default", GOOD.replace('("inertia", {2, 1, 2.0 / 3}, "principal', '("inertia", "principal'),
     "lb::parameter<&Body::inertia>", "has no default"),
]


@pytest.mark.parametrize("what,text,line_of,message", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_model_gives_the_compilers_message_at_the_users_line(what, text, line_of, message):
    assert text != GOOD, what
    with pytest.raises(lb.CompileError, match="does not compile") as e:
        lb.compile_model(cpp=text, type="Body", methods=["rkmk4"], gpu=False)
    said = str(e.value)
    assert message in said, said
    header = [p for p in glob.glob(os.path.join(lb._liebatch.plugin_cache(), "sources", "*.hpp")) if open(p).read() == text]
    assert len(header) == 1
    line = 1 + text[:text.index(line_of)].count("\n")  # the error names the user's file and line
    assert f"{header[0]}:{line}:" in said, said


def test_a_compile_error_from_the_command_line_exits_2_and_caches_nothing(tmp_path):
    header = tmp_path / "broken.hpp"
    header.write_text(BROKEN[0][1])
    cfg = tmp_path / "broken.json"
    cfg.write_text(
        '{"model": {"source": "broken.hpp", "type": "Body", "gpu": false}, "method": "rkmk4", "time": {"t0": 0, "t1": 1},'
        ' "step": {"h": 0.1}, "initial": {"state": [1, 0, 0]}}')
    cache = tmp_path / "cache"
    p = subprocess.run([EXE, "run", str(cfg), "-o", str(tmp_path / "out.h5"), "-q"], capture_output=True, text=True,
                       env=dict(os.environ, LIEBATCH_CACHE_DIR=str(cache)))
    assert p.returncode == 2, p.stderr
    line = 1 + BROKEN[0][1][:BROKEN[0][1].index("f(T, const")].count("\n")
    assert f"{header}:{line}:" in p.stderr and "config /model/source" in p.stderr, p.stderr
    assert not (tmp_path / "out.h5").exists()
    assert os.listdir(cache / "models") == []  # nothing cached, no build directory left


# --- The cache: one compile, a fast load, a rebuild of what is stale or damaged, concurrent compiles.
# A small model (no packs: it compiles in half the time) with a scalar parameter whose default is 0
# (a number, not the "no default" form), including a header of its own.
SMALL = """#include <string>
#include <vector>

#include <liebatch/coadjoint.hpp>
#include <liebatch/model_parameters.hpp>
#include "part.hpp"

template <class T> struct Small {
  using space = lb::CoadjointSO3<T>;
  lb::Vec3<T> inertia;
  T damping;
  static constexpr auto parameters() {
    return lb::parameters(lb::parameter<&Small::inertia>("inertia", {2, 1, 0.5}, "moments", lb::positive),
                          lb::parameter<&Small::damping>("damping", 0, "unused"));
  }
  LB_HD lb::Vec3<T> f(T, const lb::Vec3<T>& mu) const { return lb::vec3(-mu[0] / inertia[0], -mu[1] / inertia[1], -mu[2] / inertia[2]); }
  template <class U> Small<U> cast() const { return {lb::cast<U>(inertia), U(damping)}; }
};
"""


def write_small(tmp_path, header=SMALL, time='"t0": 0, "t1": 1', initial='"state": [1, 0, 0]'):
    """The small model's header, the file it includes and a config of it, in tmp_path."""
    (tmp_path / "small.hpp").write_text(header)
    (tmp_path / "part.hpp").write_text("inline constexpr int small_part = 1;\n")
    (tmp_path / "small.json").write_text(
        '{"model": {"source": "small.hpp", "type": "Small", "methods": ["rkmk4"], "gpu": false}, "method": "rkmk4",'
        ' "time": {' + time + '}, "step": {"h": 0.1}, "initial": {' + initial + '}}')


def run_small(cache, config_file=None):
    """`liebatch list`-free check: a run of the small model, returning (seconds, stderr)."""
    env = dict(os.environ, LIEBATCH_CACHE_DIR=str(cache))
    if config_file:
        env["LIEBATCH_PLUGIN_CONFIG"] = str(config_file)
    out = cache.parent / f"out-{threading.get_ident()}.h5"
    t0 = time.monotonic()
    p = subprocess.run([EXE, "run", str(cache.parent / "small.json"), "-o", str(out), "-q", "--force"], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    return time.monotonic() - t0, p.stderr


def objects(cache):
    return sorted(os.listdir(cache / "models"))


@pytest.mark.parametrize("names,message", [
    ('static std::vector<std::string> state_names() { return {"mu"}; }', "state_names() gives 1 name for a state of 3 numbers"),
    ('static std::vector<std::string> observable_names() { return {"e", "f"}; }',
     "observable_names() gives 2 names for the 0 numbers observables(y) returns"),
], ids=["state", "observables"])
def test_names_that_do_not_count_the_numbers_are_refused_before_the_run(tmp_path, names, message):
    # Every output array is sized by the names: too few state names once crashed a poincare run
    # (SIGSEGV), too many observable names wrote samples of 0 that were never computed.
    write_small(tmp_path, SMALL.replace("  static constexpr auto parameters()", "  " + names + "\n  static constexpr auto parameters()"))
    env = dict(os.environ, LIEBATCH_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # compiled, then from the cache: the same answer, quickly
        p = subprocess.run([EXE, "run", str(tmp_path / "small.json"), "-o", str(tmp_path / "out.h5"), "-q"], capture_output=True,
                           text=True, env=env)
        assert p.returncode == 2 and "config /model: the model breaks its contract: " + message in p.stderr, p.stderr
    assert "compiling" not in p.stderr and not (tmp_path / "out.h5").exists()


def test_slices_and_checkpoints_of_a_changed_header_are_another_run(tmp_path):
    # A file the header includes from its directory changes between two slices, and between a
    # checkpoint and its resume: both were joined into one run, of members of two models.
    write_small(tmp_path, time='"t0": 0, "t1": 20000', initial='"state": [1, 0, 0], "ensemble": {"count": 4, "scale": 0.1}')
    env = dict(os.environ, LIEBATCH_CACHE_DIR=str(tmp_path / "cache"))

    def liebatch(*args, **kw):
        return subprocess.run([EXE, *map(str, args), "-q"], capture_output=True, text=True, env=dict(env, **kw))

    assert liebatch("run", tmp_path / "small.json", "--members", "0:2", "-o", tmp_path / "p1.h5").returncode == 0
    (tmp_path / "part.hpp").write_text("inline constexpr int small_part = 2;\n")
    assert liebatch("run", tmp_path / "small.json", "--members", "2:4", "-o", tmp_path / "p2.h5").returncode == 0
    p = liebatch("merge", tmp_path / "p1.h5", tmp_path / "p2.h5", "-o", tmp_path / "all.h5")
    assert p.returncode == 2 and "its model_source differs ('small.hpp (FNV-1a" in p.stderr, p.stderr
    # A checkpoint (the run killed before its third generation's rename), then the header back.
    out = tmp_path / "out.h5"
    p = liebatch("run", tmp_path / "small.json", "-o", out, "--checkpoint-every", 0.01, LIEBATCH_CHECKPOINT_KILL_BEFORE_RENAME="3")
    assert p.returncode == -signal.SIGKILL, p.stderr
    (tmp_path / "part.hpp").write_text("inline constexpr int small_part = 1;\n")
    p = liebatch("run", tmp_path / "small.json", "-o", out, "--resume")
    assert p.returncode == 2 and "model_source" in p.stderr and not out.exists(), p.stderr


def test_a_compile_stopped_leaves_no_build_directory_and_one_set_of_methods_is_one_plugin(tmp_path):
    write_small(tmp_path)
    cfg = json.loads((tmp_path / "small.json").read_text())
    env = dict(os.environ, LIEBATCH_CACHE_DIR=str(tmp_path / "cache"))

    def run(methods, **kw):
        cfg["model"]["methods"] = methods
        (tmp_path / "small.json").write_text(json.dumps(cfg))
        return subprocess.Popen([EXE, "run", str(tmp_path / "small.json"), "-o", str(tmp_path / "out.h5"), "-q", "--force"],
                                stderr=subprocess.PIPE, text=True, env=env, **kw)

    # SIGTERM while the compiler runs: its build directory stayed in the cache until a later sweep.
    p = run(["rkmk4", "cf4"])
    for _ in range(3000):
        if os.path.isdir(tmp_path / "cache" / "models") and any(f.startswith(".build-") for f in objects(tmp_path / "cache")):
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=60) == -signal.SIGTERM
    assert not [f for f in objects(tmp_path / "cache") if f.startswith(".build-")]
    # The same methods in another order: the plugin compiled for the first (it compiled again).
    p = run(["rkmk4", "cf4"])
    assert p.wait(timeout=300) == 0 and "compiling model Small" in p.stderr.read()
    p = run(["cf4", "rkmk4"])
    assert p.wait(timeout=60) == 0 and "compiling" not in p.stderr.read()


def test_the_cache_compiles_once_rebuilds_what_is_stale_and_survives_two_compiles_at_once(tmp_path):
    write_small(tmp_path)
    cache = tmp_path / "cache"
    # Two processes compile the same model at once: both succeed, one plugin is kept.
    results = []
    threads = [threading.Thread(target=lambda: results.append(run_small(cache))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and all("compiling model Small" in err for _, err in results)
    kept = objects(cache)
    plugin = [k for k in kept if k.endswith(".so")]
    assert len(kept) == 2 and len(plugin) == 1 and any(k.endswith(".manifest") for k in kept), kept
    # Cached: loaded in well under a second, nothing compiled.
    seconds, err = run_small(cache)
    assert "compiling" not in err and seconds < 1.0, (seconds, err)
    # A damaged object (truncated) is rebuilt, not loaded.
    so = cache / "models" / plugin[0]
    so.write_bytes(so.read_bytes()[:4096])
    _, err = run_small(cache)
    assert "compiling model Small" in err
    assert objects(cache) == kept and so.stat().st_size > 4096  # the compile is deterministic: the same name
    # Other flags (or another liebatch, another compiler) make another key: compiled anew.
    flags = tmp_path / "config.txt"
    original = os.environ.get("LIEBATCH_PLUGIN_CONFIG") or os.path.join(os.path.dirname(EXE), "plugin", "config.txt")
    shutil.copy(original, flags)
    with open(flags, "a") as f:
        f.write("flag -DLB_TEST_OTHER_FLAGS\n")
    _, err = run_small(cache, flags)
    assert "compiling model Small" in err and len(objects(cache)) == 4
    # A header it includes has changed: stale, rebuilt (the key is the same; the manifest says so).
    (tmp_path / "part.hpp").write_text("inline constexpr int small_part = 2;\n")
    _, err = run_small(cache)
    assert "compiling model Small" in err and len(objects(cache)) == 4
    _, err = run_small(cache)
    assert "compiling" not in err

def test_the_cache_is_refused_where_another_user_could_change_it(tmp_path, monkeypatch):
    """A plugin is code this process runs, found by its path: the cache's directory and every one
    above it must be beyond other users' reach (another user's, or open to all without the sticky
    bit, could have the cache renamed and replaced between its checks and dlopen)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.chdir(tmp_path)
    for asked, why in ((shared / "mine", "another user can change"), ("relative", "a relative path")):
        monkeypatch.setenv("LIEBATCH_CACHE_DIR", str(asked))
        with pytest.raises(OSError, match=why):
            lb._liebatch.plugin_cache()
    assert not (tmp_path / "relative").exists()
    shared.chmod(0o1777)  # sticky, as /tmp: only an entry's owner renames it
    os.symlink(shared, tmp_path / "link")
    monkeypatch.setenv("LIEBATCH_CACHE_DIR", str(tmp_path / "link" / "mine"))
    assert lb._liebatch.plugin_cache() == str((shared / "mine" / "models").resolve())  # no link left in it


def test_a_sympy_rigid_body_gives_the_built_in_numbers(cli):
    import sympy as sp
    mu, inertia = sp.symbols("mu_x mu_y mu_z"), sp.symbols("I1 I2 I3")
    src = lb.sympy_model("so3*", mu, [-m / i for m, i in zip(mu, inertia)], parameters=dict(zip(inertia, [2, 1, 0.5])),
                         observables={"energy": sum(m**2 / (2 * i) for m, i in zip(mu, inertia)),
                                      "casimir |mu|": sp.sqrt(sum(m**2 for m in mu))}, name="SympyBody", gpu=False)
    with open(src.path) as f:
        assert "const T c0" in f.read()  # the energy's and the Casimir's squares, computed once
    for method in ("rkmk4", "rkmk54"):
        a = cli(config({"name": "free_rigid_body", "parameters": {"inertia": [2, 1, 0.5]}}, [1, 0.5, -0.3], method))
        b = cli(config({"source": src.path, "type": "SympyBody", "gpu": False}, [1, 0.5, -0.3], method))
        steps = {"atol": 1e-9, "rtol": 1e-9} if method == "rkmk54" else {"h": 0.01}
        r = lb.solve(lb.model(src), a["initial/y"].T, t=(0, 2), method=method, samples=5, **steps)
        for out in (b, r):  # the states bitwise; the observables, printed by sympy in another order, to round-off
            for k in ("final/y", "final/t", "final/steps", "samples/t", "samples/y"):
                assert np.array_equal(out[k], a[k]), (method, k)
            assert np.allclose(out["samples/observables"], a["samples/observables"], rtol=1e-15, atol=0)


def test_sympy_models_refuse_what_would_reach_the_code():
    import sympy as sp
    mu = sp.symbols("x y z")
    with pytest.raises(ValueError, match="does not know"):
        lb.sympy_model("so3*", mu, [sp.Function("system")(mu[0]), 0, 0])
    with pytest.raises(ValueError, match="neither state"):
        lb.sympy_model("so3*", mu, [sp.Symbol("q"), 0, 0])
    with pytest.raises(ValueError, match="names"):
        lb.sympy_model("so3*", mu, [0, 0, 0], observables={'a"); system("x': mu[0]})
    with pytest.raises(ValueError, match="name"):
        lb.sympy_model("so3*", mu, [0, 0, 0], name="A; int x")
    t = sp.Symbol("t")
    with pytest.raises(ValueError, match="twice"):
        lb.sympy_model("so3*", mu, [0, 0, 0], parameters={mu[0]: 1})
    with pytest.raises(ValueError, match="depends on time"):
        lb.sympy_model("so3*", mu, [0, 0, 0], observables={"e": t * mu[0]}, time=t)
    # A string is never parsed (sympify runs it through eval): this one once created a file.
    planted = "__import__('os').system('touch liebatch-sympy-planted') or z"
    for kw in ({"f": [0, 0, planted]}, {"f": [0, 0, 0], "observables": {"e": planted}}):
        with pytest.raises(TypeError, match="expected a sympy expression or a number, got the string"):
            lb.sympy_model("so3*", mu, **kw)
    assert not os.path.exists("liebatch-sympy-planted")
    with pytest.raises(TypeError, match=r"f\[1\]: expected a sympy expression or a number, got list"):
        lb.sympy_model("so3*", mu, [0, [1], 0])
    # A function class of the user's prints as its name, any text: this one planted a file once it
    # compiled. Nor does a symbol bound in a Sum, a function sympy cannot print, zoo, a keyword as
    # the name, two symbols of one name, or an assumption nothing enforces reach the code.
    evil = type("F(s0); } }; static int planted = std::system(\"touch x\"); struct G { int g(", (sp.Function,), {})
    n, k = sp.Symbol("n"), sp.Symbol("k")
    for f, match in (([evil(mu[0]), 0, 0], "does not compile"), ([sp.Sum(mu[0]**n, (n, 0, 3)), 0, 0], "neither state"),
                     ([sp.besselj(0, mu[0]), 0, 0], r"does not compile \(besselj"), ([sp.zoo * mu[0], 0, 0], "undefined")):
        with pytest.raises(ValueError, match=match):
            lb.sympy_model("so3*", mu, f)
    for kw, match in (({"name": "int"}, "no keyword"), ({"name": "cast"}, "no keyword"),
                      ({"parameters": {k: 1, sp.Symbol("k", positive=True): 2}}, r"a name appears twice \(k\)"),
                      ({"parameters": {sp.Symbol("q", nonnegative=True): 1}}, "declare it plain, real=True or positive=True")):
        with pytest.raises(ValueError, match=match):
            lb.sympy_model("so3*", mu, [0, 0, 0], **kw)


def test_sympy_models_print_their_constants_in_the_models_scalar(monkeypatch):
    # 1/x was 1.0/x, a double (std::max(float, double) does not compile); integers past 2^64 wrapped.
    import sympy as sp
    x, y, z = sp.symbols("x y z")
    k = sp.Symbol("k", positive=True)
    text = {}
    monkeypatch.setattr(lb, "compile_model", lambda cpp, **kw: text.setdefault("cpp", cpp))
    lb.sympy_model("so3*", [x, y, z], [y * z, -x * z, sp.Max(x, 1 / x)], parameters={k: 2.0},
                   observables={"e": 10**20 * x + sp.Rational(1, 2**70) * y + x**-sp.Rational(1, 2) + k * sp.oo})
    cpp = text["cpp"]
    assert "std::max(s0, (T(1) / (s0)))" in cpp and "1.0" not in cpp
    assert "T(100000000000000000000.0L)" in cpp and "T(1180591620717411303424.0L)" in cpp
    assert "(T(1) / std::sqrt(s0))" in cpp and "std::numeric_limits<T>::infinity()" in cpp
    assert 'lb::parameter<&SympyModel::p0>("k", 2.0, "k", lb::positive)' in cpp


def test_two_models_of_one_type_name_keep_their_own_parameters():
    # GCC made a template's static table STB_GNU_UNIQUE, bound process-wide even under RTLD_LOCAL:
    # the second SympyModel of a session took the first's parameters.
    import sympy as sp
    mu = sp.symbols("x y z")
    a, b = sp.Symbol("a"), sp.Symbol("b")
    first = lb.sympy_model("so3*", mu, [a * mu[1], 0, 0], parameters={a: 1.0}, methods=["rkmk4"], gpu=False)
    second = lb.sympy_model("so3*", mu, [b * mu[1], 0, 0], parameters={b: 3.0}, methods=["rkmk4"], gpu=False)
    with pytest.raises(ValueError, match="parameter a: unknown key"):
        lb.model(second, a=2.0)
    with pytest.raises(ValueError, match="parameter b: unknown key"):
        lb.model(first, b=2.0)
    run = lambda m: lb.solve(m, [0.3, 0.8, 0.5], t=(0, 1), h=0.1).final.y  # noqa: E731
    assert np.array_equal(run(lb.model(second)), run(lb.model(first, a=3.0)))  # b's default, 3, in its own table
    assert not np.array_equal(run(lb.model(second)), run(lb.model(first)))


# --- The GPU path: a user's model gets kernels of its own (cli/models/plugin_unit_gpu.cu, nvcc).
def test_a_user_model_has_gpu_kernels_where_this_liebatch_has_a_gpu_path(cli):
    header, template, name, parameters, state = CASES[0]
    path = os.path.join(MODELS, header)
    if not any(m["gpu"] for m in lb.methods()):  # a build without CUDA: asking for kernels is refused, named
        with pytest.raises(ValueError, match="gpu: this liebatch has no GPU path"):
            lb.compile_model(path=path, type=template, methods=["rkmk4"], gpu=True)
        m = lb.model(lb.compile_model(path=path, type=template, methods=["rkmk4"]))
        assert "no GPU path" in m._m.gpu_missing("rkmk4")
        return
    src = lb.compile_model(path=path, type=template, methods=["rkmk4", "rkmk54"], gpu=True)
    m = lb.model(src, **parameters)
    assert m._m.gpu_missing("rkmk4") == "" and m._m.gpu_missing("rkmk54") == ""
    assert "compiled for rkmk4, rkmk54" in m._m.gpu_missing("cf4")  # its own methods, not the build's
    # The CPU plugin of test_a_user_header_gives_the_built_in_models_numbers, from the cache.
    cpu_only = lb.model(lb.compile_model(path=path, type=template, methods=["rkmk4", "rkmk54"], gpu=False))
    assert '"gpu": false' in cpu_only._m.gpu_missing("rkmk4")
    why = lb.gpu_unavailable()
    by_default = lb.model(lb.compile_model(path=path, type=template, methods=["rkmk4", "rkmk54"]))._m.gpu_missing("rkmk4")
    assert by_default == ("" if "LIEBATCH_CUDA_CHECK_ONLY" not in why else cpu_only._m.gpu_missing("rkmk4"))  # kernels by default where they can run
    if why:  # kernels compiled, no device to run them: a run says so, and not that they are missing
        with pytest.raises(RuntimeError, match="device 'gpu' requested but unusable: " + re.escape(why)):
            lb.run_config(config(user_spec(header, template, parameters, gpu=True), state, "rkmk4"), device="gpu")
        pytest.skip(f"the kernels compiled and load; running them needs a GPU: {why}")
    # On a GPU: each user header's kernels against its built-in model on the CPU, within validate's bound.
    for header, template, name, parameters, state in CASES:
        for method in ("rkmk4", "rkmk54"):
            user = config(user_spec(header, template, parameters, gpu=True), state, method)
            v = cli(dict(user, validate={"against": "gpu", "bound": 1e-12}), "validate")
            assert v.attrs[""]["validate_result"] == "pass", (template, method, v.attrs[""])
            gpu = lb.run_config(user, device="gpu")
            cpu = cli(config({"name": name, "parameters": parameters}, state, method), "run", "--device", "cpu")
            assert np.allclose(gpu["final/y"], cpu["final/y"], rtol=0, atol=1e-12), (template, method)
