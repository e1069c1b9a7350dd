"""Checkpoints (`--checkpoint-every`, SIGUSR1, SIGTERM) and `--resume`: a run killed at any moment and
resumed ends with the uninterrupted run's output, dataset by dataset and bitwise; a checkpoint that
is not this run's is refused, naming what differs; a damaged one is refused, naming the file."""
import json
import os
import random
import signal
import subprocess
import time
import zlib

import pytest

from conftest import EXE, assert_same_run, lossy_section

N = 240
BATCH = 64  # four batches, the last one short


def top(adaptive, samples=5, t1=20):
    """A heavy top ensemble over about a second of CPU (t1 = 20): fixed steps in 10 legs, or adaptive ones."""
    step = {"adaptive": True, "atol": 1e-10, "rtol": 1e-10} if adaptive else {"h": 1e-3}
    return {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"mass": {"linspace": [1, 2, N]}}},
            "method": "rkmk54" if adaptive else "rkmk4", "time": {"t0": 0, "t1": t1}, "step": step,
            "outputs": {"samples": samples}}


# The fixed-step case runs 4 times as long as the others' default (t1 = 80): on a 2-core EPYC with
# AVX-512, t1 = 20 took 0.2 s of wall time, and resumed runs ended before the five kills were made.
CASES = [("run", top(False, t1=80)), ("run", top(True)), ("poincare", lossy_section(N, t1=300))]
IDS = ["fixed", "adaptive", "poincare"]


def args(command, cfg, out, *extra, batch=BATCH):
    """The command line of a run in batches of `batch` members (0: as many as fit)."""
    return [EXE, command, str(cfg), "-o", str(out), "-q", "--no-plot", "--batch", str(batch), *map(str, extra)]


def liebatch(*a, env=None):
    return subprocess.run(list(map(str, a)), capture_output=True, text=True, env=env)


def whole_run(tmp_path, command, cfg):
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    whole = tmp_path / "whole.h5"
    t = time.monotonic()
    p = liebatch(*args(command, tmp_path / "cfg.json", whole))
    assert p.returncode == 0, p.stderr
    return whole, time.monotonic() - t


def generation(out):
    with open(str(out) + ".ckpt/manifest.json") as f:
        m = json.load(f)
    return m["generation"], "engine" in m["files"]


def wait_for_generation(out, g, p, or_exit=False):
    """Waits (at most 20 s) until the checkpoint of `out` reaches generation g (True), while p runs;
    or_exit: False if p ends first."""
    for _ in range(4000):
        if os.path.exists(str(out) + ".ckpt/manifest.json") and generation(out)[0] >= g:
            return True
        if p.poll() is not None:
            assert or_exit, p.stderr.read()
            return False
        time.sleep(0.005)
    raise AssertionError(f"no checkpoint generation {g}")


