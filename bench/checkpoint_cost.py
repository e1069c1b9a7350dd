"""What checkpoints cost (issue 37, point 4): the same `liebatch run` without checkpoints and with
`--checkpoint-every`, alternated, the median of each; and the checkpoint's bytes per member.

    python3 bench/checkpoint_cost.py LIEBATCH [members] [t1] [every] [repeats]

The default is issue 37's case: a 5-minute run checkpointed every 60 s. 2^16 heavy tops under RKMK4
at h = 1e-3 over [0, 70] with 101 samples (a 538 MB output) take about 300 s on this project's
2-core machine (2026-11-29).
The staged output's second write is paid once per run, so a longer run pays a smaller share of it.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

exe = sys.argv[1]
members = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 16
t1 = float(sys.argv[3]) if len(sys.argv) > 3 else 70.0
every = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
repeats = int(sys.argv[5]) if len(sys.argv) > 5 else 1

cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"mass": {"linspace": [1, 2, members]}}},
       "method": "rkmk4", "time": {"t0": 0, "t1": t1}, "step": {"h": 1e-3}, "outputs": {"samples": 101}}
with tempfile.TemporaryDirectory(dir=os.getcwd()) as d:
    path = os.path.join(d, "cfg.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    times = {"plain": [], "checkpointed": []}
    line = ""
    for _ in range(repeats):
        for kind in times:
            out = os.path.join(d, kind + ".h5")
            extra = ["--checkpoint-every", str(every)] if kind == "checkpointed" else []
            t = time.monotonic()
            p = subprocess.run([exe, "run", path, "-o", out, "--no-plot", "--force", *extra], capture_output=True, text=True)
            times[kind].append(time.monotonic() - t)
            if p.returncode != 0:
                sys.exit(p.stderr)
            if kind == "checkpointed":
                line = next((l.strip() for l in p.stdout.splitlines() if "checkpoints:" in l), "no checkpoint taken")
    size = os.path.getsize(os.path.join(d, "plain.h5"))
plain, ck = statistics.median(times["plain"]), statistics.median(times["checkpointed"])
print(f"{members} heavy tops, RKMK4, h = 1e-3 over [0, {t1:g}], 101 samples; output {size / 1e6:.0f} MB")
print(f"plain run:          {plain:.2f} s (median of {repeats}: {', '.join(f'{x:.2f}' for x in times['plain'])})")
print(f"checkpoint every {every:g} s: {ck:.2f} s (median of {repeats}: {', '.join(f'{x:.2f}' for x in times['checkpointed'])})")
print(f"ratio {ck / plain:.4f}; {line}")
