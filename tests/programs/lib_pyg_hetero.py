"""torch_geometric's heterogeneous graphs: ``to_hetero`` (its own ``Tracer.trace`` from torch.fx internals, then a
graph rewrite that calls ``graph.inserting_after(node)`` without ``with``), HeteroConv, HGTConv, and training the converted
model; its generated code and values compared with torch."""
import numpy as np
import torch
from torch_geometric.data import HeteroData
from torch_geometric.nn import GATConv, GCNConv, HeteroConv, HGTConv, SAGEConv, to_hetero
import torch_geometric.transforms as T
r = np.random.default_rng(0)
d = HeteroData()
d["paper"].x = torch.from_numpy(r.standard_normal((10, 6)).astype(np.float32))
d["author"].x = torch.from_numpy(r.standard_normal((7, 4)).astype(np.float32))
d["author", "writes", "paper"].edge_index = torch.stack([torch.from_numpy(r.integers(0, 7, 20)), torch.from_numpy(r.integers(0, 10, 20))])
d["paper", "cites", "paper"].edge_index = torch.from_numpy(r.integers(0, 10, (2, 15)))
d = T.ToUndirected()(d)
print(d)
print(d.metadata())


class GNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = SAGEConv((-1, -1), 8); self.c2 = SAGEConv((-1, -1), 3)
    def forward(self, x, edge_index):
        return self.c2(self.c1(x, edge_index).relu(), edge_index)


torch.manual_seed(0)
model = to_hetero(GNN(), d.metadata(), aggr="sum")
out = model(d.x_dict, d.edge_index_dict)
print({k: (tuple(v.shape), round(v.sum().item(), 4)) for k, v in out.items()})
print(sorted(n for n, _ in model.named_parameters())[:6])
print(model.code)
torch.manual_seed(0)
hc = HeteroConv({("paper", "cites", "paper"): GCNConv(-1, 8), ("author", "writes", "paper"): SAGEConv((-1, -1), 8),
                 ("paper", "rev_writes", "author"): GATConv((-1, -1), 8, add_self_loops=False)}, aggr="sum")
o = hc(d.x_dict, d.edge_index_dict)
print({k: (tuple(v.shape), round(v.sum().item(), 4)) for k, v in o.items()})
torch.manual_seed(0)
hgt = HGTConv(-1, 8, d.metadata(), heads=2)  # its CSR pointers: torch._convert_indices_from_coo_to_csr
o = hgt(d.x_dict, d.edge_index_dict)
print("hgt", {k: (tuple(v.shape), round(v.sum().item(), 4)) for k, v in o.items()})
opt = torch.optim.Adam(model.parameters(), lr=0.01)
y = torch.from_numpy(r.integers(0, 3, 10))
for i in range(3):
    loss = torch.nn.functional.cross_entropy(model(d.x_dict, d.edge_index_dict)["paper"], y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("hetero loss", f"{loss.item():.5f}")
