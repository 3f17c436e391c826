"""Programs in the style of the classic pytorch/examples scripts, recurrent and attention sequence models
(time-sequence LSTM, SNLI-style RNN classifier, RNN regression, seq2seq with attention, bentrevett's packed-padded seq2seq, the language_translation nn.Transformer
with greedy decoding), run unmodified under the drop-in runner.

Each program in tests/programs/ex_*.py (own code, synthetic data, no downloads) seeds torch, trains a few
steps and prints its losses/metrics in a fixed format. It runs twice: with plain python (real torch, the
oracle) and under ``python -m torchlike run``; the printed lines must match, numbers within float32
tolerance (``conftest.example_program_vs_torch``). The programs are split over four files by subject so that
``pytest -n 2 --dist loadfile`` can spread them over both workers.
"""
import pytest
from conftest import example_program_vs_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_time_sequence.py", 1e-05),
    ("ex_rnn_snli_style.py", 1e-05),
    ("ex_style_rnn_regression.py", 0.0001),
    ("ex_seq2seq_attention.py", 0.0001),
    ("ex_bentrevett_seq2seq.py", 0.0001),
    ("ex_pyexamples_translation.py", 0.0001),
]


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_example_program_matches_torch(name, rtol):
    example_program_vs_torch(name, rtol)
