"""A user's model against the built-in one (issue 36): compile time, cached load, and speed.

1. Compile: tests/models/heavy_top.hpp (the heavy top as a user's header) for rkmk4 and rkmk54,
   into an empty cache, timed around lb.compile_model; then a fresh interpreter loads it from the
   cache, timed the same way. Targets: <= 60 s on this machine's 2 cores, <= 1 s.
2. Speed: the same heavy tops (10^4 members x 2000 RKMK4 steps, on packs, and one member per
   lane without them) with the built-in heavy_top and with the user's Top, alternated, 5 rounds;
   the median of ModelRunner::run's time (run_seconds) for each, and their ratio. Target: within
   3 %. The results are compared too: bitwise equal.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/user_model.py
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
header = os.path.join(here, "..", "tests", "models", "heavy_top.hpp")
cache = tempfile.mkdtemp(prefix="liebatch-bench-cache-")
os.environ["LIEBATCH_CACHE_DIR"] = cache
import liebatch as lb  # noqa: E402

t0 = time.perf_counter()
src = lb.compile_model(path=header, type="Top", methods=["rkmk4", "rkmk54"])
compile_s = time.perf_counter() - t0
load = subprocess.run([sys.executable, "-c", f"""
import time, liebatch as lb
t0 = time.perf_counter()
lb.compile_model(path={header!r}, type="Top", methods=["rkmk4", "rkmk54"])
print(time.perf_counter() - t0)"""], capture_output=True, text=True, env=dict(os.environ))
print(f"compile (2 methods x float, double, long double x one member, packs): {compile_s:.1f} s; "
      f"cached load in a fresh interpreter: {float(load.stdout) * 1e3:.0f} ms")

p = {"inertia": [2, 1.5, 0.8], "com": [0.1, 0.05, 0.5], "mass": 2.0, "gravity": 9.81}
built_in, user = lb.model("heavy_top", **p), lb.model(src, **p)
rng = np.random.default_rng(3)
y0 = np.concatenate([rng.normal(size=(10_000, 3)), [[0.0, 0.6, 0.8]] * 10_000], axis=1)
for simd in (True, False):
    times = {"built-in": [], "user": []}
    outs = {}
    for _ in range(5):
        for name, m in (("built-in", built_in), ("user", user)):
            r = lb.solve(m, y0, t=(0, 2), h=1e-3, method="rkmk4", simd=simd)
            times[name].append(r.attrs[""]["run_seconds"])
            outs[name] = r.final.y
    b, u = statistics.median(times["built-in"]), statistics.median(times["user"])
    same = np.array_equal(outs["built-in"], outs["user"])
    print(f"{'packs' if simd else 'one member at a time'}: built-in {b:.3f} s, user {u:.3f} s, user/built-in {u / b:.3f}; "
          f"final states bitwise equal: {same}")
