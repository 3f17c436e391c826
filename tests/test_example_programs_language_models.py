"""Programs in the style of the classic pytorch/examples scripts, word-level and character-level language
models (word_language_model, a Transformer LM, minGPT/makemore, build-nanogpt's train_gpt2.py under bf16
autocast, gpt-fast's generate.py with a KV cache, int8 weight-only quantization, speculative decoding and a
compiled decode step, llama2.c's model.py/train.py/export.py, ng-video-lecture's bigram.py/gpt.py,
llm.c's train_gpt2.py with its .bin writers and compiled model), run unmodified under the drop-in runner.

Each program in tests/programs/ex_*.py (own code, synthetic data, no downloads) seeds torch, trains a few
steps and prints its losses/metrics in a fixed format. It runs twice: with plain python (real torch, the
oracle) and under ``python -m torchlike run``; the printed lines must match, numbers within float32
tolerance (``conftest.example_program_vs_torch``). The programs are split over four files by subject so that
``pytest -n 2 --dist loadfile`` can spread them over both workers.
"""
import pytest
from conftest import example_program_vs_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_word_language_model.py", 0.0002),
    ("ex_transformer_lm_style.py", 0.0002),
    ("ex_mingpt_makemore.py", 0.0001),
    # bf16 autocast: torch's CPU flash attention rounds its vectorized exp differently in the last bit
    # (docs/differences.md), so losses and gradient norms agree to ~3e-4, not float32 rounding
    ("ex_build_nanogpt.py", 0.002),
    ("ex_gpt_fast_generate.py", 0.0001),
    ("ex_llama2c.py", 0.0001),
    # torch's own losses on one intra-op thread (the oracle's here) and on two differ by up to 5.6e-4 from iter 18
    # on (2.5088 / 2.5102 at iter 26: its sums split by thread); torchlike prints the two-thread run's lines since
    # layer_norm rounds as torch's kernel (e248216)
    ("ex_ng_video_gpt.py", 0.001),
    # llm.c's train_gpt2.py: torch.compile + bf16 autocast on CPU (the same last-bit attention differences)
    ("ex_llmc_train_gpt2.py", 0.002),
]


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_example_program_matches_torch(name, rtol):
    example_program_vs_torch(name, rtol)
