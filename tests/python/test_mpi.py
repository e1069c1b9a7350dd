"""A job of ranks under mpirun (cli/ranks/): run and poincare, fixed and adaptive steps, over 1, 3
and 4 ranks give the single process's output, dataset by dataset and bitwise; a bad config is one
message and exit 2 with no output; a rank killed ends the job quickly with no output; converge's
runs and validate's batches dealt to the ranks give the single process's output too. Run through ctest (label mpi), which names the launcher."""
import json
import math
import os
import random
import re
import signal
import subprocess
import time
import zlib

import pytest

import liebatch as lb
from conftest import EXE, SOURCE, assert_same, assert_same_run, lossy_section

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
        made = lb.load(out).attrs[""]["merged_from"]
        assert made.startswith(f"a job of {ranks} ranks: 7 blocks of 16 members, --balance cyclic;"), made
        assert block_ranks(made) == [k % ranks for k in range(7)], made
    assert sorted(os.listdir(tmp_path)) == ["cfg.json", "np1.h5", "np3.h5", "np4.h5", "whole.h5"]  # no parts, no temporary


def test_progress_of_the_whole_job_is_drawn_once_by_rank_0(tmp_path):
    """--progress (mpirun forwards stderr through a pipe): one bar for the job, the members of every
    rank's blocks counted, never going back (three ranks drawing their own would), to 100 %; and
    the single process's output."""
    cfg = dict(top("rkmk54", t1=30), step={"adaptive": True, "atol": 1e-10, "rtol": 1e-10})
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    rc, stdout, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "np3.h5", "--threads", "1", "--progress"))
    assert rc == 0, err
    done = [float(f) for f in re.findall(r"run: +([0-9.]+)% ", err)]
    assert len(done) >= 2 and done == sorted(done) and done[-1] == 100.0, err
    assert_same_run(single(tmp_path, "run", cfg), tmp_path / "np3.h5", aside=MADE)


def block_ranks(merged_from):
    """The rank of each block, as a job's `merged_from` lists them."""
    return [int(r) for r in merged_from.split("rank of each block: ")[1].split()]


def test_block_cyclic_balances_a_grid_whose_hard_members_are_contiguous(tmp_path):
    """Double pendulums, adaptive steps: the first two thirds swing gently, the last third spins fast
    and chaotically, and costs four times as many steps. The work of each rank (steps and rejected
    steps of its members, read from the output) is far from even for a contiguous split and close
    to it block-cyclically; any split, dynamic included, gives the same output."""
    n = 384  # 24 blocks of 16 over 3 ranks
    theta = [0.05 + 0.45 * i / 255 for i in range(256)] + [2.0 + 0.8 * i / 127 for i in range(128)]
    spin = [0.0] * 256 + [8.0] * 128
    states = [[math.sin(a), 0, -math.cos(a), 0, w, 0, math.sin(a), 0, -math.cos(a), 0, -w, 0] for a, w in zip(theta, spin)]
    cfg = {"model": {"name": "pendulum_chain", "parameters": {"N": 2}}, "method": "rkmk54", "time": {"t0": 0, "t1": 10},
           "step": {"adaptive": True, "atol": 1e-8, "rtol": 1e-8}, "initial": {"states": states}, "outputs": {"samples": 2}}
    whole = lb.load(single(tmp_path, "run", cfg))
    work = whole["final/steps"] + whole["final/rejected"]
    assert len(work) == n
    imbalance = {}
    for balance in ("contiguous", "cyclic", "dynamic"):
        out = tmp_path / f"{balance}.h5"
        rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--balance", balance))
        assert rc == 0, err
        assert_same_run(tmp_path / "whole.h5", out, aside=MADE)
        made = lb.load(out).attrs[""]["merged_from"]
        assert f"24 blocks of 16 members, --balance {balance};" in made, made
        owner = block_ranks(made)
        assert len(owner) == 24 and set(owner) <= {0, 1, 2}, made
        per_rank = [sum(work[16 * k:16 * (k + 1)].sum() for k in range(24) if owner[k] == r) for r in range(3)]
        imbalance[balance] = max(per_rank) / (sum(per_rank) / 3)
    assert imbalance["contiguous"] >= 1.5 and imbalance["cyclic"] <= 1.1, imbalance


