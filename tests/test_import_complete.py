"""Importing torchlike loads every nn module family, and every class torch.nn.modules names is there (the
star-import loader raises a failing family's ImportError, tests/test_structure_loader.py; this guards the
result: an import cycle once dropped classes such as BatchNorm1d while the loader only warned)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_torchlike_warns_of_no_broken_family():
    code = ("import torchlike, torch.nn as tnn\n"
            "missing = [n for n in tnn.modules.__all__ if not hasattr(torchlike.nn, n)]\n"
            "print(missing)\n")
    r = subprocess.run([sys.executable, "-W", "error::ImportWarning", "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]", r.stdout
