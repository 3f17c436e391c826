"""Self-supervised, generative and sequence-model papers re-created as stand-alone programs (own code after the
public repositories' idioms, synthetic data, no downloads) and run unmodified under the drop-in runner:
MoCo v2 (facebookresearch/moco: momentum key encoder through ``.data`` under ``torch.no_grad``, a normalized queue
buffer enqueued by slice assignment, shuffle-BN by ``randperm``/``argsort``, ``einsum('nc,ck->nk')``), BYOL
(lucidrains/byol-pytorch: forward-hook NetWrapper, deepcopy target, EMA over ``.data``) and SimSiam
(facebookresearch/simsiam: ``BatchNorm1d(affine=False)`` projector end, ``fix_lr`` param groups);
CycleGAN and pix2pix (junyanz/pytorch-CycleGAN-and-pix2pix: ResnetGenerator with reflection/replication padding and
``InstanceNorm2d`` from a ``functools.partial``, the recursive U-Net whose in-place ``LeakyReLU`` rewrites the skip
tensor, PatchGAN, GANLoss buffers ``expand_as``, ImagePool, ``set_requires_grad``, linear-decay ``LambdaLR``);
MAE (facebookresearch/mae: numpy 2-D sin-cos position embeddings copied into a frozen Parameter, random_masking
with two ``argsort`` and ``gather``, ``reshape(shape=...)`` patchify with ``einsum('nchpwq->nhwpqc')``, norm-pix
loss, timm ``add_weight_decay`` groups) and Transformer-XL (kimiyoung/transformer-xl: ``_rel_shift`` by zero column
and view, ``einsum('ibnd,jnd->ijbn')``, ``torch.ger`` positional embedding, detached memories, LMOrderedIterator); Glow (rosinality/glow-pytorch: ActNorm data-dependent init on a uint8 buffer,
invertible 1x1 convolutions with ``torch.slogdet`` and a scipy-LU parametrisation, ZeroConv2d coupling, squeeze,
multi-scale prior, exact reverse), the VQGAN quantizer and adaptive discriminator weight (CompVis/taming-transformers)
and a torchdiffeq-style Neural ODE with RK4 and an adjoint ``autograd.Function`` checked against backprop.

Each program in tests/programs/ex_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must
match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_moco_byol_simsiam.py", 1e-4),
    ("ex_cyclegan_pix2pix.py", 1e-4),
    ("ex_mae_transformer_xl.py", 1e-4),
    ("ex_glow_vqgan_neural_ode.py", 1e-4),
]
REQUIRES = {"ex_glow_vqgan_neural_ode.py": ("scipy",)}
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_moco_byol_simsiam.py": [
        "queue (16, 32) norms [1.0, 1.0, 1.0] ptr torch.int64 buffers ['encoder_k.bn2.running_var',"
        " 'encoder_k.bn2.num_batches_tracked']",
        "trainable 1484 frozen 1484",
        "logits (8, 33) torch.float32 target [0, 0, 0] acc type Tensor ()",
        "key grad True False q grad (8, 3, 3, 3)",
        "einsum [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]",
        "byol hook layer AdaptiveAvgPool2d projector Sequential target frozen True",
        "embedding (4, 12) True hidden cache 0",
        "simsiam last bn BatchNorm1d(16, eps=1e-05, momentum=0.1, affine=False, bias=False,"
        " track_running_stats=True) fc bias grad False",
    ],
    "ex_cyclegan_pix2pix.py": [
        "norm partial InstanceNorm2d {'affine': False, 'track_running_stats': False} InstanceNorm2d(4, eps=1e-05,"
        " momentum=0.1, affine=False, bias=False, track_running_stats=False)",
        "reflect pad (1, 1, 7, 7) [8.0, 7.0, 6.0, 7.0, 8.0, 7.0, 6.0]",
        "replicate pad [0.0, 0.0, 1.0, 1.0]",
        "ganloss buffers [('real_label', torch.float32, ()), ('fake_label', torch.float32, ())] (0, 0, 0, 0)",
        "G params 18019 D params 3037",
        "learning rate 0.0001500",
        "fake (3, 3, 16, 16) torch.float32 in tanh range True D grads during G step False",
        "pool 3 3 (1, 3, 16, 16) False",
        "patch (2, 1, 2, 2) lr_lambda [1.0, 1.0, 0.75, 0.5, 0.25]",
        "unet params 16555 innermost ReLU",
        "inplace skip (1, 4, 4, 4) changed True is leaky True True",
    ],
    "ex_mae_transformer_xl.py": [
        "pos_embed np (5, 8) float64 [0.8415, 0.01, 0.5403, 1.0, 0.0, 0.0, 1.0, 1.0]",
        "mae params 22368 frozen ['pos_embed', 'decoder_pos_embed']",
        "pos_embed (1, 17, 32) torch.float32 [0.0, 0.0, 0.0, 0.0]",
        "masking (2, 2, 3) [[1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]]"
        " torch.int64 [[6.0, 4.0], [4.0, 0.0]]",
        "groups [31, 17] [0.0, 0.05]",
        "rel_shift [[2.0, 3.0, 0.0, 4.0], [5.0, 6.0, 7.0, 0.0], [8.0, 9.0, 10.0, 11.0]]",
        "rel_shift triu [[2.0, 3.0, 0.0, 0.0], [5.0, 6.0, 7.0, 0.0], [8.0, 9.0, 10.0, 11.0]]",
        "ger [[3.0, 4.0, 5.0], [6.0, 8.0, 10.0]]",
        "iterator (75, 4) True 10 [[1, 6, 16, 8], [12, 12, 7, 9]]",
        "lm params 5524 r biases (2, 8) 0.0104",
        "mems 3 [(8, 4, 16), (8, 4, 16)] False True",
    ],
    "ex_glow_vqgan_neural_ode.py": [
        "lu buffers [('w_p', torch.float32), ('u_mask', torch.float32), ('l_mask', torch.float32)] s_sign"
        " torch.float32 w_p perm True",
        "plain invconv InvConv2d torch.float64 0.0000",
        "torch lu True True True",
        "z shapes [(6, 4, 4), (24, 2, 2)]",
        "actnorm init [1, 1, 1, 1] torch.uint8",
        "z outs [(2, 6, 4, 4), (2, 24, 2, 2)] reverse error True",
        "sample (2, 3, 8, 8) True",
        "quantize [1, 3, 0, 2, 1, 1, 2, 1, 4, 1, 3, 3] [1, 5, 2, 3, 1, 0] 4.1542 0.6952 (1, 2, 3, 4)",
        "codes (128, 1) torch.int64 (128, 16) torch.float32 128 straight-through grad True",
        "true_y (26, 1, 2) [-1.1885, -0.4857]",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_paper_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name], REQUIRES.get(name, ()))
