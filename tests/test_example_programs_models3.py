"""Model families re-created as stand-alone programs (own code after the public repositories' idioms, synthetic
data, no downloads) and run unmodified under the drop-in runner: DLRM (facebookresearch/dlrm: ``EmbeddingBag``
with offsets and ``per_sample_weights``, ``sparse=True`` gradients stepped by ``SparseAdam``, the ``bmm`` dot
interaction with ``tril_indices``) and Neural Collaborative Filtering (NeuMF, hit ratio / NDCG evaluation);
GraphSAGE / GIN / GCN / GAT layers written by hand (``scatter_reduce`` mean/amax/sum, ``index_add_``,
``torch.sparse.mm`` on a normalised COO adjacency, ``OneCycleLR``); EfficientNet MBConv blocks ("same" padding,
squeeze-and-excitation, stochastic depth, ``CosineAnnealingWarmRestarts``, bfloat16 autocast, ``torch.compile`` of
the head); the wav2vec 2.0 conv feature encoder with ``GroupNorm``, weight-normed positional conv and the
``gumbel_softmax`` vector quantizer with contrastive negatives; Autoformer (``avg_pool1d`` series decomposition,
``fft.rfft``/``irfft`` auto-correlation, ``roll``/``gather`` delay aggregation) and Informer's ProbSparse
attention; TabNet with hand-written sparsemax / entmax-1.5 autograd Functions (``gradcheck``), ghost batch norm
and feature importances; RWKV's WKV recurrence in RNN, parallel and ``cumsum`` forms and diagonal linear scans by
``cumprod`` / log-space ``einsum``; a 3-D U-Net (``Conv3d``/``InstanceNorm3d``/``ConvTranspose3d``, deep
supervision, soft / generalised Dice + weighted cross-entropy + Tversky, poly ``LambdaLR``, Nesterov SGD,
Gaussian-weighted sliding-window inference with flip TTA, a checkpoint with optimiser state).

Each program in tests/programs/ex_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must
match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_dlrm_ncf.py", 1e-4),
    ("ex_graphsage_gin.py", 1e-4),
    ("ex_efficientnet_mbconv.py", 1e-3),  # RMSprop with momentum on 8-image batches: float drift ~2e-4 by epoch 3
    ("ex_wav2vec_quantizer.py", 1e-4),
    ("ex_autoformer_informer.py", 1e-4),
    ("ex_tabnet_sparsemax.py", 1e-3),  # sparsemax supports flip on float noise as training goes on
    ("ex_rwkv_linear_scan.py", 1e-4),
    ("ex_unet3d_dice.py", 1e-4),
]
REQUIRES = {}
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_dlrm_ncf.py": [
        "dlrm bags [(10, 8), (7, 8), (13, 8)] EmbeddingBag(10, 8, mode='sum')",
        "bag (16, 8) matches manual True",
        "emb grad sparse True torch.sparse_coo 1 dense grad torch.strided",
        "sparse grad rows True",
        "load <All keys matched successfully>",
        "ncf Linear(in_features=64, out_features=32, bias=True) 16",
    ],
    "ex_graphsage_gin.py": [
        "graph (55, 5) (2, 125) torch.int64 labels [0, 1, 0, 1, 0, 1, 0, 1]",
        "adj torch.sparse_coo True 180 (55, 55) 55.1152",
        "scatter mean [1.0, 1.0, 1.0, 1.0, 1.0] [2, 2, 2, 2, 2, 2, 3, 2]",
        "params 1667 ['gin.eps', 'gin.nn.0.weight', 'gin.nn.0.bias', 'gin.nn.1.weight', 'gin.nn.1.bias']",
        "attention sums True (125, 2)",
        "weight grad torch.strided (16, 16)",
    ],
    "ex_efficientnet_mbconv.py": [
        "round_filters [16, 24, 48, 88] [2, 3, 4]",
        "same pad (1, 2, 4, 5) (1, 2, 4, 4)",
        "stochastic depth [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 0.0] [[1.0], [1.0]]",
        "params 10034 Conv2dSame(32, 32, kernel_size=(5, 5), stride=(2, 2), groups=32, bias=False)",
        "autocast torch.bfloat16 (8, 4)",
        "compiled head True OptimizedModule",
    ],
    "ex_wav2vec_quantizer.py": [
        "  (2): GroupNorm(16, 16, eps=1e-05, affine=True, bias=True)",
        "weight norm ['bias', 'weight_g', 'weight_v'] torch.Size([1, 1, 4])",
        "params 21428",
        "mask [4, 4] [0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0]",
        "logits (5, 4, 19) torch.float32 targets (4, 19, 2)",
        "gumbel hard [1.0, 1.0, 1.0]",
    ],
    "ex_autoformer_informer.py": [
        "params 5698 buffers ['pos.pe']",
        "prob attention (4, 24, 16) (4, 2, 8) torch.int64",
    ],
    "ex_tabnet_sparsemax.py": [
        "sparsemax [[0.6, 0.4, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.4333, 0.0, 0.3333, 0.2333]]",
        "entmax15 [[0.5292, 0.3937, 0.077, 0.0], [0.25, 0.25, 0.25, 0.25], [0.3918, 0.0, 0.3317, 0.2766]]",
        "gradcheck True True",
        "sparsemax reload <All keys matched successfully> True 98",
    ],
    "ex_rwkv_linear_scan.py": [
        "token shift [[[0.0, 0.0], [0.0, 1.0], [2.0, 3.0]]]",
        "scan grads True 10.1578",
        "cumprod [[1.0, 2.0, 1.0, 3.0]] [3.0, 3.0]",
        "rnn == gpt True torch.bfloat16 True",
        "compiled ffn True (2, 5, 16)",
    ],
    "ex_unet3d_dice.py": [
        "data (4, 1, 16, 16, 16) torch.int64 [15151, 909, 324]",
        "params 21474 InstanceNorm3d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)"
        " ConvTranspose3d(16, 8, kernel_size=(2, 2, 2), stride=(2, 2, 2))",
        "autocast torch.bfloat16 torch.float32 0.90",
        "checkpoint True 1 38 True",
        "trilinear decoder (1, 3, 16, 16, 16)",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_model_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name], REQUIRES.get(name, ()))
