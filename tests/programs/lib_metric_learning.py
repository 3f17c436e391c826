"""pytorch-metric-learning: losses (contrastive, triplet margin, multi-similarity, NT-Xent, ArcFace, circle,
lifted structure, proxy-anchor), miners (multi-similarity, triplet margin, batch-hard, pair margin), distances
and reducers, forward and backward on fixed embeddings.  Prints one line per measurement; run the same script
with real torch and under ``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
from pytorch_metric_learning import distances, losses, miners, reducers

rng = np.random.default_rng(0)
emb0 = rng.standard_normal((16, 8)).astype(np.float32)
labels = torch.from_numpy(np.repeat(np.arange(4), 4))


def run_loss(name, loss_fn, miner=None):
    emb = torch.from_numpy(emb0.copy()).requires_grad_(True)
    tuples = miner(emb, labels) if miner is not None else None
    loss = loss_fn(emb, labels, tuples)
    loss.backward()
    extra = ""
    params = [p for p in loss_fn.parameters()]
    if params:
        extra = f" pgrad {sum(p.grad.abs().sum().item() for p in params):.5f}"
    print(f"{name} loss {loss.item():.5f} grad {emb.grad.abs().sum().item():.5f}{extra}")


run_loss("contrastive", losses.ContrastiveLoss(pos_margin=0.0, neg_margin=1.0))
run_loss("contrastive cosine", losses.ContrastiveLoss(distance=distances.CosineSimilarity(), pos_margin=1, neg_margin=0))
run_loss("triplet", losses.TripletMarginLoss(margin=0.2))
run_loss("triplet mean reducer", losses.TripletMarginLoss(margin=0.5, reducer=reducers.MeanReducer()))
run_loss("multi similarity", losses.MultiSimilarityLoss(alpha=2, beta=50, base=0.5))
run_loss("ntxent", losses.NTXentLoss(temperature=0.1))
run_loss("lifted structure", losses.GeneralizedLiftedStructureLoss(neg_margin=1.0))
run_loss("circle", losses.CircleLoss(m=0.4, gamma=80))
run_loss("supcon", losses.SupConLoss(temperature=0.1))
torch.manual_seed(0)
run_loss("arcface", losses.ArcFaceLoss(num_classes=4, embedding_size=8))
torch.manual_seed(0)
run_loss("proxy anchor", losses.ProxyAnchorLoss(num_classes=4, embedding_size=8))
torch.manual_seed(0)
run_loss("normalized softmax", losses.NormalizedSoftmaxLoss(num_classes=4, embedding_size=8))

emb = torch.from_numpy(emb0)
for name, miner in (("multi similarity", miners.MultiSimilarityMiner(epsilon=0.1)),
                    ("triplet margin", miners.TripletMarginMiner(margin=0.2, type_of_triplets="semihard")),
                    ("batch hard", miners.BatchHardMiner()),
                    ("pair margin", miners.PairMarginMiner(pos_margin=0.2, neg_margin=0.8))):
    tuples = miner(emb, labels)
    print(f"miner {name} sizes {[len(t) for t in tuples]} first {[t[:3].tolist() for t in tuples]}")
run_loss("triplet with miner", losses.TripletMarginLoss(margin=0.2), miners.MultiSimilarityMiner(epsilon=0.1))
run_loss("contrastive with miner", losses.ContrastiveLoss(), miners.PairMarginMiner(pos_margin=0.2, neg_margin=0.8))
for name, dist in (("lp", distances.LpDistance()), ("lp unnormalized p1", distances.LpDistance(normalize_embeddings=False, p=1)),
                   ("cosine", distances.CosineSimilarity()), ("dot", distances.DotProductSimilarity()),
                   ("snr", distances.SNRDistance())):
    m = dist(emb)
    print(f"distance {name} {tuple(m.shape)} {m.sum().item():.4f} {m[0, 1].item():.5f}")
