"""Programs in the style of the official PyTorch tutorials, run unmodified under the drop-in runner.

Each program in tests/programs/tut_*.py (own code after the tutorial's, synthetic data, no downloads) seeds
torch, trains or computes a few steps and prints what the tutorial prints (losses with limited precision,
small tensors, predictions). It runs twice, with plain python (real torch, the oracle) and under
``python -m torchlike run``; the printed lines must match, numbers within ``rtol``
(``conftest.example_program_vs_torch``).
"""
import pytest
from conftest import example_program_vs_torch

PROGRAMS_AND_TOLERANCES = [
    ("tut_polynomial_series.py", 1e-04),   # numpy -> tensors -> autograd -> Function -> nn -> optim -> dynamic
    ("tut_nlp_deep_learning.py", 1e-04),   # BoW, n-gram LM, CBOW, LSTM tagger, Bi-LSTM CRF (Viterbi)
    ("tut_fgsm_nn_really.py", 1e-04),      # "What is torch.nn really?" refactors, FGSM accuracy per epsilon
    ("tut_char_rnn.py", 1e-04),            # char-RNN name classification and generation
    ("tut_autograd_mechanics.py", 1e-04),  # grad_fn graph, hooks, create_graph, autograd.functional, checkpoint
    ("tut_neural_style_fusion.py", 1e-04),  # neural style (LBFGS on the image), fused conv+bn Function
    ("tut_basics_tensors.py", 1e-04),      # Learn the Basics / Introduction to PyTorch: tensors, model, save
    ("tut_dqn_transformer.py", 1e-04),     # DQN with replay memory, TransformerEncoder language model
    ("tut_func_forward_ad.py", 1e-04),     # torch.func tutorials, forward-mode AD, double backward Functions
    ("tut_prune_parametrize.py", 1e-04),   # nn.utils.prune, parametrize/orthogonal/spectral_norm, module hooks
    ("tut_seq2seq_textclass.py", 1e-04),   # GRU seq2seq with Bahdanau attention, EmbeddingBag classifier
    ("tut_recipes.py", 1e-04),             # state_dict, strict=False, AMP on CPU, reproducibility, torch.compile
    ("tut_complex_numbers.py", 1e-04),     # complex tensors: view_as_real/complex, autograd, optim, FFT, save
    ("tut_ntk_func_extend.py", 1e-04),     # neural tangent kernels; extending torch.func with autograd.Function
    ("tut_compile_kd.py", 1e-04),          # torch.compile intro (explain, fullgraph, train step); knowledge distillation
    ("tut_export_save_hooks.py", 1e-04),   # 60-min blitz CIFAR, checkpoints/map_location, module hooks, torch.export
]


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][4:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_tutorial_program_matches_torch(name, rtol):
    example_program_vs_torch(name, rtol)
