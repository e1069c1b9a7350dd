"""A job of ranks under mpirun (cli/ranks/): run and poincare, fixed and adaptive steps, over 1, 3
and 4 ranks give the single process's output, dataset by dataset and bitwise; a bad config is one
message and exit 2 with no output; a rank killed ends the job quickly with no output; validate and
converge run on rank 0. Run through ctest (label mpi), which names the launcher."""
import json
import os
import signal
import subprocess
import time

import pytest

import liebatch as lb
from conftest import EXE, assert_same, assert_same_run, lossy_section

MPIEXEC = os.environ.get("LIEBATCH_MPIEXEC", "")
N = 100  # blocks of 16 members: 7, dealt to 3 ranks as 3, 2, 2


def top(method, t1=1.0):
    """Heavy tops with the mass swept per member, fixed or adaptive steps."""
    step = {"adaptive": True, "atol": 1e-8, "rtol": 1e-8} if method == "rkmk54" else {"h": 0.01}
    return {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"mass": {"linspace": [1, 2, N]}}},
            "method": method, "time": {"t0": 0, "t1": t1}, "step": step, "outputs": {"samples": 3}}


def mpirun(ranks, *args, **kw):
    if not MPIEXEC:
        pytest.fail("LIEBATCH_MPIEXEC is not set: run these tests through ctest (label mpi)")
    return subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def finish(p, timeout=120):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def single(tmp_path, command, cfg):
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    whole = tmp_path / "whole.h5"
    p = subprocess.run([EXE, command, tmp_path / "cfg.json", "-o", whole, "-q", "--no-plot", "--threads", "1"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    return whole


# Root attributes that say how the output was made, not what it holds.
MADE = ("created", "command_line", "merged_from", "batches")


@pytest.mark.parametrize("command,cfg", [("run", top("rkmk4")), ("run", top("rkmk54")), ("poincare", lossy_section(N))],
                         ids=["fixed", "adaptive", "poincare"])
def test_ranks_give_the_single_process_output_bitwise(tmp_path, command, cfg):
    whole_path = single(tmp_path, command, cfg)
    whole = lb.load(whole_path)
    if command == "poincare":  # the case of the test: hits beyond max_hits, lost in every block
        assert whole["hits/lost"].sum() > 0 and len(whole["hits/t"]) > N
    for ranks in (1, 3, 4):
        out = tmp_path / f"np{ranks}.h5"
        rc, stdout, err = finish(mpirun(ranks, command, tmp_path / "cfg.json", "-o", out, "--threads", "1"))
        assert rc == 0, err
        assert f"over {ranks} ranks" in stdout and err == ""
        assert_same_run(whole_path, out, aside=MADE)
        assert lb.load(out).attrs[""]["merged_from"] == f"a job of {ranks} ranks: 7 blocks of 16 members, block k on rank k mod {ranks}"
    assert sorted(os.listdir(tmp_path)) == ["cfg.json", "np1.h5", "np3.h5", "np4.h5", "whole.h5"]  # no parts, no temporary


def test_a_bad_config_is_one_message_and_exit_2(tmp_path):
    cfg = top("rkmk4")
    cfg["step"] = {"h": -1}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5"))
    assert rc == 2 and err.count("liebatch:") == 1 and "/step/h" in err, err
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "--members", "0:10"))
    assert rc == 2 and err.count("liebatch:") == 1 and "--members" in err, err
    assert os.listdir(tmp_path) == ["cfg.json"]


def test_a_rank_killed_ends_the_job_within_10_s_with_no_output(tmp_path):
    (tmp_path / "cfg.json").write_text(json.dumps(top("rkmk4", t1=1e5)))  # minutes of work
    out = tmp_path / "out.h5"
    p = mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", start_new_session=True)
    try:
        # The ranks are the launcher's children; rank 0 named the parts' directory after itself.
        for _ in range(3000):
            parts = [f for f in os.listdir(tmp_path) if f.startswith(".liebatch-parts-")]
            if parts:
                break
            time.sleep(0.01)
        rank0 = int(parts[0].split("-")[-1])
        ranks = [int(d) for d in os.listdir("/proc") if d.isdigit() and parent(int(d)) == p.pid]
        assert len(ranks) == 3 and rank0 in ranks, ranks
        time.sleep(0.5)
        os.kill(max(r for r in ranks if r != rank0), signal.SIGKILL)
        t = time.monotonic()
        rc, _, err = finish(p, timeout=30)
        assert rc != 0 and time.monotonic() - t < 10, (rc, err)
        assert "rank" in err and "signal 9" in err, err
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert not out.exists()


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def test_validate_runs_on_rank_0_and_gives_the_single_process_output(tmp_path):
    cfg = dict(top("rkmk4"), validate={"bound": 1e-9})
    whole = lb.load(single(tmp_path, "validate", cfg))
    rc, stdout, err = finish(mpirun(2, "validate", tmp_path / "cfg.json", "-o", tmp_path / "np2.h5", "--threads", "1"))
    assert rc == 0 and "on rank 0 alone" in stdout, err
    assert_same(whole, lb.load(tmp_path / "np2.h5"))
