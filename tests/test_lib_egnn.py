"""egnn-pytorch 0.2.8 under the drop-in runner, compared line by line with real torch: EGNN_Network with token, edge
and adjacency-degree embeddings, a padding mask, nearest neighbours, global linear attention and Fourier features
trained with Adam; E(3) invariance of features and equivariance of coordinates; a single EGNN layer with mean
pooling, soft edges and coordinate normalisation (input gradients); EGNN_Sparse on a pytorch_geometric graph; and
a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_egnn_like_torch():
    _, ours = lib_program_vs_torch("lib_egnn.py", "egnn_pytorch", "einops", "torch_geometric", timeout=600,
                                   rtol=1e-4)
    assert len(ours) == 12, ours
    assert ours[0] == "params 21080 2", ours[0]
    assert ours[3] == "train 5 0.0988", ours[3]
    assert ours[6] == "invariant feats 1.0", ours[6]
    assert ours[7] == "equivariant coors 1.0 1.0", ours[7]
    assert ours[11] == "reloaded True", ours[11]
