"""What the commands say beside the HDF5 file (CSV tables, the plot's note, the summary, their errors) holds
nothing they did not compute: a table reads back with a CSV reader, an exact error is no failure,
a run where no member finished draws no drift of 0, and strobes that double cannot resolve are
refused. Ctrl-C while gnuplot draws leaves no working directory of the plot's."""
import csv
import json
import os
import re
import signal
import subprocess
import time

import h5py
import pytest

from conftest import EXE, SOURCE


def liebatch(tmp_path, command, config, *extra):
    (tmp_path / "cfg.json").write_text(json.dumps(config))
    return subprocess.run([EXE, command, str(tmp_path / "cfg.json"), "-o", str(tmp_path / "out.h5"), *extra],
                          capture_output=True, text=True)


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f) if r and not r[0].startswith("#")]


def test_validate_table_reads_back_with_a_csv_reader(tmp_path):
    # The constrained pendulum's outputs are named "final (q, v)" and the like: commas in a field.
    cfg = {"model": {"name": "planar_pendulum", "preset": "pend2d"}, "method": "hedop5", "time": {"t0": 0, "t1": 0.1},
           "step": {"h": 0.01}, "outputs": {"samples": 3, "plot": False}}
    p = liebatch(tmp_path, "validate", cfg, "-q")
    assert p.returncode == 0, p.stderr
    table = rows(tmp_path / "out.csv")
    assert table[0] == ["output", "max", "median", "bound"]
    assert all(len(r) == 4 for r in table), table
    assert any("," in r[0] for r in table[1:]), table  # the case of the test: a name with a comma
    # Every number as the HDF5 file holds it (6 digits showed a maximum just above its bound as equal).
    with h5py.File(tmp_path / "out.h5") as f:
        for k, r in enumerate(table[1:]):
            assert [float(x) for x in r[1:]] == [f["validate/max"][k], f["validate/median"][k], f["validate/bound"][k]], r


def test_an_exact_error_is_no_failed_run(tmp_path):
    # The Lorenz system at its fixed point 0: every run is exact, so no order, but nothing failed.
    cfg = {"model": {"name": "lorenz"}, "time": {"t0": 0, "t1": 1}, "initial": {"state": [0, 0, 0]},
           "converge": {"methods": ["rkmk4"], "steps": [0.1, 0.05, 0.025]}, "outputs": {"plot": False}}
    p = liebatch(tmp_path, "converge", cfg, "-q")
    points = [r[5] for r in rows(tmp_path / "out.csv")[1:]]
    assert points == ["round-off"] * 3, (points, p.stderr)  # (each was "failed")


def test_no_member_finished_draws_no_drift_of_zero(tmp_path):
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"gravity": 1e300}}, "method": "rkmk4",
           "time": {"t0": 0, "t1": 1}, "step": {"h": 0.1}, "outputs": {"samples": 5, "plot": True}}
    p = liebatch(tmp_path, "run", cfg)
    assert p.returncode == 1 and "no member finished" in p.stderr, p.stderr
    assert "exactly constant" not in p.stdout + p.stderr


def test_strobes_double_cannot_resolve_are_refused(tmp_path):
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "method": "rkmk4", "time": {"t0": 0, "t1": 10},
           "step": {"h": 0.01}, "section": {"type": "stroboscopic", "t0": -1e17, "period": 1}}
    p = liebatch(tmp_path, "poincare", cfg, "-q")
    assert p.returncode == 2 and "/section/t0" in p.stderr and "not resolved in double" in p.stderr, p.stderr
    assert not (tmp_path / "out.h5").exists()
    cfg["section"]["t0"] = -1e3  # far, but resolved: 10 strobes
    p = liebatch(tmp_path, "poincare", cfg, "-q")
    assert p.returncode == 0, p.stderr


def test_an_unknown_command_and_an_option_without_its_partner_are_named(tmp_path):
    p = subprocess.run([EXE, "bogus"], capture_output=True, text=True)
    assert p.returncode == 2 and "unknown command 'bogus'; expected one of run, poincare" in p.stderr, p.stderr
    # list --methods means the methods a user's model is compiled for: without --source it was ignored.
    p = subprocess.run([EXE, "list", "--methods", "rkmk4"], capture_output=True, text=True)
    assert p.returncode == 2 and "--methods requires --source" in p.stderr and not p.stdout, p.stderr


@pytest.mark.parametrize("option,value,message", [
    ("--threads", "0x2", "--threads: expected a decimal integer, not '0x2'"),
    ("--batch", "0b101", "--batch: expected a decimal integer, not '0b101'"),
    ("--checkpoint-every", "0x10", "--checkpoint-every: expected a finite decimal number, not '0x10'"),
    ("--checkpoint-every", "nan", "--checkpoint-every: expected a finite decimal number, not 'nan'"),
    ("-o", "", "--output: expected a file name, not ''"),
])
def test_options_take_decimal_numbers_and_a_file_name(tmp_path, option, value, message):
    cfg = {"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t0": 0, "t1": 0.01}, "step": {"h": 1e-3},
           "initial": {"ensemble": {"count": 40, "seed": 1, "scale": 0.1}, "state": [1, 0, 0]}, "outputs": {"plot": False}}
    p = liebatch(tmp_path, "run", cfg, option, value)
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert os.listdir(tmp_path) == ["cfg.json"]