def start(cfg, out, *extra):
    """`liebatch run` with checkpoints only when asked, once its first checkpoint is written."""
    p = subprocess.Popen(args("run", cfg, out, "--checkpoint-every", 1000, *extra), start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for_generation(out, 0, p)
    return p


@pytest.mark.parametrize("command,cfg", CASES, ids=IDS)
def test_killed_at_random_moments_and_resumed_equals_the_uninterrupted_run(tmp_path, command, cfg):
    whole, _ = whole_run(tmp_path, command, cfg)
    out = tmp_path / "killed.h5"
    rng = random.Random(zlib.crc32(json.dumps(cfg).encode()))
    killed, mid_batch, finished = 0, 0, False
    for k in range(5):
        # Each kill comes at a random moment after the run has checkpointed progress of its own (two
        # generations on), so that it loses work whatever this machine's speed: a kill timed as a
        # fraction of the whole run came before the first checkpoint on a fast machine.
        g = generation(out)[0] if k > 0 else -1
        extra = ["--checkpoint-every", 0.02] + (["--resume"] if k > 0 else [])
        p = subprocess.Popen(args(command, tmp_path / "cfg.json", out, *extra), start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if wait_for_generation(out, g + 2, p, or_exit=True):
            time.sleep(rng.uniform(0, 0.02))
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            killed += 1
        p.wait()
        finished = p.returncode == 0  # (a resumed run that ended before its kill)
        if finished:
            break
        assert p.returncode == -signal.SIGKILL, p.stderr.read()
        mid_batch += generation(out)[1]
    if not finished:
        p = liebatch(*args(command, tmp_path / "cfg.json", out, "--resume"))
        assert p.returncode == 0, p.stderr
    assert killed >= 3 and mid_batch >= 1, (killed, mid_batch)  # the test's case: kills within batches
    assert not os.path.exists(str(out) + ".ckpt")
    assert sorted(os.listdir(tmp_path)) == ["cfg.json", "killed.h5", "whole.h5"]  # no temporary left
    assert_same_run(whole, out)


def test_sigterm_checkpoints_and_exits_5_then_resumes(tmp_path):
    whole, seconds = whole_run(tmp_path, "run", top(True))
    out = tmp_path / "out.h5"
    p = start(tmp_path / "cfg.json", out)
    time.sleep(0.4 * seconds)
    p.send_signal(signal.SIGTERM)
    err = p.communicate()[1]
    assert p.returncode == 5, err
    assert "--resume" in err and "checkpoint" in err
    assert not out.exists() and generation(out)[0] >= 1
    p = liebatch(*args("run", tmp_path / "cfg.json", out, "--resume"))
    assert p.returncode == 0, p.stderr
    assert_same_run(whole, out)


def test_sigusr1_checkpoints_and_goes_on(tmp_path):
    whole, seconds = whole_run(tmp_path, "run", top(False))
    out = tmp_path / "out.h5"
    p = start(tmp_path / "cfg.json", out)
    time.sleep(0.2 * seconds)
    p.send_signal(signal.SIGUSR1)
    wait_for_generation(out, 1, p)  # generation 0 at the start, 1 asked for
    assert p.wait() == 0, p.stderr.read()
    assert_same_run(whole, out)


def test_a_kill_between_the_files_and_the_manifest_resumes_from_the_previous_generation(tmp_path):
    whole, _ = whole_run(tmp_path, "poincare", lossy_section(N, t1=300))
    out = tmp_path / "out.h5"
    env = dict(os.environ, LIEBATCH_CHECKPOINT_KILL_BEFORE_RENAME="3")
    p = liebatch(*args("poincare", tmp_path / "cfg.json", out, "--checkpoint-every", 0.01), env=env)
    assert p.returncode == -signal.SIGKILL, p.stderr
    assert generation(out)[0] == 2 and os.path.exists(str(out) + ".ckpt/manifest.json.tmp")
    p = liebatch(*args("poincare", tmp_path / "cfg.json", out, "--resume"))
    assert p.returncode == 0, p.stderr
    assert_same_run(whole, out)


@pytest.fixture
def stopped(tmp_path):
    """A run stopped by SIGTERM after its first checkpoint: (config path, output path). Its span
    is one that float resolves too."""
    (tmp_path / "cfg.json").write_text(json.dumps(top(False, t1=8)))
    out = tmp_path / "out.h5"
    p = start(tmp_path / "cfg.json", out)
    p.send_signal(signal.SIGTERM)
    assert p.wait() == 5, p.stderr.read()
    return tmp_path / "cfg.json", out


@pytest.mark.parametrize("change,message", [
    ("config", "the config differs at /step/h"),
    ("members", "it was made for members 0:240, this run has 0:100"),
    ("precision", "it was made with precision double, this run has float"),
    ("version", "it was made by liebatch 0.0.1 (commit"),
])
def test_a_checkpoint_of_another_run_is_refused_naming_what_differs(stopped, change, message):
    cfg, out = stopped
    extra = []
    if change == "config":
        c = top(False, t1=8)
        c["step"]["h"] = 2e-3
        cfg.write_text(json.dumps(c))
    elif change == "members":
        extra = ["--members", "0:100"]
    elif change == "precision":
        extra = ["--precision", "float"]
    else:
        manifest = str(out) + ".ckpt/manifest.json"
        m = json.load(open(manifest))
        m["identity"]["liebatch"] = "0.0.1 (commit 0000000)"
        json.dump(m, open(manifest, "w"))
    p = liebatch(*args("run", cfg, out, "--resume", *extra))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert "--restart" in p.stderr and not out.exists() and os.path.exists(str(out) + ".ckpt/manifest.json")


def test_a_damaged_or_missing_checkpoint_is_a_file_error_naming_the_file(stopped):
    cfg, out = stopped
    ckpt = str(out) + ".ckpt"
    tally = next(f for f in os.listdir(ckpt) if f.startswith("tally-"))
    with open(os.path.join(ckpt, tally), "r+b") as f:  # one byte flipped
        f.seek(20)
        b = f.read(1)
        f.seek(20)
        f.write(bytes([b[0] ^ 1]))
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 3 and tally in p.stderr and "damaged" in p.stderr, p.stderr
    with open(os.path.join(ckpt, "manifest.json"), "w") as f:
        f.write("{not json")
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 3 and "manifest.json" in p.stderr and "damaged" in p.stderr, p.stderr
    p = liebatch(*args("run", cfg, cfg.parent / "other.h5", "--resume"))
    assert p.returncode == 3 and "no checkpoint" in p.stderr, p.stderr


def test_a_staged_array_cut_short_or_missing_is_a_file_error_naming_it(stopped):
    # A missing one was made again of zeros: members the checkpoint counted done came out as 0, "ok".
    cfg, out = stopped
    ckpt = str(out) + ".ckpt"
    raw = sorted(f for f in os.listdir(ckpt) if f.endswith(".raw"))
    assert raw
    os.truncate(os.path.join(ckpt, raw[0]), 8)
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 3 and raw[0] in p.stderr and "8 bytes, not the" in p.stderr, p.stderr
    os.remove(os.path.join(ckpt, raw[0]))
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 3 and raw[0] in p.stderr and "missing; the manifest lists it" in p.stderr, p.stderr
    assert not out.exists()


def test_a_resume_refuses_what_liebatch_did_not_write_before_it_runs(stopped):
    # A file of the user's named *.bin was removed; a link to the checkpoint was refused only at the
    # end, the output already written.
    cfg, out = stopped
    ckpt = str(out) + ".ckpt"
    mine = os.path.join(ckpt, "notes.bin")
    open(mine, "w").write("mine")
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 3 and "notes.bin" in p.stderr and open(mine).read() == "mine" and not out.exists(), p.stderr
    os.remove(mine)
    os.rename(ckpt, ckpt + "-moved")
    os.symlink(os.path.basename(ckpt) + "-moved", ckpt)
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 3 and "it is a symbolic link" in p.stderr and not out.exists(), p.stderr
    os.remove(ckpt)
    os.rename(ckpt + "-moved", ckpt)
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == 0 and out.exists() and not os.path.exists(ckpt), p.stderr


def test_sigusr1_without_checkpoints_is_said_and_the_run_goes_on(tmp_path):
    # It ended the process (exit 138), the output's temporary left behind.
    (tmp_path / "cfg.json").write_text(json.dumps(top(False, t1=80)))
    out = tmp_path / "out.h5"
    p = subprocess.Popen(args("run", tmp_path / "cfg.json", out), stderr=subprocess.PIPE, text=True)
    for _ in range(2000):
        if any(".tmp-" in f for f in os.listdir(tmp_path)):
            break
        time.sleep(0.005)
    assert p.poll() is None
    p.send_signal(signal.SIGUSR1)
    assert p.wait(timeout=120) == 0
    assert "SIGUSR1 ignored: this run takes no checkpoints" in p.stderr.read()
    assert sorted(os.listdir(tmp_path)) == ["cfg.json", "out.h5"]


@pytest.mark.parametrize("damage,status,message", [
    (lambda m: m["values"].update(batch=0), 3, "does not start a batch of 0"),
    (lambda m: m.pop("files"), 3, "damaged"),
    (lambda m: m.update(files=[]), 3, "damaged"),
    (lambda m: m["identity"].update(liebatch=5), 2, "it was made by liebatch 5, this is"),
    (lambda m: m.update(identity=[1]), 3, "damaged"),
], ids=["batch 0", "no files", "files a list", "version a number", "identity a list"])
def test_a_manifest_with_fields_of_the_wrong_kind_is_refused_not_a_crash(stopped, damage, status, message):
    cfg, out = stopped
    manifest = str(out) + ".ckpt/manifest.json"
    m = json.load(open(manifest))
    damage(m)
    json.dump(m, open(manifest, "w"))
    p = liebatch(*args("run", cfg, out, "--resume"))
    assert p.returncode == status and message in p.stderr and "--restart" in p.stderr, p.stderr
    assert not out.exists()


def test_a_run_over_a_checkpoint_needs_resume_or_restart(stopped):
    cfg, out = stopped
    p = liebatch(*args("run", cfg, out))
    assert p.returncode == 2 and "--resume" in p.stderr and "--restart" in p.stderr, p.stderr
    mine = os.path.join(str(out) + ".ckpt", "notes.txt")  # a file liebatch did not write: never removed
    open(mine, "w").write("mine")
    p = liebatch(*args("run", cfg, out, "--restart"))
    assert p.returncode == 3 and "notes.txt" in p.stderr and open(mine).read() == "mine", p.stderr
    os.remove(mine)
    # Under liebatch's names, but not its files: a link (to the user's data, which a removal that
    # follows links would empty) and a directory. Refused; nothing of either removed.
    victim = cfg.parent / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "sub" / "data.txt").write_text("mine")
    ckpt = str(out) + ".ckpt"
    for name, make in (("part-1.h5", lambda at: os.symlink(victim, at)), ("0.raw", os.mkdir)):
        make(os.path.join(ckpt, name))
        p = liebatch(*args("run", cfg, out, "--restart"))
        assert p.returncode == 3 and name in p.stderr and "not a file" in p.stderr, p.stderr
        assert (victim / "sub" / "data.txt").read_text() == "mine" and os.path.exists(os.path.join(ckpt, "manifest.json"))
        (os.remove if name == "part-1.h5" else os.rmdir)(os.path.join(ckpt, name))
    p = liebatch(*args("run", cfg, out, "--restart"))
    assert p.returncode == 0 and out.exists() and not os.path.exists(str(out) + ".ckpt"), p.stderr


def test_a_directory_of_the_users_under_the_checkpoints_name_is_never_taken_for_one(tmp_path):
    # An empty directory out.h5.ckpt was taken for a checkpoint killed before its first manifest,
    # and --restart removed it. A checkpoint is known by the marker made with it.
    (tmp_path / "cfg.json").write_text(json.dumps(top(False, t1=0.01)))
    out, mine = tmp_path / "out.h5", tmp_path / "out.h5.ckpt"
    mine.mkdir()
    p = liebatch(*args("run", tmp_path / "cfg.json", out))
    assert p.returncode == 2 and "is not one liebatch made; move it" in p.stderr, p.stderr
    for flag in ("--restart", "--resume"):
        p = liebatch(*args("run", tmp_path / "cfg.json", out, flag))
        assert p.returncode == 3 and "is not a checkpoint liebatch made" in p.stderr, p.stderr
        assert mine.is_dir() and not out.exists()
    mine.rmdir()
    p = liebatch(*args("run", tmp_path / "cfg.json", out, "--checkpoint-every", 60))
    assert p.returncode == 0 and out.exists() and not mine.exists(), p.stderr


def test_a_gpu_run_killed_and_resumed_equals_the_uninterrupted_gpu_run(tmp_path):
    """The engine's state copied from the device at a pause and back (bench/RESULTS.md's GPU list)."""
    cfg = top(False, samples=11, t1=200)
    cfg["model"]["parameters"]["mass"]["linspace"][2] = N * 64
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    whole = tmp_path / "whole.h5"
    t = time.monotonic()
    p = liebatch(*args("run", tmp_path / "cfg.json", whole, "--device", "gpu", batch=0))
    if p.returncode == 4 and "gpu" in p.stderr:
        pytest.skip("no GPU run here: " + p.stderr.strip())
    assert p.returncode == 0, p.stderr
    seconds = time.monotonic() - t
    out = tmp_path / "out.h5"
    for k, at in enumerate((0.3, 0.3)):
        extra = ["--device", "gpu", "--checkpoint-every", 0.1] + (["--resume"] if k else [])
        p = subprocess.Popen(args("run", tmp_path / "cfg.json", out, *extra, batch=0), start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(at * seconds)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        assert generation(out)[1], "a batch in flight at the kill"
    p = liebatch(*args("run", tmp_path / "cfg.json", out, "--device", "gpu", "--resume", batch=0))
    assert p.returncode == 0, p.stderr
    assert_same_run(whole, out)
