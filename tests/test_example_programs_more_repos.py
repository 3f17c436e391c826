"""More well-known public training scripts re-created as stand-alone programs (own code, synthetic data, no
downloads) and run unmodified under the drop-in runner: neuraloperator's ``fourier_1d.py``/``fourier_2d.py``
(complex ``cfloat`` spectral weights, ``torch.fft.rfft``/``irfft2``, Adam on complex parameters), tkipf/pygcn
and Diego999/pyGAT (scipy adjacency to ``torch.sparse.FloatTensor``, ``torch.spmm``, dense and sparse graph
attention with a custom ``autograd.Function`` over ``sparse_coo_tensor``, best-epoch checkpoint files),
karpathy/pytorch-normalizing-flows (MADE masks, RealNVP, MAF, Glow ActNorm + LU 1x1 conv, neural spline flows
with masked assignment and ``gather``, TransformedDistribution/MultivariateNormal priors), pytorch/tutorials
translation_transformer (``nn.Transformer`` with float causal and boolean padding masks, greedy decoding, a
batch-first encoder's eval fast path with a key padding mask, ``MultiheadAttention`` with ``kdim``/``vdim``),
sthalles/SimCLR's info_nce_loss + pytorch/tutorials knowledge distillation + a deepspeech-style CTC step
(bidirectional GRU over packed sequences, ``CTCLoss(zero_infinity=True)``, ``unique_consecutive`` decoding),
gram-ai/capsule-networks dynamic routing + a Gumbel-softmax VAE (``F.gumbel_softmax`` draws match torch's) +
MAML through ``torch.func.functional_call`` with ``create_graph`` and ``vmap(grad(...))``.

Each program in tests/programs/ex_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must
match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    # the Adam second moment of the complex weights sums ~2.7e4 terms of float32 (last bits move it ~3e-7)
    ("ex_fourier_neural_operator.py", 1e-4),
    ("ex_pygcn_pygat.py", 1e-4),
    ("ex_normalizing_flows.py", 1e-4),
    ("ex_translation_transformer.py", 1e-4),
    # (the SimCLR step under bfloat16 autocast is printed once, forward only: its bf16 backward's last-bit
    # differences, through Adam, would flip the ties of the top-1 accuracy of the steps after)
    ("ex_simclr_distill_ctc.py", 1e-4),
    ("ex_capsnet_gumbel_maml.py", 1e-4),
]
REQUIRES = {"ex_pygcn_pygat.py": ("scipy",), "ex_normalizing_flows.py": ("scipy",)}
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_fourier_neural_operator.py": [
        "count_params 9361",
        "complex params ['conv0.weights1', 'conv1.weights1'] torch.complex64",
        "count_params 2d 4361",
        "rfft2 (2, 3, 8, 4) -66.5534 580.6808 0.0",
        "fftshift [3, 4, 5, 0, 1, 2] [2, 3, 4, 0, 1]",
    ],
    "ex_pygcn_pygat.py": [
        "adj torch.sparse_coo True (60, 60) 264 torch.float32 torch.sparse.FloatTensor",
        "  (gc1): GraphConvolution (20 -> 16)",
        "gat params ['attention_0.W', 'attention_0.a', 'attention_1.W', 'attention_1.a', 'out_att.W', 'out_att.a']",
        "kept ['4.pkl'] best 4",
        "nonzero edges 264 torch.int64",
    ],
    "ex_normalizing_flows.py": [
        "made orderings [2, 3, 1, 0] [14, 52, 28]",
        "made autoregressive [0, 0, 0, 1]",
        "maf round trip True True",
        "nsf round trip True True",
        "glow number of params: 1312",
        "searchsorted [1, 0] [2, 1]",
    ],
    "ex_translation_transformer.py": [
        "params 44238 MultiheadAttention",
        "batch (7, 3) [2, 13, 8, 3, 1, 1, 1] [2, 9, 4, 3, 1, 1, 1]",
        "masks [((7, 7), 'torch.bool'), ((6, 6), 'torch.float32'), ((3, 7), 'torch.bool'), ((3, 6), 'torch.bool')] "
        "[0.0, -inf, -inf] 4",
        "tgt mask (Transformer) [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]",
    ],
    "ex_simclr_distill_ctc.py": [
        "ctc impossible [inf, inf, inf, inf]",
        "unique_consecutive [1, 0, 2, 0, 1] [0, 0, 1, 2, 2, 2, 3, 4] [2, 1, 3, 1, 1]",
        "greedy 4 [True, True, True, True]",
        "hook feature (8, 8, 4, 4) 0.175",
    ],
    "ex_capsnet_gumbel_maml.py": [
        "capsnet eval [2, 0, 2, 2, 1, 2] 0.4987 0.0068",
        "F.gumbel_softmax [1, 3, 1, 0, 2] [1.0, 1.0, 1.0, 1.0, 1.0] [1.0, 1.0, 1.0, 1.0] 2.5519",
        "vmap grad ['0.bias', '0.weight', '2.bias', '2.weight'] (4, 16, 1) -4.3365",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_more_repo_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name], REQUIRES.get(name, ()))
