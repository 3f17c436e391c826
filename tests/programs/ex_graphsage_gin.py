"""Message-passing graph networks written by hand over an edge list, as PyG-free reference code does
(own code; a synthetic batch of small graphs in place of a dataset).

GraphSAGE (williamleif/GraphSAGE's mean aggregator): neighbour means by ``Tensor.scatter_reduce(reduce="mean",
include_self=False)``, root and neighbour linear maps, L2 ``F.normalize``. GIN (weihua916/powerful-gnns): sums by
``index_add_`` with a learnable ``eps``, an MLP with ``BatchNorm1d``. GCN (tkipf/pygcn): the symmetric normalised
adjacency with self-loops as a ``torch.sparse_coo_tensor`` multiplied by ``torch.sparse.mm``. GAT (PetarV-/GAT):
per-edge scores, an edge softmax by ``scatter_reduce(reduce="amax")`` and ``index_add``. Graph readout by
``scatter_reduce('sum'/'max')`` over a ``batch`` vector, cross-entropy over graph labels, Adam with ``OneCycleLR``,
``clip_grad_norm_``, ``torch.no_grad`` evaluation and a ``state_dict`` round trip."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_graphs(num_graphs, nodes_per_graph=6, feat=5):
    xs, edges, batch, labels = [], [], [], []
    start = 0
    for g in range(num_graphs):
        n = nodes_per_graph + g % 3
        label = g % 2
        x = torch.randn(n, feat) + label * 0.1
        ring = torch.arange(n)
        src = torch.cat([ring, (ring + 1) % n])
        dst = torch.cat([(ring + 1) % n, ring])
        if label:  # chords make the positive class denser
            src = torch.cat([src, ring[::2]])
            dst = torch.cat([dst, (ring[::2] + n // 2) % n])
        xs.append(x)
        edges.append(torch.stack([src, dst]) + start)
        batch.append(torch.full((n,), g, dtype=torch.long))
        labels.append(label)
        start += n
    return torch.cat(xs), torch.cat(edges, 1), torch.cat(batch), torch.tensor(labels)


def scatter_mean(src, index, dim_size):
    out = src.new_zeros(dim_size, src.shape[1])
    return out.scatter_reduce(0, index.unsqueeze(-1).expand_as(src), src, reduce="mean", include_self=False)


class SAGEConv(nn.Module):
    def __init__(self, in_channels, out_channels, normalize=True):
        super().__init__()
        self.lin_l = nn.Linear(in_channels, out_channels)
        self.lin_r = nn.Linear(in_channels, out_channels, bias=False)
        self.normalize = normalize

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = scatter_mean(x[src], dst, x.shape[0])
        out = self.lin_l(agg) + self.lin_r(x)
        if self.normalize:
            out = F.normalize(out, p=2.0, dim=-1)
        return out


class GINConv(nn.Module):
    def __init__(self, mlp, train_eps=True):
        super().__init__()
        self.nn = mlp
        self.eps = nn.Parameter(torch.zeros(1)) if train_eps else 0.0

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        return self.nn((1 + self.eps) * x + agg)


def gcn_norm_adj(edge_index, n):
    loops = torch.arange(n)
    row = torch.cat([edge_index[0], loops])
    col = torch.cat([edge_index[1], loops])
    deg = torch.zeros(n).scatter_add_(0, row, torch.ones(row.shape[0]))
    dinv = deg.pow(-0.5)
    dinv.masked_fill_(dinv == float("inf"), 0)
    val = dinv[row] * dinv[col]
    return torch.sparse_coo_tensor(torch.stack([row, col]), val, (n, n)).coalesce()


class GCNLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x, adj):
        return torch.sparse.mm(adj, x @ self.weight) + self.bias


class GATLayer(nn.Module):
    def __init__(self, in_features, out_features, heads=2, negative_slope=0.2):
        super().__init__()
        self.heads, self.out = heads, out_features
        self.lin = nn.Linear(in_features, heads * out_features, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, out_features))
        self.att_dst = nn.Parameter(torch.empty(1, heads, out_features))
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)
        self.negative_slope = negative_slope

    def forward(self, x, edge_index):
        n = x.shape[0]
        h = self.lin(x).view(n, self.heads, self.out)
        src, dst = edge_index
        alpha = (h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst]
        alpha = F.leaky_relu(alpha, self.negative_slope)
        amax = alpha.new_full((n, self.heads), float("-inf"))
        amax = amax.scatter_reduce(0, dst.unsqueeze(-1).expand_as(alpha), alpha, reduce="amax", include_self=True)
        alpha = (alpha - amax[dst]).exp()
        denom = torch.zeros(n, self.heads).index_add(0, dst, alpha)
        alpha = alpha / (denom[dst] + 1e-16)
        self.last_alpha = alpha.detach()
        out = torch.zeros(n, self.heads, self.out).index_add(0, dst, h[src] * alpha.unsqueeze(-1))
        return out.mean(1)


class Net(nn.Module):
    def __init__(self, feat, hidden, classes):
        super().__init__()
        self.sage = SAGEConv(feat, hidden)
        self.gin = GINConv(nn.Sequential(nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                         nn.Linear(hidden, hidden)))
        self.gcn = GCNLayer(hidden, hidden)
        self.gat = GATLayer(hidden, hidden)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, x, edge_index, adj, batch, num_graphs):
        x = F.relu(self.sage(x, edge_index))
        x = F.relu(self.gin(x, edge_index))
        x = F.dropout(x, 0.1, self.training)
        x = F.elu(self.gcn(x, adj))
        x = self.gat(x, edge_index)
        idx = batch.unsqueeze(-1).expand_as(x)
        s = x.new_zeros(num_graphs, x.shape[1]).scatter_reduce(0, idx, x, reduce="sum")
        m = x.new_zeros(num_graphs, x.shape[1]).scatter_reduce(0, idx, x, reduce="amax", include_self=False)
        return self.head(torch.cat([s, m], -1))


x, edge_index, batch, y = make_graphs(8)
n = x.shape[0]
adj = gcn_norm_adj(edge_index, n)
print("graph", tuple(x.shape), tuple(edge_index.shape), edge_index.dtype, "labels", y.tolist())
print("adj", adj.layout, adj.is_coalesced(), adj._nnz(), tuple(adj.shape), round(adj.to_dense().sum().item(), 4))
deg_mean = scatter_mean(torch.ones(edge_index.shape[1], 1), edge_index[1], n)
print("scatter mean", deg_mean.view(-1)[:5].tolist(), torch.bincount(edge_index[1])[:8].tolist())
model = Net(5, 16, 2)
print("params", sum(p.numel() for p in model.parameters()), [k for k in model.state_dict() if "gin" in k][:5])
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=12, pct_start=0.3)
for step in range(12):
    model.train()
    opt.zero_grad()
    out = model(x, edge_index, adj, batch, 8)
    loss = F.cross_entropy(out, y)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 2.0)
    opt.step()
    sched.step()
    if step % 3 == 0 or step == 11:
        print(f"step {step} loss {loss.item():.4f} norm {norm.item():.4f} lr {sched.get_last_lr()[0]:.5f} "
              f"eps {model.gin.eps.item():.4f}")
alpha = model.gat.last_alpha
sums = torch.zeros(n, alpha.shape[1]).index_add(0, edge_index[1], alpha)
print("attention sums", torch.allclose(sums, torch.ones_like(sums), atol=1e-5), tuple(alpha.shape))
print("weight grad", model.gcn.weight.grad.layout, tuple(model.gcn.weight.grad.shape))
model.eval()
with torch.no_grad():
    logits = model(x, edge_index, adj, batch, 8)
    acc = (logits.argmax(-1) == y).float().mean()
print("eval", [round(v, 4) for v in logits[:3].reshape(-1).tolist()], f"acc {acc.item():.3f}")
state = copy.deepcopy(model.state_dict())
clone = Net(5, 16, 2)
clone.load_state_dict(state)
clone.eval()
with torch.no_grad():
    print("round trip", torch.allclose(clone(x, edge_index, adj, batch, 8), logits), state["gin.nn.1.running_mean"][:3])
x2, e2, b2, y2 = make_graphs(4, nodes_per_graph=5)
with torch.no_grad():
    out2 = model(x2, e2, gcn_norm_adj(e2, x2.shape[0]), b2, 4)
print("new graphs", tuple(out2.shape), [round(v, 4) for v in out2.softmax(-1)[:, 1].tolist()])
