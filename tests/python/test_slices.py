"""Slices of a run (`--members A:B`, lb.run_config(members=...)) and `liebatch merge`: the merged
slices equal the whole run, dataset by dataset and bitwise; bad slices and foreign parts are refused,
each named, and no merged file appears."""
import json
import os
import resource
import signal
import subprocess
import time

import h5py
import numpy as np
import pytest

import liebatch as lb
from conftest import EXE, assert_same, lossy_section

N = 20
# Slices of unequal size whose edges fall inside the whole run's batches (--batch 6), and out of order.
SLICES = [(13, 20), (0, 7), (7, 13)]


def top(method, samples=3):
    """A heavy top ensemble with the mass swept per member: 20 members, fixed or adaptive steps."""
    step = {"adaptive": True, "atol": 1e-8, "rtol": 1e-8} if method == "rkmk54" else {"h": 0.01}
    return {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"mass": {"linspace": [1, 2, N]}}},
            "method": method, "time": {"t0": 0, "t1": 1}, "step": step, "outputs": {"samples": samples}}


def liebatch(*args, cwd=None):
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def run_parts(tmp_path, cfg, command, slices=SLICES, extra=()):
    """The whole run and its slices, as files; returns (whole, [part paths])."""
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    whole = tmp_path / "whole.h5"
    p = liebatch(command, tmp_path / "cfg.json", "-o", whole, "-q", "--no-plot", "--batch", 6, *extra)
    assert p.returncode == 0, p.stderr
    parts = []
    for a, b in slices:
        part = tmp_path / f"part{a}.h5"
        p = liebatch(command, tmp_path / "cfg.json", "-o", part, "-q", "--no-plot", "--members", f"{a}:{b}", *extra)
        assert p.returncode == 0, p.stderr
        parts.append(part)
    return whole, parts


@pytest.mark.parametrize("command,cfg", [("run", top("rkmk4")), ("run", top("rkmk54")), ("run", top("rkmk4", samples=0)),
                                         ("poincare", lossy_section(N))], ids=["fixed", "adaptive", "final only", "poincare"])
def test_merged_slices_equal_the_whole_run(tmp_path, command, cfg):
    whole, parts = run_parts(tmp_path, cfg, command)
    one = lb.load(parts[1])
    assert one.attrs[""]["members_begin"] == 0 and one.attrs[""]["members_end"] == 7 and one.attrs[""]["members_total"] == N
    assert one["final/y"].shape[-1] == 7
    merged = tmp_path / "all.h5"
    p = liebatch("merge", *parts, "-o", merged)
    assert p.returncode == 0, p.stderr
    a, b = lb.load(whole), lb.load(merged)
    assert_same(a, b)
    if command == "poincare":  # the case of the test: hits beyond max_hits, counted as lost in every part
        assert a["hits/lost"].sum() > 0 and len(a["hits/t"]) > N
    for where, attrs in a.attrs.items():  # the arrays' own attributes too
        if where:
            assert b.attrs[where] == attrs, where
    root = b.attrs[""]
    assert (root["members_begin"], root["members_end"], root["members_total"]) == (0, N, N)
    assert all(root[k] == a.attrs[""][k] for k in ("config", "model", "method", "command", "liebatch_version"))
    assert all(str(part) in root["merged_from"] for part in parts)


def test_python_slices_equal_the_command_lines_and_merge_into_the_whole_run(tmp_path):
    cfg = top("rkmk54")
    whole, parts = run_parts(tmp_path, cfg, "run", slices=[(7, 13)])
    r = lb.run_config(cfg, members=(7, 13))
    assert_same(lb.load(parts[0]), r)
    # Slices in memory (as multiprocessing or Dask would return them) and a file, joined.
    merged = lb.merge([lb.run_config(cfg, members=(13, N)), parts[0], lb.run_config(cfg, members=(0, 7))], tmp_path / "all.h5")
    assert_same(lb.load(whole), merged)
    assert (tmp_path / "all.h5").exists() and not [f for f in os.listdir(tmp_path) if f.startswith(".tmp-")]
    assert merged.attrs[""]["merged_from"] == (f"parts[2] (an Output in memory) members 0:7\n{parts[0]} members 7:13\n"
                                              "parts[0] (an Output in memory) members 13:20\n")
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C is still Python's after a merge wrote a file in process
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    with pytest.raises(ValueError, match="members 0 to 6 are in no part"):
        lb.merge([r, lb.run_config(cfg, members=(13, N))], tmp_path / "gap.h5")
    assert not (tmp_path / "gap.h5").exists()
    # Parts in memory named as the caller gave them, not as their scratch files; the output's
    # missing directory named, not the scratch directory beside it.
    with pytest.raises(ValueError, match=r"parts\[[12]\] \(an Output in memory\) \(members 7:13\) overlaps parts\[[12]\]"):
        lb.merge([lb.run_config(cfg, members=(0, 7)), r, r], tmp_path / "twice.h5")
    with pytest.raises(FileNotFoundError, match="no directory '" + str(tmp_path / "none") + "'"):
        lb.merge([r], tmp_path / "none" / "x.h5")
    with pytest.raises(ValueError, match="out of range"):
        lb.run_config(cfg, members=(0, N + 1))
    with pytest.raises(TypeError, match="members"):
        lb.run_config(cfg, members=7)


