"""A tiny GCN and a one-head GAT on a random graph whose adjacency is a sparse COO tensor, trained 20 Adam
steps each. Prints ``<model> step <k> <loss>``; run it with torch and under ``python -m torchlike run`` and
compare the two outputs line by line.
"""
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", message="Sparse invariant checks")
STEPS = 20
N, FEAT, HID, CLASSES = 30, 8, 16, 3


def graph():
    rng = np.random.default_rng(7)
    dense = (rng.random((N, N)) < 0.12).astype(np.float32)
    dense = np.maximum(dense, dense.T)
    np.fill_diagonal(dense, 1.0)
    feats = rng.standard_normal((N, FEAT)).astype(np.float32)
    labels = rng.integers(0, CLASSES, N)
    return dense, feats, labels


def normalized_adjacency(dense):
    """D^-1/2 (A + I) D^-1/2 as a sparse tensor, built from index/value lists like pygcn does."""
    a = torch.from_numpy(dense).to_sparse()
    deg = torch.sparse.sum(a, 1).to_dense()
    inv = deg.pow(-0.5)
    idx = a.indices()
    vals = a.values() * inv[idx[0]] * inv[idx[1]]
    return torch.sparse_coo_tensor(idx, vals, (N, N)).coalesce()


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(FEAT, HID)
        self.l2 = nn.Linear(HID, CLASSES)

    def forward(self, x, adj):
        h = F.relu(torch.sparse.mm(adj, self.l1(x)))
        return torch.spmm(adj, self.l2(h))


class GATLayer(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.w = nn.Linear(fin, fout, bias=False)
        self.a = nn.Parameter(torch.empty(2 * fout, 1))
        nn.init.xavier_uniform_(self.a, gain=1.414)

    def forward(self, x, edges):
        h = self.w(x)
        pair = torch.cat([h[edges[0]], h[edges[1]]], dim=1)
        e = F.leaky_relu(pair @ self.a, 0.2).squeeze(1)
        att = torch.sparse.softmax(torch.sparse_coo_tensor(edges, e, (N, N)), dim=1)
        return torch.sparse.mm(att, h)


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.g1 = GATLayer(FEAT, HID)
        self.g2 = GATLayer(HID, CLASSES)

    def forward(self, x, edges):
        return self.g2(F.elu(self.g1(x, edges)), edges)


def train(name, model, x, graph_arg, y):
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for step in range(STEPS):
        opt.zero_grad()
        loss = F.cross_entropy(model(x, graph_arg), y)
        loss.backward()
        opt.step()
        print(f"{name} step {step} {loss.item():.6f}")


def main():
    dense, feats, labels = graph()
    x, y = torch.from_numpy(feats), torch.from_numpy(labels)
    torch.manual_seed(0)
    train("gcn", GCN(), x, normalized_adjacency(dense), y)
    torch.manual_seed(1)
    edges = torch.from_numpy(dense).to_sparse().indices()
    train("gat", GAT(), x, edges, y)


if __name__ == "__main__":
    main()
