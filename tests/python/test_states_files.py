"""Initial states from a file (`"initial": {"file": ...}`): a line the reader cannot take whole is
refused, naming the line; and the file's bytes are part of the run, so a resumed run, or slices
merged, cannot mix the states of a file changed in between."""
import json
import resource
import signal
import subprocess
import time

import pytest

import liebatch as lb
from conftest import EXE, assert_same

STATE = [0.0, 70.3125, -70.3124296875, 0.0, 0.0, 1.0]  # the Bruls–Cardona top's (bruls_cardona)


def top(t1=1, members=4):
    return {"model": {"name": "heavy_top", "preset": "bruls_cardona", "parameters": {"mass": {"linspace": [1, 2, members]}}},
            "method": "rkmk4", "time": {"t0": 0, "t1": t1}, "step": {"h": 1e-3}, "initial": {"file": "states.txt"},
            "outputs": {"samples": 2, "plot": False}}


def liebatch(tmp_path, *args):
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, cwd=tmp_path)


def write(tmp_path, cfg, text):
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    (tmp_path / "states.txt").write_text(text)


def test_more_states_than_fit_in_memory_are_refused_naming_the_line(tmp_path):
    # 4·10⁶ states of the free body (24 MB of text, about 256 MB once read) under an address space
    # of 250 MB (ulimit -v, which batch systems set; cgroup limits count the same way): refused as
    # they are read, where std::bad_alloc (exit 4) ended the run before.
    cfg = {"model": {"name": "free_rigid_body"}, "method": "rkmk4", "time": {"t1": 0.01}, "step": {"h": 0.01},
           "initial": {"file": "states.txt"}, "outputs": {"plot": False}}
    write(tmp_path, cfg, "0.3 0.8 0.5\n" * 4_000_000)
    limit = 250 << 20
    p = subprocess.run([EXE, "run", "cfg.json", "-o", "out.h5", "-q", "--threads", "1"], capture_output=True, text=True, cwd=tmp_path,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert p.returncode == 2 and "more states than fit in memory" in p.stderr and "/initial/file" in p.stderr, p.stderr
    assert not (tmp_path / "out.h5").exists()


@pytest.mark.parametrize("text,message", [
    ("0,70.3125,,-70.3124296875,0,0,1\n", "line 1: field 3 is empty"),
    ("0, 70.3125, -70.3124296875, 0, 0, 1,\n", "line 1: field 7 is empty"),
    ("# a comment\n" + " " * (1 << 21) + "\n", "line 2: longer than 1 MiB"),
], ids=["empty field", "trailing comma", "a line without end"])
def test_a_line_the_reader_cannot_take_whole_is_refused(tmp_path, text, message):
    write(tmp_path, top(), text)
    p = liebatch(tmp_path, "run", "cfg.json", "-o", "out.h5", "-q")
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not (tmp_path / "out.h5").exists()


def test_commas_and_spaces_give_the_same_states(tmp_path):
    outs = []
    for k, text in enumerate((" ".join(map(repr, STATE)) + "\n", ", ".join(map(repr, STATE)) + "\r\n")):
        write(tmp_path, top(), text)
        p = liebatch(tmp_path, "run", "cfg.json", "-o", f"out{k}.h5", "-q")
        assert p.returncode == 0, p.stderr
        outs.append((tmp_path / f"out{k}.h5"))
    assert_same(lb.load(outs[0]), lb.load(outs[1]))


def changed(state):
    return " ".join(map(repr, [state[0] + 1] + state[1:])) + "\n"  # another Π, the same Γ


def test_slices_of_a_file_changed_between_them_are_not_merged(tmp_path):
    write(tmp_path, top(), " ".join(map(repr, STATE)) + "\n")
    assert liebatch(tmp_path, "run", "cfg.json", "-o", "a.h5", "-q", "--members", "0:2").returncode == 0
    (tmp_path / "states.txt").write_text(changed(STATE))
    assert liebatch(tmp_path, "run", "cfg.json", "-o", "b.h5", "-q", "--members", "2:4").returncode == 0
    p = liebatch(tmp_path, "merge", "a.h5", "b.h5", "-o", "all.h5")
    assert p.returncode == 2 and "initial_states" in p.stderr, p.stderr
    assert not (tmp_path / "all.h5").exists()


def test_a_run_whose_file_changed_since_its_checkpoint_does_not_resume(tmp_path):
    write(tmp_path, top(t1=8, members=240), " ".join(map(repr, STATE)) + "\n")
    args = ["run", "cfg.json", "-o", "out.h5", "-q", "--batch", 64]
    p = subprocess.Popen([EXE, *map(str, args), "--checkpoint-every", "1000"], cwd=tmp_path, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(4000):  # the first checkpoint (generation 0) is written before any step
        if (tmp_path / "out.h5.ckpt" / "manifest.json").exists() or p.poll() is not None:
            break
        time.sleep(0.005)
    p.send_signal(signal.SIGTERM)
    assert p.wait() == 5, p.stderr.read()
    (tmp_path / "states.txt").write_text(changed(STATE))
    r = liebatch(tmp_path, *args, "--resume")
    assert r.returncode == 2 and "initial_states" in r.stderr and "--restart" in r.stderr, r.stderr
    assert not (tmp_path / "out.h5").exists()


def test_checkpoints_every_nan_seconds_are_refused(tmp_path):
    write(tmp_path, top(), " ".join(map(repr, STATE)) + "\n")
    for v in ("nan", "-nan", "inf"):
        p = liebatch(tmp_path, "run", "cfg.json", "-o", "out.h5", "-q", "--checkpoint-every", v)
        assert p.returncode == 2 and "--checkpoint-every" in p.stderr, (v, p.stderr)
