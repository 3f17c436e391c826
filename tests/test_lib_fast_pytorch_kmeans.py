"""fast-pytorch-kmeans 0.2.2 under the drop-in runner, compared line by line with real torch: KMeans with random,
k-means++ and Gaussian initialisation under Euclidean and cosine similarity, mini-batch updates, given centroids,
predict, double inputs, and MultiKMeans over a batch of datasets."""
from conftest import lib_program_vs_torch


def test_fast_pytorch_kmeans_like_torch():
    _, ours = lib_program_vs_torch("lib_fast_pytorch_kmeans.py", "fast_pytorch_kmeans", timeout=600, rtol=1e-4)
    assert len(ours) == 11, ours
    assert ours[0].startswith("random euclidean ([0, 1, 2, 0, 0, 3, 0, 1, 2, 2, 2, 0], [40, 40, 40, 40])"), ours[0]
    assert ours[6] == "minibatch [7, 10, 12, 35] 28.645", ours[6]
    assert ours[8] == "predict [0, 1, 3] [-0.1452, -0.1549, -0.3051]", ours[8]
    assert ours[10].startswith("multi (3, 160) [[40, 40, 40, 40], [40, 40, 40, 40], [40, 40, 40, 40]]"), ours[10]
