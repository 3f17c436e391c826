"""torch.distributed stores (HashStore, FileStore, TCPStore, PrefixStore): the same operations on torch's and
on torchlike's give the same results, return types and errors (timeouts, missing keys, non-integer add); two
spawned processes meet through a TCPStore / FileStore and init_process_group(store=PrefixStore(...))."""
import datetime
import os
import subprocess
import sys
import time

import pytest

import torchlike.distributed as tl
from conftest import not_a_test_bug

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MS = datetime.timedelta(milliseconds=150)


def _outcome(fn):
    t0 = time.monotonic()
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        not_a_test_bug(e)
        took = time.monotonic() - t0
        if "imeout" in str(e):  # a timeout waits about the timeout asked for (torch's FileStore polls: up to 1 s)
            assert 0.1 <= took < 5, took
        return (type(e).__name__, str(e).splitlines()[0])


def _script(store):
    """A sequence of store calls; the list of outcomes (values or (exception type, message, seconds))."""
    s = store
    steps = [lambda: s.set("a", "x"), lambda: s.get("a"), lambda: s.set("b", b"\xff\x00"), lambda: s.get("b"),
             lambda: s.add("n", 2), lambda: s.add("n", -5), lambda: s.get("n"), lambda: s.add("a", 1),
             lambda: s.compare_set("c", "", "v"), lambda: s.compare_set("c", "zz", "w"),
             lambda: s.compare_set("c", "v", "w"), lambda: s.compare_set("q", "e", "d"), lambda: s.check(["q"]),
             lambda: s.check(["a", "n"]), lambda: s.check(["a", "zz"]), lambda: s.num_keys(),
             lambda: s.delete_key("a"), lambda: s.delete_key("a"), lambda: s.num_keys(),
             lambda: s.append("ap", "12"), lambda: s.append("ap", b"34"), lambda: s.get("ap"),
             lambda: s.multi_get(["b", "n"]), lambda: s.set_timeout(MS), lambda: s.timeout,
             lambda: s.get("missing"), lambda: s.wait(["missing"]), lambda: s.wait(["missing"], MS),
             lambda: s.wait(["n", "c"]), lambda: s.set("k", 5)]
    return [_outcome(f) for f in steps]


def _compare(ours, theirs):
    assert len(ours) == len(theirs)
    for i, (o, t) in enumerate(zip(ours, theirs)):
        if o[0] == "TypeError":  # pybind's argument error: the first line matches
            assert t[0] == "TypeError" and o[1] == t[1], (i, o, t)
        else:
            assert o == t, (i, o, t)


def test_hash_store_behaves_like_torch():
    import torch.distributed as td
    _compare(_script(tl.HashStore()), _script(td.HashStore()))
    assert tl.HashStore().timeout == td.HashStore().timeout


def test_file_store_behaves_like_torch(tmp_path):
    import torch.distributed as td
    ours, theirs = tl.FileStore(str(tmp_path / "ours"), 1), td.FileStore(str(tmp_path / "theirs"), 1)
    assert ours.num_keys() == theirs.num_keys()
    _compare(_script(ours), _script(theirs))


def test_tcp_store_behaves_like_torch():
    import torch.distributed as td
    ours = tl.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    theirs = td.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    assert ours.port > 0 and ours.num_keys() == theirs.num_keys() == 1
    o, t = _script(ours), _script(theirs)
    # torch's server drops the connection on a non-integer add (DistNetworkError) and every later call fails;
    # torchlike's answers ValueError("stoll") as torch's HashStore/FileStore do, so compare the steps before it
    _compare(o[:7], t[:7])
    assert o[7][:2] == ("ValueError", "stoll")
    t2 = td.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    o2 = tl.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    for s in (t2, o2):
        s.set_timeout(MS)
    _compare([_outcome(lambda: o2.get("missing")), _outcome(lambda: o2.wait(["x"], MS)), _outcome(o2.num_keys)],
             [_outcome(lambda: t2.get("missing")), _outcome(lambda: t2.wait(["x"], MS)), _outcome(t2.num_keys)])
    # a second master on a port in use: torch's DistNetworkError and message
    _compare([_outcome(lambda: tl.TCPStore("127.0.0.1", o2.port, 1, True))],
             [_outcome(lambda: td.TCPStore("127.0.0.1", o2.port, 1, True))])
    with pytest.raises(tl.DistNetworkError, match="client socket has timed out after 300ms"):
        tl.TCPStore("127.0.0.1", 1, 1, False, timeout=datetime.timedelta(milliseconds=300))


def test_prefix_store_behaves_like_torch():
    import torch.distributed as td
    for mod, outs in ((tl, []), (td, [])):
        base = mod.HashStore()
        p = mod.PrefixStore("pre", base)
        p.set("k", "v")
        outs += [base.get("pre/k"), p.get("k"), p.num_keys(), base.num_keys(), p.underlying_store is base,
                 p.add("c", 3), base.get("pre/c"), p.check(["k"]), base.check(["k"])]
        if mod is tl:
            ours = outs
        else:
            assert ours == outs


def test_init_process_group_store_arguments_like_torch():
    import torch.distributed as td
    for kw in (dict(world_size=1), dict(rank=0), dict(rank=0, world_size=1, init_method="env://")):
        got = []
        for mod in (tl, td):
            with pytest.raises(AssertionError) as e:
                mod.init_process_group("gloo", store=mod.HashStore(), **kw)
            got.append(str(e.value))
        assert got[0] == got[1]


def test_one_rank_init_through_store():
    tl.init_process_group("gloo", store=tl.HashStore(), rank=0, world_size=1)
    try:
        assert tl.get_world_size() == 1 and tl.get_rank() == 0
    finally:
        tl.destroy_process_group()


def _program_lines(runner, kind):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    cmd = [sys.executable] + (["-m", "torchlike", "run"] if runner else []) + [
        os.path.join(ROOT, "tests", "programs", "dist_store_init.py"), kind]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return [ln for ln in r.stdout.splitlines() if ln.startswith("R")]


@pytest.mark.parametrize("kind", ["tcp", "file"])
def test_two_processes_meet_through_a_store_like_torch(kind):
    theirs = _program_lines(False, kind)
    assert len(theirs) == 4
    assert _program_lines(True, kind) == theirs
