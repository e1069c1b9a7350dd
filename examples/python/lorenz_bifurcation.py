"""The classical GPU-ensemble benchmark as a picture: the Lorenz system with rho swept over [0, 21]
(DiffEqGPU, MPGOS, diffrax), one member per rho, and x at the end against rho: the fixed points
0 (rho < 1) and +-sqrt(beta (rho - 1)) after the pitchfork at rho = 1.

Usage: python3 lorenz_bifurcation.py [members (4096)] [output directory (.)]
Writes lorenz_bifurcation.png; checks the fixed points.
"""
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import liebatch as lb  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
out_dir = sys.argv[2] if len(sys.argv) > 2 else "."
lz = lb.model("lorenz", rho=lb.linspace(0, 21, n))
r = lb.solve(lz, [1.0, 0.0, 0.0], t=(0, 100), method="rkmk4", h=1e-3)
rho, x = r["parameters/rho"], r.final.y[0]
beta = 8 / 3
failed = sum(s != "ok" for s in r.final.status_names())
print(f"{n} members, {failed} failed; ran on {r.attrs[''].get('ran_on')}")
settled = rho > 2  # past the pitchfork and its slow transient: |x| = sqrt(beta (rho - 1))
worst = np.max(np.abs(np.abs(x[settled]) - np.sqrt(beta * (rho[settled] - 1))))
print(f"largest distance of |x(100)| from sqrt(beta (rho - 1)) for rho > 2: {worst:.2e}")
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(rho, x, ",", color="k")
ax.set_xlabel("rho")
ax.set_ylabel("x(t = 100)")
ax.set_title(f"Lorenz, rho swept over [0, 21]: {n} members")
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "lorenz_bifurcation.png"), dpi=120)
sys.exit(0 if worst < 1e-3 and failed == 0 else 1)
