"""The flagship convergence study from Python: the Brüls-Cardona heavy top ([CCLMO22 §3.4.4]) under
RKMK, commutator-free and Crouch-Grossman methods against a long-double reference, run in memory by
the command line's own `converge`, then plotted with matplotlib.

Usage: python3 heavy_top_convergence.py [output directory (.)]
Writes heavy_top_convergence.png; prints each method's fitted order.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import liebatch as lb  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
c = lb.run_config(os.path.join(here, "..", "configs", "heavy_top_convergence.json"), "converge")
h, methods = c["converge/h"], c["converge/methods"]
error, order = c["converge/error"], c["converge/observed_order"]  # (methods, steps), (methods,)
fig, ax = plt.subplots(figsize=(6, 4.5))
for m, name in enumerate(methods):
    ax.loglog(h, error[m], "o-", label=f"{name} (order {order[m]:.2f})")
    print(f"{name}: observed order {order[m]:.3f}")
ax.set_xlabel("step h")
ax.set_ylabel("max error at t = 1")
ax.set_title("heavy top (Brüls-Cardona): error against step")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "heavy_top_convergence.png"), dpi=120)
