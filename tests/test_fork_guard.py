"""``os.fork()`` after tensors computed (torchlike/_fork_guard.py): a forked child runs Python and numpy code, a
fork-context DataLoader over host data works, and the user sees at most one warning, in torchlike's words
(never JAX's "os.fork() was called ... JAX is multithreaded"). Compared with torch line by line."""
import os
import subprocess
import sys

from conftest import lib_program_vs_torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_forked_children_compute_like_torch():
    theirs, ours = lib_program_vs_torch("fork_children.py", timeout=300)
    assert theirs[-1] == "runtime warnings True False" and len(ours) == 6


def test_the_fork_warning_is_torchlikes_and_names_the_users_line():
    code = ("import os, torchlike\n"
            "torchlike.ones(2).add(1).sum().item()\n"
            "for _ in range(2):\n"
            "    pid = os.fork()\n"
            "    if pid == 0:\n"
            "        os._exit(0)\n"
            "    os.waitpid(pid, 0)\n")
    r = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("RuntimeWarning") == 1, r.stderr  # once per process
    assert "os.fork() was called after torchlike started JAX's runtime" in r.stderr
    assert "<string>:4: RuntimeWarning" in r.stderr  # the user's line
    assert "JAX is multithreaded, so this will likely lead to a deadlock" not in r.stderr


def test_no_warning_when_no_tensor_computed_before_the_fork():
    code = ("import os, torchlike\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os._exit(0)\n"
            "os.waitpid(pid, 0)\n")
    r = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0 and "RuntimeWarning" not in r.stderr, r.stderr