def test_a_leading_zero_is_no_octal(tmp_path):
    # CLI11 alone reads 010 as 8: the 40 members ran in batches of 8, 5 of them.
    cfg = {"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t0": 0, "t1": 0.01}, "step": {"h": 1e-3},
           "initial": {"ensemble": {"count": 40, "seed": 1, "scale": 0.1}, "state": [1, 0, 0]}, "outputs": {"plot": False}}
    p = liebatch(tmp_path, "run", cfg, "--batch", "010", "--threads", "1")
    assert p.returncode == 0 and "in 4 batches" in p.stdout, p.stdout


def test_ctrl_c_while_gnuplot_draws_leaves_no_directory_behind(tmp_path):
    # A gnuplot that never ends, so that the signal comes while it "draws"; Ctrl-C reaches the
    # terminal's whole process group, gnuplot included.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "gnuplot").write_text("#!/bin/sh\nsleep 60\n")
    (tmp_path / "bin" / "gnuplot").chmod(0o755)
    (tmp_path / "tmp").mkdir()
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "method": "rkmk4", "time": {"t0": 0, "t1": 1},
           "step": {"h": 0.01}, "initial": {"ensemble": {"count": 16, "seed": 1, "scale": 0.1}},
           "section": {"type": "hyperplane", "component": "Gamma_x", "value": 0, "plot": ["Gamma_y", "Pi_x"]}}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    env = dict(os.environ, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}", TMPDIR=str(tmp_path / "tmp"))
    p = subprocess.Popen([EXE, "poincare", str(tmp_path / "cfg.json"), "-o", str(tmp_path / "out.h5"), "-q"], env=env,
                         start_new_session=True)
    try:
        for _ in range(3000):
            if os.listdir(tmp_path / "tmp") or p.poll() is not None:
                break
            time.sleep(0.01)
        assert [d for d in os.listdir(tmp_path / "tmp") if d.startswith("liebatch-plot-")], "no plot was drawn"
        os.killpg(p.pid, signal.SIGINT)
        assert p.wait(timeout=30) == -signal.SIGINT
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert os.listdir(tmp_path / "tmp") == []


def test_the_poincare_summary_names_suspected_pairs_and_the_chunks_of_lost_hits(tmp_path):
    # x' = 0 at x = 2π: (y, z) turns at 2π and decays. z = 0.9714 is crossed twice inside the one
    # step of 0.3 with no sign change at its ends: a suspected pair, in the file and, now, in the summary.
    lorenz = {"name": "lorenz", "parameters": {"sigma": 0, "rho": 0, "beta": 1}}
    cfg = {"model": lorenz, "method": "rkmk4", "time": {"t0": 0, "t1": 0.3}, "step": {"h": 0.3},
           "initial": {"state": [6.283185307179586, 0.2588190451025208, 0.9659258262890684]},
           "section": {"type": "hyperplane", "component": "z", "value": 0.9714, "direction": "both"}}
    p = liebatch(tmp_path, "poincare", cfg, "--no-plot")
    with h5py.File(tmp_path / "out.h5") as f:
        pairs = int(f["hits/suspected_pairs"][0])
    assert p.returncode == 0 and pairs == 1 and "1 suspected pairs (two crossings inside a step" in p.stdout, p.stdout + p.stderr
    # 30 crossings of y = 0 (x = 10π: 15 turns), one kept per chunk: 20 chunks without samples, one with 2 to 65.
    cfg = {"model": lorenz, "method": "rkmk4", "time": {"t0": 0, "t1": 3}, "step": {"h": 0.001},
           "initial": {"state": [31.41592653589793, 1, 0]},
           "section": {"type": "hyperplane", "component": "y", "value": 0, "direction": "both", "max_hits": 1}}
    for samples, kept, chunks in ((0, 20, 20), (2, 1, 1)):
        p = liebatch(tmp_path, "poincare", dict(cfg, outputs={"samples": samples}), "--no-plot")
        assert p.returncode == 0, p.stderr
        assert (f"{kept} section hits recorded, {30 - kept} lost (raise max_hits: 1 per member in each of the run's {chunks} chunks)"
                in p.stdout), p.stdout


def test_converge_prints_each_local_slope_rounded_as_the_file_holds_it(tmp_path):
    # The report cut a slope's text to five characters: cf3's 2.9999 read "2.999", 4.2239 "4.223".
    cfg = {"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "time": {"t0": 0, "t1": 0.2},
           "converge": {"methods": ["cf3", "rkmk4"], "steps": {"h0": 0.002, "factor": 0.5, "count": 4},
                        "reference": {"kind": "extended", "method": "rkmk5", "h": 0.0000625}}}
    p = liebatch(tmp_path, "converge", cfg, "--no-plot")
    assert p.returncode == 0, p.stderr
    with h5py.File(tmp_path / "out.h5") as f:
        slopes = f["converge/local_slope"][()]
    printed = [line.split()[3] for line in p.stdout.splitlines() if line.startswith("    0.00") and len(line.split()) == 5]
    expected = [t for row in slopes for t in [f"{s:.3f}" for s in row] + ["-"]]  # (methods, steps - 1) slopes
    assert printed == expected, (printed, expected)


def test_the_progress_bar_moves_within_a_chunk(tmp_path):
    # A run of 2 samples has one chunk, and the bar moved only at chunk ends: nothing until 100 %.
    with open(os.path.join(SOURCE, "examples", "configs", "free_rigid_body.json")) as f:
        cfg = json.load(f)
    cfg["outputs"] = {"samples": 2, "plot": False}
    p = liebatch(tmp_path, "run", cfg, "--progress")
    assert p.returncode == 0, p.stderr
    shown = [float(m) for m in re.findall(r"run: +([0-9.]+)%", p.stderr)]
    assert any(0 < x < 100 for x in shown), p.stderr
