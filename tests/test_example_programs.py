"""Programs in the style of the classic pytorch/examples scripts run unmodified under the drop-in runner.

Each program in tests/programs/ex_*.py (own code, synthetic data, no downloads) seeds torch, trains a few
steps and prints its losses/metrics in a fixed format.  It runs twice: with plain python (real torch, the
oracle) and under ``python -m torchlike run``; the printed lines must match, numbers within float32 tolerance.
"""
import os

import pytest
from conftest import run_program, same_printed_lines

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ROOT = os.path.dirname(HERE)


def _run(args, runner, timeout=600):
    return run_program(args, runner, timeout=timeout)


_same = same_printed_lines

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
    ("ex_rnn_snli_style.py", 1e-5),
    ("ex_workers_no_guard.py", 1e-6),
    ("ex_forward_forward.py", 1e-4),
    ("ex_mingpt_makemore.py", 1e-4),
    ("ex_style_rnn_regression.py", 1e-4),
    ("ex_cifar_cnn_split.py", 1e-4),
    ("ex_seq2seq_attention.py", 1e-4),
    ("ex_wgan_gp_swa.py", 1e-4),
    ("ex_distributions_sac_mdn.py", 1e-4),
    ("ex_data_hooks_func_cond.py", 1e-5),
]


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_example_program_matches_torch(name, rtol):
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    script = os.path.join(PROGRAMS, name)
    expected = _run([script], runner=False)
    ours = _run([script], runner=True)
    _same(expected, ours, rtol=rtol)
    assert len(ours) >= 5, ours
