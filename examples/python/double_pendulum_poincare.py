"""A Poincaré section of the double pendulum from many states on one energy surface, from Python.

The double spherical pendulum on (TS2)^2 (pendulum_chain, N = 2) started in the x-z plane stays
there: the planar double pendulum, whose section {theta1 = 0, theta1' > 0} (q1_x = 0 crossed
upward at the lower passage, q1_z < 0) is a 2-dimensional picture (theta2, theta2'). Angles and
the direction of the angular velocities are drawn uniformly, the velocities rescaled onto the
energy level E by the model (Model.on_energy_level); a configuration above E is drawn again.
The C++ example poincare_double_pendulum.cpp does the same with the engine directly.

Usage: python3 double_pendulum_poincare.py [members (10000)] [t_end (100)] [output directory (.)]
Writes double_pendulum_poincare.png; checks the energy drift and that hits lie on the section.
"""
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import liebatch as lb  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 100.0
out_dir = sys.argv[3] if len(sys.argv) > 3 else "."
chain = lb.model("pendulum_chain", preset="paper", N=2)
energy = chain.observable_names.index("energy")
E = -3 * 9.81 + 15.0  # 15 above the hanging rest state: a chaotic sea with regular islands

rng = np.random.default_rng(7)
y0 = np.zeros((0, 12))
while len(y0) < n:
    th = rng.uniform(-np.pi, np.pi, (n, 2))
    thdot = rng.normal(size=(n, 2))
    y = np.zeros((n, 12))
    for i in range(2):  # in the x-z plane: q = (sin th, 0, -cos th), w = q x q' = (0, -th', 0)
        y[:, 6 * i:6 * i + 3] = np.stack([np.sin(th[:, i]), np.zeros(n), -np.cos(th[:, i])], axis=1)
        y[:, 6 * i + 4] = -thdot[:, i]
    y, reachable = chain.on_energy_level(y, E)
    y0 = np.concatenate([y0, y[reachable]])[:n]

r = lb.solve(chain, y0, t=(0, t_end), method="rkmk54", atol=1e-9, rtol=1e-9, samples=2,
             section=lb.Hyperplane("q1_x", 0, "up", where=("q1_z", "<", 0)), max_hits=256, progress=True)
drift = np.nanmax(np.abs(r.samples.obs[-1, energy] - E))
hy = r.hits.y
th2 = np.arctan2(hy[:, 6], -hy[:, 8])
dth2 = -hy[:, 10]
print(f"{len(y0)} members on E = {E:.3f}; {len(th2)} hits, {r.hits.lost.sum()} lost; worst energy drift {drift:.1e}; "
      f"worst |q1_x| at a hit {np.abs(hy[:, 0]).max():.1e}")
fig, ax = plt.subplots(figsize=(6, 6))
ax.scatter(th2, dth2, s=0.05, c=r.hits.member % 17, cmap="tab20", linewidths=0)
ax.set_xlabel("theta2")
ax.set_ylabel("theta2'")
ax.set_title(f"double pendulum, E = {E:.2f}: section theta1 = 0, theta1' > 0")
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "double_pendulum_poincare.png"), dpi=120)
sys.exit(0 if drift < 1e-5 and np.abs(hy[:, 0]).max() < 1e-9 else 1)