@pytest.mark.parametrize("members,message", [("5:5", "is empty"), ("7:3", "is empty"), ("0:21", "out of range"),
                                             ("3", "is not A:B"), ("a:b", "is not A:B"), ("-1:4", "is not A:B"), ("", "required")])  # CLI11: a value is required
def test_a_bad_slice_exits_2_before_any_work(tmp_path, members, message):
    (tmp_path / "cfg.json").write_text(json.dumps(top("rkmk4")))
    p = liebatch("run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "-q", f"--members={members}")
    assert p.returncode == 2, p.stderr
    assert "--members: " in p.stderr and message in p.stderr, p.stderr
    assert not (tmp_path / "out.h5").exists()


def test_converge_and_validate_take_no_slice(tmp_path):
    (tmp_path / "cfg.json").write_text(json.dumps(top("rkmk4")))
    for command in ("converge", "validate"):
        p = liebatch(command, tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "--members", "0:5")
        assert p.returncode == 2 and "--members" in p.stderr, p.stderr
    with pytest.raises(ValueError, match="only 'liebatch run' and 'liebatch poincare'"):
        lb.run_config(top("rkmk4"), "validate", members=(0, 5))


def refused(tmp_path, parts, message, status=2, output=None):
    out = output or tmp_path / "all.h5"
    p = liebatch("merge", *parts, "-o", out)
    assert p.returncode == status, p.stderr
    assert message in p.stderr, p.stderr
    if output is None:
        assert not out.exists()
    assert not [f for f in os.listdir(tmp_path) if ".tmp-" in f]  # no temporary left behind
    return p.stderr


def test_merge_refuses_what_is_not_the_slices_of_one_run(tmp_path):
    _, parts = run_parts(tmp_path, top("rkmk4"), "run")
    late, first, middle = parts
    # A slice missing, or given twice, or slices that overlap: named.
    refused(tmp_path, [first, late], "members 7 to 12 are in no part (of 20)")
    refused(tmp_path, [first, middle], "members 13 to 19 are in no part (of 20)")
    refused(tmp_path, [first, middle, late, middle], "overlaps")
    (tmp_path / "cfg.json").write_text(json.dumps(top("rkmk4")))
    wide = tmp_path / "wide.h5"
    assert liebatch("run", tmp_path / "cfg.json", "-o", wide, "-q", "--no-plot", "--members", "5:10").returncode == 0
    said = refused(tmp_path, [first, wide, middle, late], "overlaps")
    assert "wide.h5" in said and "part0.h5" in said
    # Another run: its config, its method, another command.
    other = top("rkmk4")
    other["step"]["h"] = 0.02
    (tmp_path / "other.json").write_text(json.dumps(other))
    foreign = tmp_path / "foreign.h5"
    assert liebatch("run", tmp_path / "other.json", "-o", foreign, "-q", "--no-plot", "--members", "7:13").returncode == 0
    assert "its config differs (at /step/h)" in refused(tmp_path, [first, foreign, late], "is not a slice of the same run")
    validate = top("rkmk4")
    validate["validate"] = {"against": "extended", "bound": 1e-6}
    (tmp_path / "validate.json").write_text(json.dumps(validate))
    checked = tmp_path / "validate.h5"
    assert liebatch("validate", tmp_path / "validate.json", "-o", checked, "-q", "--no-plot").returncode in (0, 1)
    refused(tmp_path, [checked], "is not the output of a liebatch run or poincare")
    # Not liebatch's at all: an HDF5 file of someone else's, a text file.
    with h5py.File(tmp_path / "theirs.h5", "w") as f:
        f["final/y"] = np.zeros((6, 7))
    refused(tmp_path, [first, tmp_path / "theirs.h5"], "is not the output of a liebatch run or poincare")
    (tmp_path / "notes.h5").write_text("not HDF5")
    refused(tmp_path, [first, tmp_path / "notes.h5"], "cannot open", status=3)
    refused(tmp_path, [first, tmp_path / "missing.h5"], "cannot", status=3)
    # A part given attributes of many values (each was read into one: a crash, not a refusal).
    for name, value in (("extra", np.arange(100000.0)), ("notes", np.array([b"abcdefghij"] * 1000)),
                        ("tags", np.array(["abc"] * 1000, dtype=h5py.string_dtype()))):
        with h5py.File(middle, "a") as f:
            f.attrs[name] = value
        refused(tmp_path, [first, middle, late], "cannot read the attributes of", status=3)
        with h5py.File(middle, "a") as f:
            del f.attrs[name]
    with h5py.File(middle, "a") as f:
        f["final/y"].attrs["meaning"] = np.array([b"a", b"b"])
    refused(tmp_path, [first, middle, late], "cannot read the attributes of dataset", status=3)


@pytest.mark.parametrize("soft,hard,status", [(40, 40, 3), (40, 4096, 0)], ids=["past the hard limit", "below the soft one"])
def test_merge_takes_as_many_parts_as_the_process_may_open(tmp_path, soft, hard, status):
    # Every part is open at once: a job array's parts once ran out of files as "cannot open part 185".
    whole, parts = run_parts(tmp_path, top("rkmk4"), "run")
    p = subprocess.run([EXE, "merge", *map(str, parts), "-o", str(tmp_path / "all.h5")], capture_output=True, text=True,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)))
    assert p.returncode == status, p.stderr
    if status:
        assert "3 parts, open at once, need more files than the 40 this process may open (ulimit -n" in p.stderr, p.stderr
    else:
        assert_same(lb.load(whole), lb.load(tmp_path / "all.h5"))


