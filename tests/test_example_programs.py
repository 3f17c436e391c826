"""Programs in the style of the classic pytorch/examples scripts run unmodified under the drop-in runner.

Each program in tests/programs/ex_*.py (own code, synthetic data, no downloads) seeds torch, trains a few
steps and prints its losses/metrics in a fixed format.  It runs twice: with plain python (real torch, the
oracle) and under ``python -m torchlike run``; the printed lines must match, numbers within float32 tolerance.
"""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ROOT = os.path.dirname(HERE)
NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _run(args, runner, timeout=600):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable] + (["-m", "torchlike", "run"] if runner else []) + args
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-4000:]
    return [line for line in out.stdout.splitlines() if line.strip()]


def _same(torch_lines, ours, rtol):
    """Line by line: equal text once numbers are taken out; numbers equal within rtol."""
    assert len(ours) == len(torch_lines), (torch_lines, ours)
    for t, o in zip(torch_lines, ours):
        assert NUM.sub("#", t) == NUM.sub("#", o), (t, o)
        for a, b in zip(NUM.findall(t), NUM.findall(o)):
            assert float(b) == pytest.approx(float(a), rel=rtol, abs=rtol), (t, o)

PROGRAMS_AND_TOLERANCES = [
    ("ex_word_language_model.py", 2e-4),
    ("ex_vae.py", 1e-4),
    ("ex_dcgan.py", 2e-4),
    ("ex_reinforce.py", 1e-4),
    ("ex_time_sequence.py", 1e-5),
    ("ex_super_resolution_siamese.py", 2e-4),
    ("ex_transformer_lm_style.py", 2e-4),
    ("ex_training_utils.py", 1e-4),
    ("ex_seq_and_stn.py", 1e-4),
    ("ex_workers_no_guard.py", 1e-6),
]


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_example_program_matches_torch(name, rtol):
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    script = os.path.join(PROGRAMS, name)
    expected = _run([script], runner=False)
    ours = _run([script], runner=True)
    _same(expected, ours, rtol=rtol)
    assert len(ours) >= 5, ours
