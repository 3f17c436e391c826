"""torch_geometric beyond layers: GNNExplainer through Explainer, the GAT/GIN/PNA model classes, GraphUNet
(TopKPooling and sparse CSR adjacency products), LabelPropagation and to_hetero_with_bases (an fx graph rewrite),
compared with torch."""
import numpy as np
import torch
from torch_geometric.data import HeteroData
from torch_geometric.nn import GCNConv, GraphUNet, SAGEConv, to_hetero_with_bases
from torch_geometric.explain import Explainer, GNNExplainer
from torch_geometric.nn.models import GAT, GIN, PNA, LabelPropagation
from torch_geometric.utils import degree
r = np.random.default_rng(0)
x = torch.from_numpy(r.standard_normal((12, 5)).astype(np.float32)); ei = torch.from_numpy(r.integers(0, 12, (2, 30)))
y = torch.from_numpy(r.integers(0, 3, 12))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = GCNConv(5, 8)
        self.c2 = GCNConv(8, 3)

    def forward(self, x, edge_index):
        return self.c2(self.c1(x, edge_index).relu(), edge_index)


torch.manual_seed(0)
net = Net()
torch.manual_seed(1)
exp = Explainer(net, GNNExplainer(epochs=20, lr=0.05), explanation_type="model", node_mask_type="attributes",
                edge_mask_type="object", model_config=dict(mode="multiclass_classification", task_level="node", return_type="raw"))
e = exp(x, ei, index=3)
print("explain", tuple(e.node_mask.shape), f"{e.node_mask.sum().item():.4f}", f"{e.edge_mask.sum().item():.4f}")
torch.manual_seed(0)
for name, m in [("gat", GAT(5, 8, 2, 3, heads=2)), ("gin", GIN(5, 8, 2, 3)),
                ("pna", PNA(5, 8, 2, 3, aggregators=["mean", "max", "std"], scalers=["identity", "amplification"], deg=torch.bincount(degree(ei[1], 12).long())))]:
    o = m(x, ei)
    print(name, tuple(o.shape), f"{o.sum().item():.4f}")
torch.manual_seed(0)
o = GraphUNet(5, 8, 3, depth=2)(x, ei)
print("unet", tuple(o.shape), f"{o.sum().item():.4f}")
lp = LabelPropagation(num_layers=3, alpha=0.9)
mask = torch.zeros(12, dtype=torch.bool)
mask[:6] = True
print("lp", [round(v, 4) for v in lp(y, ei, mask=mask)[0].tolist()])
torch.manual_seed(0)
d = HeteroData()
d["a"].x = x
d["b"].x = x[:6]
d["a", "to", "b"].edge_index = torch.stack([ei[0], ei[1] % 6])
d["b", "rev", "a"].edge_index = torch.stack([ei[1] % 6, ei[0]])


class G(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = SAGEConv((5, 5), 4)

    def forward(self, x, edge_index):
        return self.c(x, edge_index)


hm = to_hetero_with_bases(G(), d.metadata(), num_bases=2)
o = hm(d.x_dict, d.edge_index_dict)
print("bases", {k: (tuple(v.shape), round(v.sum().item(), 4)) for k, v in o.items()})
