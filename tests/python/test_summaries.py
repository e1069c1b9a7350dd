"""What the commands say beside the HDF5 file (CSV tables, the plot's note, the summary, their errors) holds
nothing they did not compute: a table reads back with a CSV reader, an exact error is no failure,
a run where no member finished draws no drift of 0, and strobes that double cannot resolve are
refused."""
import csv
import json
import subprocess

from conftest import EXE


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