def test_a_bad_config_is_one_message_and_exit_2(tmp_path):
    cfg = top("rkmk4")
    cfg["step"] = {"h": -1}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5"))
    assert rc == 2 and err.count("liebatch:") == 1 and "/step/h" in err, err
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "--members", "0:10"))
    assert rc == 2 and err.count("liebatch:") == 1 and "--members" in err, err
    # --device gpu where this build cannot run one: the single process's exit status, and one message.
    cfg["step"] = {"h": 0.01}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    p = subprocess.run([EXE, "run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "--device", "gpu", "-q"], capture_output=True,
                       text=True)
    if p.returncode == 4:
        rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "--device", "gpu"))
        assert rc == 4 and err.count("liebatch:") == 1 and "device 'gpu'" in err, err
    else:
        assert p.returncode == 0, p.stderr
        (tmp_path / "out.h5").unlink()
    # validate's own checks are rank 0's verdict too: against a GPU with --device cpu.
    (tmp_path / "cfg.json").write_text(json.dumps(dict(cfg, validate={"against": "gpu"})))
    rc, _, err = finish(mpirun(3, "validate", tmp_path / "cfg.json", "-o", tmp_path / "out.h5", "--device", "cpu"))
    assert rc == 2 and err.count("liebatch:") == 1 and "/validate/against" in err, err
    # An output in a directory that does not exist: the single process's exit status, one message
    # (it once came after the verdict, from MPI_Abort with the launcher's notice of it).
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", tmp_path / "none" / "out.h5"))
    assert rc == 3 and err.count("liebatch:") == 1 and "MPI_ABORT" not in err and "none/out.h5" in err, err
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
            kill_job(p)
    assert not out.exists()
    # The launcher ends the other ranks with SIGTERM: they remove the parts, the killed rank's too.
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".liebatch-parts-")]


