"""Your own model from Python: the gyrostat of examples/models/gyrostat.hpp (a rigid body with a
rotor, on so*(3); no built-in model is one), compiled at run time and run as an ensemble of 10^4
members over 10^4 RKMK4 steps. Its Casimir |mu| holds to round-off, and its energy agrees with an
independent solve (scipy's DOP853 at rtol 1e-13) to 1e-9. The same config through the command's
code (lb.run_config of examples/configs/gyrostat.json) gives the same numbers, bitwise.

Usage: python3 gyrostat.py [members (10000)]
"""
import os
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

import liebatch as lb

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
here = os.path.dirname(os.path.abspath(__file__))
t0 = time.monotonic()
gyro = lb.compile_model(path=os.path.join(here, "..", "models", "gyrostat.hpp"), type="Gyrostat", methods=["rkmk4", "rkmk54"])
print(f"compiled (or loaded from the cache) in {time.monotonic() - t0:.1f} s: {gyro}")

inertia, rotor = np.array([2.0, 1.0, 0.5]), np.array([0.0, 0.1, 0.4])
model = lb.model(gyro, rotor=rotor.tolist())  # a list: one value (an array would be a sweep)
rng = np.random.default_rng(1)
mu0 = rng.normal(size=(n, 3))
mu0 /= np.linalg.norm(mu0, axis=1)[:, None]
r = lb.solve(model, mu0, t=(0, 50), method="rkmk4", h=0.005, samples=11)
assert set(r.final.status_names()) == {"ok"}
energy, casimir = r.samples.obs[:, 0, :], r.samples.obs[:, 1, :]
drift = np.max(np.abs(casimir - casimir[0]) / casimir[0])
print(f"{n} members, {int(r.final.steps[0])} steps each: largest relative drift of the Casimir |mu| {drift:.1e}")

# An independent reference for a few members: mu' = mu x I^-1 (mu - l), scipy's DOP853.
def rhs(_, mu):
    return np.cross(mu, (mu - rotor) / inertia)

worst = 0.0
for i in range(0, n, n // 8):
    ref = solve_ivp(rhs, (0, 50), mu0[i], method="DOP853", rtol=1e-13, atol=1e-13, t_eval=np.linspace(0, 50, 11))
    e_ref = 0.5 * np.einsum("ij,ij->j", ref.y - rotor[:, None], (ref.y - rotor[:, None]) / inertia[:, None])
    worst = max(worst, np.max(np.abs(energy[:, i] - e_ref)))
print(f"energy against scipy's DOP853 at the 11 samples of 8 members: largest difference {worst:.1e}")

cfg = lb.run_config(os.path.join(here, "..", "configs", "gyrostat.json"))  # the command's path, in process
e = cfg["samples/observables"][:, 1, :]
print(f"the config's 10^4 members: largest relative Casimir drift {np.max(np.abs(e - e[0]) / e[0]):.1e}")
ok = drift < 1e-13 and worst < 1e-9 and np.max(np.abs(e - e[0]) / e[0]) < 1e-13
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
