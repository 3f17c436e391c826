"""Famous research-paper reimplementations re-created as stand-alone programs (own code after the public
repositories' idioms, synthetic data, no downloads) and run unmodified under the drop-in runner:
rosinality/stylegan2-pytorch (native upfirdn2d and fused_leaky_relu, modulated convolution with demodulation,
style mixing, R1 and path-length regularisation with ``autograd.grad(create_graph=True)``);
yenchenlin/nerf-pytorch (positional encoding, the skip MLP with view directions, get_rays with the legacy
meshgrid, raw2outputs volume rendering, hierarchical sample_pdf with ``torch.searchsorted``) and
fxia22/pointnet.pytorch (STN3d/STNkd, ``torch.bmm`` transforms, feature_transform_regularizer, classification and
segmentation heads on a numpy-augmenting DataLoader); facebookresearch/detr (HungarianMatcher with scipy's
linear_sum_assignment on ``torch.cdist``/GIoU costs, SetCriterion with aux losses, the transformer with
``query_pos``) and eriklindernoren/PyTorch-YOLOv3 (build_targets on legacy ByteTensor masks, YOLOLayer losses,
plain-torch NMS); WaveNet (mu-law companding, gated dilated causal convolutions with residual/skip cuts,
multinomial sampling) and locuslab/TCN (Chomp1d, legacy ``nn.utils.weight_norm``, the adding problem);
PointNet++ (yanx27: farthest_point_sample, query_ball_point, set abstraction and feature propagation) and DGCNN
(WangYueFt: knn by topk, get_graph_feature's flat gather, EdgeConv, label-smoothed cal_loss, sklearn metrics); Deformable DETR (the pure-PyTorch multi-scale deformable
attention on ``grid_sample``, tensor-valued spatial shapes, reference points, sigmoid focal loss); Swin Transformer
(window partition, relative position bias index, shifted-window attn_mask with ``torch.roll``, PatchMerging) and
ConvNeXt (channels_first LayerNorm, depthwise 7x7, layer scale) trained with timm-style mixup and soft targets.

Each program in tests/programs/ex_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must
match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_stylegan2_rosinality.py", 1e-4),
    # PointNet's BatchNorm1d on batches of 8 after the max-pool amplifies float32 gradient rounding: torch's own
    # %f losses move up to 6e-5 relative between OMP_NUM_THREADS=1 and two threads over six Adam steps
    ("ex_nerf_pointnet.py", 2e-4),
    ("ex_detr_yolov3.py", 1e-4),
    ("ex_wavenet_tcn.py", 1e-4),
    ("ex_pointnet2_dgcnn.py", 1e-4),
    ("ex_deformable_detr.py", 1e-4),
    ("ex_swin_convnext.py", 1e-4),
]
REQUIRES = {"ex_detr_yolov3.py": ("scipy",), "ex_pointnet2_dgcnn.py": ("sklearn",)}
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_stylegan2_rosinality.py": [
        "kernel (4, 4) 1.0 0.140625",
        "fused_lrelu [[-0.14142, 1.41421], [1.41421, -1.13137]]",
        "g params 3161 d params 2961",
        "EqualLinear(16, 16) EqualConv2d(3, 8, 1, stride=1, padding=0) EqualLinear(128, 8)",
        "noise shapes [(1, 1, 4, 4), (1, 1, 8, 8), (1, 1, 8, 8)]",
        "path_lengths (2,) Tensor",
        "state_dict 33 ['style.1.weight', 'style.1.bias', 'style.2.weight'] True",
    ],
    "ex_nerf_pointnet.py": [
        "embed dims 27 15",
        "nerf params 13672 [(32, 27), (32, 32), (32, 32), (32, 59)]",
        "meshgrid warnings ['UserWarning']",
        "ray batch (48, 11)",
        "psnr (1,) torch.float32",
        "sample_pdf det [[0.0, 0.25, 0.3, 0.35, 1.0], [0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.325, 0.5, 0.675, 1.0]]",
        "searchsorted [2, 3, 5] [1, 3, 4]",
        "point feat torch.Size([4, 80, 32])",
        "eval (8, 2) 1.00000 (8, 16, 16) torch.int64 lr [0.00025]",
        "correct type Tensor torch.int64",
    ],
    "ex_detr_yolov3.py": [
        "giou [[0.25, 0.25, -0.8], [0.1667, -0.4167, -0.6]]",
        "number of params: 11044",
        "nested torch.Size([2, 3, 32, 32]) torch.bool 640",
        "loss keys ['cardinality_error', 'cardinality_error_0', 'class_error', 'loss_bbox', 'loss_bbox_0', 'loss_ce',"
        " 'loss_ce_0', 'loss_giou', 'loss_giou_0']",
        "matched [((2,), torch.int64, [0, 1]), ((3,), torch.int64, [0, 1, 2])]",
        "uint8 index warnings True ['UserWarning']",
        "output (4, 192, 7) torch.float32 stride 4.0 (1, 1, 8, 8) torch.float32",
        "build_targets torch.uint8 2 94 torch.float32 [[0, 0, 1, 1], [1, 1, 0, 3]] [-0.2231, 0.0] 2 1.0",
        "nms [(6, 7), (6, 7), (6, 7), (6, 7)] ['5.7068', '5.7277', '5.6859', '5.6806']",
        "tensor types torch.float32 torch.uint8 True",
    ],
    "ex_wavenet_tcn.py": [
        "mu-law [171, 206, 233, 231, 237, 243] [171, 206, 233, 231, 237, 243] torch.int64 True",
        "int encode [0, 128, 255]",
        "causal [[[1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]]] dilated [[[4.0, 6.0, 8.0, 10.0, 12.0, 14.0]]]",
        "receptive_fields 30 [1, 2, 4, 8, 1, 2, 4, 8]",
        "one_hot (200, 256) float64 200",
        "ValueError Input size has to be larger than receptive_fields (30)",
        "weight_norm warnings ['FutureWarning']",
        "conv1 params ['bias', 'weight_g', 'weight_v'] (12, 1, 1) Tensor True False",
    ],
    "ex_pointnet2_dgcnn.py": [
        "fps [[0, 6, 21, 13, 10, 4, 23, 22], [23, 4, 10, 3, 0, 12, 17, 14]]",
        "ball [[0, 1, 2, 7, 8, 12], [6, 6, 6, 6, 6, 6], [14, 15, 17, 21, 14, 14]] torch.int64 (2, 8, 6, 3)",
        "Train Instance Accuracy: 0.250000",
        "  (0): ReLU(inplace=True)",
        "lr [0.001] bn5 tracked 6",
    ],
    "ex_deformable_detr.py": [
        "ref (2, 30, 2, 2) 120.0000 ['UserWarning']",
        "grid_init [1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0] Parameter",
        "inverse_sigmoid [-11.5129, -1.0986, 11.5129]",
        "params 5384",
        "levels [[8, 10], [4, 5]] [0, 80] torch.int64",
    ],
    "ex_swin_convnext.py": [
        "windows (8, 4, 4, 3) True",
        "relative_position_index (9, 9) torch.int64 [12, 11, 10, 7, 6, 5, 2, 1, 0] 24",
        "attn_mask (4, 16, 16) 448 [0.0, 0.0, -100.0, -100.0, 0.0, 0.0]",
        "  dim=8, window_size=(3, 3), num_heads=2",
        ") DropPath(drop_prob=0.123)",
        "drop_path [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0], [2.0, 2.0], [0.0, 0.0], [2.0, 2.0]]",
        "channels_first LN True",
        "swin params 36160 groups [19, 43]",
        "convnext params 7980 groups [12, 27]",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_paper_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name], REQUIRES.get(name, ()))