def test_sigterm_to_the_launcher_leaves_no_output_and_no_parts(tmp_path):
    (tmp_path / "cfg.json").write_text(json.dumps(top("rkmk4", t1=1e5)))
    out = tmp_path / "out.h5"
    p = mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", start_new_session=True)
    try:
        for _ in range(3000):  # until every rank writes its first part
            parts = [f for f in os.listdir(tmp_path) if f.startswith(".liebatch-parts-")]
            if parts and len(os.listdir(tmp_path / parts[0])) == 3:
                break
            time.sleep(0.01)
        p.send_signal(signal.SIGTERM)
        rc, _, err = finish(p, timeout=30)
        assert rc != 0, err
    finally:
        if p.poll() is None:
            kill_job(p)
    assert sorted(os.listdir(tmp_path)) == ["cfg.json"]


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def test_converge_deals_its_runs_to_the_ranks_and_gives_the_single_process_output(tmp_path):
    """The example's study: 7 methods, so 15 runs (the reference, each method in double and in long
    double) over 1, 3 and 4 ranks."""
    with open(os.path.join(SOURCE, "examples", "configs", "heavy_top_convergence.json")) as f:
        cfg = json.load(f)
    whole = single(tmp_path, "converge", cfg)
    for ranks in (1, 3, 4):
        out = tmp_path / f"np{ranks}.h5"
        rc, stdout, err = finish(mpirun(ranks, "converge", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--no-plot"))
        assert rc == 0 and err == "", err
        assert ranks == 1 or f"dealt to {ranks} ranks" in stdout, stdout
        assert_same_run(whole, out)


@pytest.mark.parametrize("method", ["rkmk4", "rkmk54"], ids=["fixed", "adaptive"])
def test_validate_over_ranks_gives_the_single_process_output(tmp_path, method):
    """Its batches dealt to the ranks: the members' arrays, and each output's max and median (the
    median selected from the ranks' parts, never gathered), equal the single process's bitwise;
    with one batch for 4 ranks, three hold no difference at all."""
    cfg = dict(top(method), validate={"bound": 1e-9} if method == "rkmk4" else {})
    whole = single(tmp_path, "validate", cfg)
    medians = lb.load(whole)["validate/median"]
    assert len(medians) == 3 and all(m > 0 for m in medians)  # final and sampled states, observables: medians to find
    for ranks, batch in ((1, 12), (3, 12), (4, 12), (4, 400)):  # batches of 12, 4, 3 and 100 members
        out = tmp_path / f"np{ranks}-{batch}.h5"
        rc, stdout, err = finish(mpirun(ranks, "validate", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--batch", batch,
                                        "--no-plot"))
        assert rc == 0 and err == "", err
        assert "PASS" in stdout and (ranks == 1 or f"batches dealt to {ranks} ranks" in stdout), stdout
        assert_same_run(whole, out, aside=MADE)
        with open(str(out)[:-3] + ".csv") as a, open(str(whole)[:-3] + ".csv") as b:
            assert a.read() == b.read()


# --- Checkpoints of a job of ranks: OUT.ckpt/ holds job.json, each block done as part-k.h5, and each
# block in flight's own checkpoint, part-k.h5.ckpt/ (docs/cluster.md).

def job_progress(out):
    """Blocks done, the checkpoints of the blocks in flight (generations from 0, counted from 1),
    whether one holds a batch in flight, and the latest generation, in the job's checkpoint
    directory of `out`."""
    ckpt, done, generations, mid_block, latest = str(out) + ".ckpt", 0, 0, False, -1
    try:
        names = os.listdir(ckpt)
    except FileNotFoundError:
        return 0, 0, False, -1
    for f in names:
        if f.startswith("part-") and f.endswith(".h5"):
            done += 1
        elif f.endswith(".h5.ckpt"):
            try:
                with open(os.path.join(ckpt, f, "manifest.json")) as m:
                    m = json.load(m)
            except (OSError, ValueError):  # a block just finished, or not yet at its first manifest
                continue
            generations += m["generation"] + 1
            latest = max(latest, m["generation"])
            mid_block = mid_block or "engine" in m["files"]
    return done, generations, mid_block, latest


def ranks_of(p):
    return [int(d) for d in os.listdir("/proc") if d.isdigit() and parent(int(d)) == p.pid]


def kill_job(p):
    """SIGKILL to the launcher and its ranks, as a cluster ends a job: Open MPI puts each rank in a
    process group of its own, so a signal to the launcher's group alone leaves them running."""
    ranks = ranks_of(p)
    os.killpg(p.pid, signal.SIGKILL)
    for r in ranks:
        try:
            os.kill(r, signal.SIGKILL)
        except ProcessLookupError:
            pass


def long_top():
    """About 2 s of one core: blocks that checkpoint many times before they end."""
    cfg = top("rkmk54", t1=40)
    cfg["step"].update(atol=1e-12, rtol=1e-12)
    return cfg


CKPT_CASES = [("run", long_top()), ("poincare", lossy_section(N, t1=1500))]


@pytest.mark.parametrize("command,cfg", CKPT_CASES, ids=["adaptive", "poincare"])
def test_a_job_killed_at_random_moments_and_resumed_equals_the_single_process(tmp_path, command, cfg):
    whole = single(tmp_path, command, cfg)
    out = tmp_path / "killed.h5"
    rng = random.Random(zlib.crc32(json.dumps(cfg).encode()))
    killed, mid_block = 0, 0
    def progress():  # grows with every block checkpoint and block done
        done, generations, _, _ = job_progress(out)
        return 1000 * done + generations
    for k in range(5):
        # Each kill comes at a random moment once the job has made progress of its own since the last
        # (two more block checkpoints or blocks done), so that it loses work whatever the machine's
        # speed; never once 6 of its 7 blocks are done (the merge is near).
        before = progress()
        p = mpirun(3, command, tmp_path / "cfg.json", "-o", out, "--threads", "1", "--checkpoint-every", 0.02,
                   *(["--resume"] if k else []), start_new_session=True)
        for _ in range(4000):
            if progress() >= before + 2 or p.poll() is not None:
                break
            time.sleep(0.005)
        if p.poll() is None and job_progress(out)[0] < 6:
            time.sleep(rng.uniform(0, 0.02))
            mid_block += job_progress(out)[2]
            kill_job(p)
            killed += 1
        rc, _, err = finish(p)
        if rc == 0:
            break
        assert rc == -signal.SIGKILL, err
    # A block done whose file a crash cut short runs again.
    parts = sorted(f for f in os.listdir(str(out) + ".ckpt") if f.endswith(".h5"))
    if parts:
        os.truncate(os.path.join(str(out) + ".ckpt", parts[0]), 100)
    rc, _, err = finish(mpirun(3, command, tmp_path / "cfg.json", "-o", out, "--threads", "1", "--resume"))
    assert rc == 0, err
    assert killed >= 3 and mid_block >= 1, (killed, mid_block)  # the test's case: kills within blocks
    assert sorted(os.listdir(tmp_path)) == ["cfg.json", "killed.h5", "whole.h5"]  # no checkpoint, part or temporary left
    assert_same_run(whole, out, aside=MADE)
    assert "resumed:" in lb.load(out).attrs[""]["merged_from"]


def went_on(stdout):
    """How many blocks a resumed job's summary says went on from their checkpoints."""
    return int(re.search(r"resumed: \d+ blocks were done, (\d+) went on from their checkpoints", stdout)[1])


def test_sigterm_to_the_ranks_checkpoints_exits_5_and_resumes_on_other_ranks(tmp_path):
    cfg = long_top()
    cfg["time"]["t1"] = 160  # long enough to be stopped on any machine
    whole = single(tmp_path, "run", cfg)
    out = tmp_path / "out.h5"
    p = mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--checkpoint-every", 1000, start_new_session=True)
    try:
        for _ in range(4000):  # blocks in flight with their first checkpoints
            if job_progress(out)[1] >= 3:
                break
            time.sleep(0.005)
        # SIGUSR1 to the launcher reaches every rank (Open MPI forwards it): a checkpoint, and on.
        # (At this period only a signal makes a block's generation 1.)
        p.send_signal(signal.SIGUSR1)
        for _ in range(4000):
            if job_progress(out)[3] >= 1:
                break
            time.sleep(0.005)
        assert job_progress(out)[3] >= 1 and p.poll() is None
        for r in ranks_of(p):  # as Slurm's --signal does: to every task
            os.kill(r, signal.SIGTERM)
        rc, _, err = finish(p)
    finally:
        if p.poll() is None:
            kill_job(p)
    assert rc == 5, err
    assert "--resume" in err and "any number of ranks" in err, err
    assert not out.exists() and os.path.exists(tmp_path / "out.h5.ckpt" / "job.json")
    # The blocks stay those of the job of 3; 4 ranks, then a single process refused, go on from them.
    p = subprocess.run([EXE, "run", tmp_path / "cfg.json", "-o", out, "-q", "--resume"], capture_output=True, text=True)
    assert p.returncode == 2 and "a job of ranks made it" in p.stderr, p.stderr
    rc, stdout, err = finish(mpirun(4, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--resume"))
    assert rc == 0, err
    assert went_on(stdout) >= 1, stdout
    assert_same_run(whole, out, aside=MADE)
    assert not (tmp_path / "out.h5.ckpt").exists()


def test_a_job_resumes_only_its_own_checkpoint(tmp_path):
    cfg = long_top()
    whole = single(tmp_path, "run", cfg)
    out = tmp_path / "out.h5"
    # A job killed in its first blocks' checkpoints (the kill hook: before generation 2's manifest).
    env = dict(os.environ, LIEBATCH_CHECKPOINT_KILL_BEFORE_RENAME="2")
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--checkpoint-every", 0.01, env=env))
    assert rc != 0 and (tmp_path / "out.h5.ckpt" / "job.json").exists(), err
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", out))
    assert rc == 2 and err.count("liebatch:") == 1 and "--resume" in err and "--restart" in err, err
    other = json.loads(json.dumps(cfg))
    other["step"]["atol"] = 1e-11
    (tmp_path / "other.json").write_text(json.dumps(other))
    rc, _, err = finish(mpirun(3, "run", tmp_path / "other.json", "-o", out, "--resume"))
    assert rc == 2 and err.count("liebatch:") == 1 and "the config differs at /step/atol" in err, err
    # A single process's checkpoint is resumed by a single process alone.
    single_out = tmp_path / "single.h5"
    p = subprocess.Popen([EXE, "run", tmp_path / "cfg.json", "-o", single_out, "-q", "--checkpoint-every", "1000"],
                         stderr=subprocess.PIPE, text=True)
    for _ in range(4000):
        if (tmp_path / "single.h5.ckpt" / "manifest.json").exists():
            break
        time.sleep(0.005)
    p.send_signal(signal.SIGTERM)
    assert p.wait() == 5, p.stderr.read()
    rc, _, err = finish(mpirun(2, "run", tmp_path / "cfg.json", "-o", single_out, "--resume"))
    assert rc == 2 and "a single process made it" in err, err
    # The killed job resumes from its blocks' previous generation.
    rc, stdout, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--resume"))
    assert rc == 0 and went_on(stdout) >= 1 and not (tmp_path / "out.h5.ckpt").exists(), err
    assert_same_run(whole, out, aside=MADE)
    # --restart removes a job's checkpoint, and the job starts over.
    env = dict(os.environ, LIEBATCH_CHECKPOINT_KILL_BEFORE_RENAME="2")
    out.unlink()
    rc, _, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--checkpoint-every", 0.01, env=env))
    assert rc != 0 and (tmp_path / "out.h5.ckpt" / "job.json").exists(), err
    rc, stdout, err = finish(mpirun(3, "run", tmp_path / "cfg.json", "-o", out, "--threads", "1", "--restart"))
    assert rc == 0 and "resumed" not in stdout and not (tmp_path / "out.h5.ckpt").exists(), err
    assert_same_run(whole, out, aside=MADE)
