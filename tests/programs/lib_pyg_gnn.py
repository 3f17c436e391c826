"""torch_geometric (pure-Python paths): Data, GCNConv / GATConv / SAGEConv forward and backward, utils (scatter,
softmax, degree, add_self_loops), a MessagePassing subclass, and a few training steps of a two-layer GCN on a random
graph.  Prints one line per measurement; run the same script with real torch and under ``python -m torchlike run``
and compare.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.data import Batch, Data
from torch_geometric.nn import GATConv, GCNConv, MessagePassing, SAGEConv, global_mean_pool
from torch_geometric.utils import add_self_loops, degree, scatter, softmax, to_undirected

rng = np.random.default_rng(0)
N, E, C = 12, 30, 3
x = torch.from_numpy(rng.standard_normal((N, 8)).astype(np.float32))
edge_index = to_undirected(torch.from_numpy(rng.integers(0, N, (2, E))))
y = torch.from_numpy(rng.integers(0, C, (N,)))
data = Data(x=x, edge_index=edge_index, y=y)
print(f"data {data} nodes {data.num_nodes} edges {data.num_edges} undirected {data.is_undirected()}")
print(f"self loops {data.has_self_loops()} isolated {data.has_isolated_nodes()}")

src, dst = edge_index
print(f"degree {degree(dst, N).tolist()}")
for reduce in ("sum", "mean", "max", "min"):
    out = scatter(x[src], dst, dim=0, dim_size=N, reduce=reduce)
    print(f"scatter {reduce} {out.sum().item():.5f} {out[0, :3].tolist()}")
a = softmax(x[src, 0], dst, num_nodes=N)
print(f"softmax {a.sum().item():.5f} {a[:4].tolist()}")
ei, _ = add_self_loops(edge_index, num_nodes=N)
print(f"self loops added {ei.size(1)}")


def check(name, conv):
    xg = x.clone().requires_grad_(True)
    out = conv(xg, edge_index)
    out.pow(2).sum().backward()
    grads = [p.grad.abs().sum().item() for p in conv.parameters()]
    print(f"{name} out {tuple(out.shape)} {out.sum().item():.5f} xgrad {xg.grad.abs().sum().item():.5f} "
          f"pgrads {' '.join(f'{g:.5f}' for g in grads)}")


torch.manual_seed(0)
check("gcn", GCNConv(8, 4))
torch.manual_seed(0)
check("gat", GATConv(8, 4, heads=2))
torch.manual_seed(0)
check("sage", SAGEConv(8, 4))
torch.manual_seed(0)
check("sage max", SAGEConv(8, 4, aggr="max"))


class EdgeConvLike(MessagePassing):
    def __init__(self):
        super().__init__(aggr="max")
        self.lin = torch.nn.Linear(16, 4)

    def forward(self, x, edge_index):
        return self.propagate(edge_index, x=x)

    def message(self, x_i, x_j):
        return self.lin(torch.cat([x_i, x_j - x_i], dim=-1))


torch.manual_seed(0)
check("custom mp", EdgeConvLike())


class GCN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = GCNConv(8, 16), GCNConv(16, C)

    def forward(self, x, edge_index):
        return self.conv2(F.relu(self.conv1(x, edge_index)), edge_index)


torch.manual_seed(0)
model = GCN()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
losses = []
for step in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(data.x, data.edge_index), data.y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
    print(f"gcn train step {step} loss {loss.item():.5f}")
print(f"gcn loss fell {losses[-1] < losses[0]}")

graphs = [Data(x=x[:5], edge_index=torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])),
          Data(x=x[5:9], edge_index=torch.tensor([[0, 1, 2], [1, 2, 3]]))]
batch = Batch.from_data_list(graphs)
print(f"batch {batch.num_graphs} {batch.batch.tolist()} {batch.edge_index[:, -3:].tolist()}")
pooled = global_mean_pool(batch.x, batch.batch)
print(f"pool {tuple(pooled.shape)} {pooled.sum().item():.5f}")
