"""egnn-pytorch (lucidrains): E(n)-equivariant graph networks. EGNN_Network on a batch of seeded point clouds with
atom-token embeddings, edge-token embeddings, a padding mask, nearest-neighbour selection (topk, gather through
batched_index_select), a sparse adjacency matrix with second-degree neighbours, global linear attention and
Fourier distance features, trained with Adam to regress a rotation-invariant target; rotation/translation
equivariance of coordinates and invariance of features (egnn_pytorch.utils.rot); a single EGNN layer with mean
pooling, soft edges, coordinate normalisation and clamping; EGNN_Sparse on a pytorch_geometric edge_index; and a
state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from egnn_pytorch import EGNN, EGNN_Network, EGNN_Sparse
from egnn_pytorch.utils import rot


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
B, N = 3, 10
tokens = torch.randint(0, 6, (B, N))
coors = torch.randn(B, N, 3)
edges = torch.randint(0, 4, (B, N, N))
mask = torch.ones(B, N, dtype=torch.bool)
mask[1, 8:] = False
mask[2, 6:] = False
i = torch.arange(N)
adj = (i[:, None] - i[None, :]).abs() == 1  # a chain
target = (coors.norm(dim=-1) * mask).sum(-1, keepdim=True) / mask.sum(-1, keepdim=True)

torch.manual_seed(1)
net = EGNN_Network(num_tokens=6, num_edge_tokens=4, edge_dim=4, num_adj_degrees=2, adj_dim=2, depth=2, dim=16,
                   num_nearest_neighbors=4, fourier_features=2, global_linear_attn_every=1,
                   global_linear_attn_heads=2, global_linear_attn_dim_head=8, num_global_tokens=2, m_dim=8)
head = torch.nn.Linear(16, 1)
print("params", sum(p.numel() for p in net.parameters()), len(net.layers))
opt = torch.optim.Adam([*net.parameters(), *head.parameters()], lr=3e-3)
for step in range(6):
    opt.zero_grad()
    feats, out_coors = net(tokens, coors, adj_mat=adj, edges=edges, mask=mask)
    pooled = (feats * mask[..., None]).sum(1) / mask.sum(-1, keepdim=True)
    loss = F.mse_loss(head(pooled), target)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss))
print("grads", r(net.global_tokens.grad.norm()), r(net.layers[0][1].coors_mlp[-1].weight.grad.norm() * 1e3))
with torch.no_grad():
    feats, out_coors, changes = net(tokens, coors, adj_mat=adj, edges=edges, mask=mask, return_coor_changes=True)
print("out", tuple(feats.shape), len(changes), r(feats[0, 0, :4]), r((out_coors - coors).abs().max() * 1e3))

# equivariance: rotate and translate the input
R = rot(*torch.tensor([0.3, -1.1, 2.0]))
shift = torch.tensor([1.0, -2.0, 0.5])
with torch.no_grad():
    feats_r, coors_r = net(tokens, coors @ R + shift, adj_mat=adj, edges=edges, mask=mask)
print("invariant feats", r((feats_r - feats).abs().max() < 1e-4))
print("equivariant coors", r((coors_r - (out_coors @ R + shift)).abs().max() < 1e-4), r(torch.det(R)))

# one layer: mean pooling, soft edges, coordinate norm, clamped weights, dense (no neighbour selection)
torch.manual_seed(2)
layer = EGNN(dim=8, edge_dim=3, m_dim=12, m_pool_method="mean", soft_edges=True, norm_feats=True, norm_coors=True,
             coor_weights_clamp_value=2.0, init_eps=0.1)
x8 = torch.randn(B, N, 8, requires_grad=True)
e3 = torch.randn(B, N, N, 3)
c = coors.clone().requires_grad_()
f8, c8 = layer(x8, c, edges=e3, mask=mask)
(f8.pow(2).mean() + c8.pow(2).mean()).backward()
print("layer", r(f8[1, 0, :3]), r(c8[2, 1]), r(x8.grad.norm()), r(c.grad.norm()))
print("masked nodes", r(f8[1, 8:].abs().sum() > 0), r(layer.coors_norm.scale.grad))

# EGNN_Sparse on a pytorch_geometric graph (coordinates are the first 3 columns)
torch.manual_seed(3)
sparse = EGNN_Sparse(feats_dim=8, pos_dim=3, m_dim=8, fourier_features=1, aggr="add")
nodes = torch.cat([coors[0], torch.randn(N, 8)], dim=-1)
edge_index = torch.stack([torch.cat([i[:-1], i[1:]]), torch.cat([i[1:], i[:-1]])])
out = sparse(nodes, edge_index)
print("sparse", tuple(out.shape), r(out[0, :5]), r(out[:, :3].sub(coors[0]).abs().max()))

buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = EGNN_Network(num_tokens=6, num_edge_tokens=4, edge_dim=4, num_adj_degrees=2, adj_dim=2, depth=2, dim=16,
                     num_nearest_neighbors=4, fourier_features=2, global_linear_attn_every=1,
                     global_linear_attn_heads=2, global_linear_attn_dim_head=8, num_global_tokens=2, m_dim=8)
clone.load_state_dict(torch.load(buf))
with torch.no_grad():
    print("reloaded", torch.allclose(clone(tokens, coors, adj_mat=adj, edges=edges, mask=mask)[0], feats, atol=1e-6))
