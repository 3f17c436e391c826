"""fast-pytorch-kmeans: k-means on seeded blobs with every initialisation (random points, k-means++ and its
Gaussian 'krandinit'), Euclidean and cosine similarity, mini-batch updates (numpy-chosen batches, unique with
counts, in-place nan_to_num_), given centroids, predict on new points, double inputs, and MultiKMeans
(several independent clusterings batched along a leading dimension)."""
import numpy as np
import torch
from fast_pytorch_kmeans import KMeans, MultiKMeans


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n) + 0.0
        return [round(float(v), n) + 0.0 for v in x.flatten()]
    return round(float(x), n) + 0.0


def canon(labels, k):
    """Labels renumbered by first appearance (cluster ids are arbitrary), and the cluster sizes."""
    order = {}
    for v in labels.tolist():
        order.setdefault(v, len(order))
    return [order[v] for v in labels.tolist()][:12], sorted(torch.bincount(labels, minlength=k).tolist())


torch.manual_seed(0)
centers = torch.tensor([[0.0, 0.0, 0.0], [4.0, 4.0, 0.0], [-4.0, 3.0, 1.0], [0.0, -5.0, 2.0]])
X = torch.cat([c + 0.7 * torch.randn(40, 3) for c in centers])
X = X[torch.randperm(len(X))]

for init in ("random", "kmeans++", "gaussian"):
    for mode in ("euclidean", "cosine"):
        torch.manual_seed(1)
        km = KMeans(n_clusters=4, mode=mode, init_method=init, max_iter=30)
        labels = km.fit_predict(X)
        c = km.centroids
        print(init, mode, canon(labels, 4), r(c.norm(dim=1).sort().values))

torch.manual_seed(2)
np.random.seed(0)
km = KMeans(n_clusters=4, mode="euclidean", init_method="kmeans++", minibatch=64, max_iter=15)
labels = km.fit_predict(X)
print("minibatch", canon(labels, 4)[1], r(km.centroids.abs().sum(), 3))

km = KMeans(n_clusters=4, max_iter=20)
labels = km.fit_predict(X, centroids=centers.clone() + 0.5)
print("given", canon(labels, 4)[1], r(km.centroids.sort(dim=0).values[:, 0]))
new = torch.tensor([[0.2, 0.1, 0.0], [3.8, 4.1, 0.2], [0.1, -4.8, 1.5]])
print("predict", km.predict(new).tolist(), r(km.max_sim(new, km.centroids)[0]))
km64 = KMeans(n_clusters=4, max_iter=20)
print("double", km64.fit_predict(X.double(), centroids=centers.double()).dtype, km64.centroids.dtype,
      r(km64.centroids.sort(dim=0).values[:, 0]))

torch.manual_seed(3)
Xs = torch.stack([X, X * 0.5 + 1.0, X.flip(1)])
mkm = MultiKMeans(n_clusters=4, mode="euclidean", init_method="kmeans++", max_iter=20)
mlabels = mkm.fit_predict(Xs)
print("multi", tuple(mlabels.shape), [canon(m, 4)[1] for m in mlabels], r(mkm.centroids.norm(dim=-1).sort(-1).values))