def test_merge_refuses_parts_whose_shapes_need_more_than_the_disk_has(tmp_path):
    """A part whose datasets claim 10^11 members (chunked, nothing stored: a small file) is refused
    before any write, naming the bytes, as a run of that size is."""
    whole, _ = run_parts(tmp_path, top("rkmk4"), "run", slices=[])
    huge = 10**11
    with h5py.File(whole) as a, h5py.File(tmp_path / "claims.h5", "w") as b:
        for k, v in a.attrs.items():
            b.attrs[k] = v
        b.attrs["members_end"] = b.attrs["members_total"] = float(huge)
        def copy(name, d):
            if isinstance(d, h5py.Dataset):
                if d.shape and d.shape[-1] == N and "hits" not in name:
                    b.create_dataset(name, shape=d.shape[:-1] + (huge,), dtype=d.dtype, chunks=d.shape[:-1] + (N,))
                else:
                    a.copy(d, b, name=name)
        a.visititems(copy)
    assert (tmp_path / "claims.h5").stat().st_size < 10**7
    refused(tmp_path, [tmp_path / "claims.h5"], "needs about", status=3)


def test_merge_never_writes_over_a_part_or_a_file_of_someone_elses(tmp_path):
    _, parts = run_parts(tmp_path, top("rkmk4"), "run")
    before = parts[0].read_bytes()
    refused(tmp_path, parts, "", output=parts[0])
    assert parts[0].read_bytes() == before
    mine = tmp_path / "mine.h5"
    mine.write_text("my own notes")
    refused(tmp_path, parts, "--force", status=3, output=mine)
    assert mine.read_text() == "my own notes"


def test_tasks_of_an_srun_step_that_no_mpi_joins_are_refused(tmp_path):
    """srun without a PMI plugin starts K copies of one command: each would write the same output."""
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps(top("rkmk4")))
    env = dict(os.environ, SLURM_STEP_NUM_TASKS="4")
    env.pop("PMI_SIZE", None), env.pop("PMIX_RANK", None), env.pop("OMPI_COMM_WORLD_SIZE", None)
    p = subprocess.run([EXE, "run", cfg, "-o", tmp_path / "out.h5", "-q"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "srun started this as one of 4 tasks" in p.stderr and "--mpi=pmix" in p.stderr, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["cfg.json"]
    env["SLURM_STEP_NUM_TASKS"] = "1"
    p = subprocess.run([EXE, "run", cfg, "-o", tmp_path / "out.h5", "-q"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr


def test_statistics_of_a_slice_are_those_of_its_members():
    # hits/member holds the config's indices: lb.statistics of a slice refused them as out of range.
    cfg = lossy_section(N, t1=5)
    whole, part = lb.run_config(cfg, "poincare"), lb.run_config(cfg, "poincare", members=(7, 13))
    mine = (whole["hits/member"] >= 7) & (whole["hits/member"] < 13)
    assert 0 < mine.sum() < len(mine) and all(n == "ok" for n in whole.final.status_names())
    s, x = lb.statistics(part)["hits"], whole["hits/observables"][mine]
    assert (s["count"] == mine.sum()).all()
    assert np.array_equal(s["min"], x.min(axis=0)) and np.array_equal(s["max"], x.max(axis=0))
