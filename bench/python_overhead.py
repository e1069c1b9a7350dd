"""What the Python module adds to a run, and the memory its results take.

1. Overhead: the wall time of lb.solve minus that of ModelRunner::run inside it (the attribute
   run_seconds, timed around the call in C++), for the heavy top under RKMK4, 10^4 members x 10^3
   steps, and 1 member x 1 step; median of 5. Targets (issue 35): <= 2 % and <= 2 ms.
2. Memory: a 10^5-member, 101-sample heavy-top run in a fresh interpreter; its peak RSS against
   the bytes of the arrays it returns. Target: <= 1.1 x outputs + 200 MB. The arrays' base is the
   engine's vector (a capsule), not a copy.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py
"""
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

import liebatch as lb


def overhead(members, steps, rounds=5):
    top = lb.model("heavy_top", preset="bruls_cardona")
    y0 = np.repeat(top.initial[None, :], members, axis=0)
    walls, extra = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        r = lb.solve(top, y0, t=(0, steps * 1e-3), h=1e-3, method="rkmk4")
        wall = time.perf_counter() - t0
        walls.append(wall)
        extra.append(wall - r.attrs[""]["run_seconds"])
    return statistics.median(walls), statistics.median(extra)


MEMORY = """
import resource, numpy as np, liebatch as lb
top = lb.model("heavy_top", preset="bruls_cardona")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
r = lb.solve(top, np.repeat(top.initial[None, :], 100_000, axis=0), t=(0, 0.1), h=1e-3, samples=101)
outputs = sum(a.nbytes for a in r.arrays.values() if isinstance(a, np.ndarray))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
owned = all(type(r[k].base).__name__ == "PyCapsule" for k in ("samples/y", "samples/observables", "final/y"))
print(outputs, peak - base, base, owned)
"""

if __name__ == "__main__":
    print(f"liebatch {lb.__version__}, {lb.solve.__module__}")
    for members, steps in ((10_000, 1000), (1, 1)):
        wall, extra = overhead(members, steps)
        print(f"heavy top, rkmk4, {members} members x {steps} steps: lb.solve {wall * 1e3:.2f} ms, "
              f"of which outside ModelRunner::run {extra * 1e3:.3f} ms ({100 * extra / wall:.2f} %)")
    out = subprocess.run([sys.executable, "-c", MEMORY], capture_output=True, text=True, check=True).stdout.split()
    outputs, grown, base, owned = int(out[0]), int(out[1]), int(out[2]), out[3] == "True"
    print(f"10^5 members x 101 samples: outputs {outputs / 1e6:.0f} MB, peak RSS grew {grown / 1e6:.0f} MB "
          f"(bound 1.1 x outputs + 200 MB = {(1.1 * outputs + 200e6) / 1e6:.0f} MB; interpreter and module before: "
          f"{base / 1e6:.0f} MB); arrays own the engine's vectors: {owned}")
