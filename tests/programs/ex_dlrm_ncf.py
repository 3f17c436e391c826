"""Two recommender models in the style of their reference repositories (own code, synthetic click logs).

DLRM after facebookresearch/dlrm: one ``nn.EmbeddingBag(mode="sum", sparse=True)`` per categorical feature fed
flat indices with ``offsets`` (and ``per_sample_weights`` for weighted bags), a bottom MLP for dense features, the
dot interaction (``torch.bmm`` of the stacked vectors, lower-triangle pairs picked with ``torch.tril_indices``),
a top MLP with a sigmoid, BCE loss; sparse embedding gradients stepped by ``optim.SparseAdam`` and the dense
parameters by SGD, ``clip_grad_norm_`` on the dense ones, a ``state_dict`` round trip through ``io.BytesIO``.

Neural Collaborative Filtering after hexiangnan/neural_collaborative_filtering (and its PyTorch ports): GMF and
MLP towers with separate embeddings, NeuMF's concatenated predict layer, ``BCEWithLogitsLoss``, negative sampling
with ``torch.randint``, Adam, and leave-one-out hit ratio / NDCG@k evaluation under ``torch.no_grad``."""
import io
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


def fmt(t, n=4):
    return [round(float(v), n) for v in t.reshape(-1)[:6]]


class DLRM(nn.Module):
    def __init__(self, m_spa, ln_emb, ln_bot, ln_top):
        super().__init__()
        self.emb_l = nn.ModuleList([nn.EmbeddingBag(n, m_spa, mode="sum", sparse=True) for n in ln_emb])
        for emb in self.emb_l:
            n = emb.num_embeddings
            w = np.random.uniform(low=-np.sqrt(1 / n), high=np.sqrt(1 / n), size=(n, m_spa)).astype(np.float32)
            emb.weight.data = torch.tensor(w, requires_grad=True)
        self.bot_l = self.create_mlp(ln_bot, sigmoid_layer=-1)
        self.top_l = self.create_mlp(ln_top, sigmoid_layer=len(ln_top) - 2)

    @staticmethod
    def create_mlp(ln, sigmoid_layer):
        layers = nn.ModuleList()
        for i in range(len(ln) - 1):
            n, m = int(ln[i]), int(ln[i + 1])
            lin = nn.Linear(n, m, bias=True)
            mean, std_dev = 0.0, np.sqrt(2 / (m + n))
            W = np.random.normal(mean, std_dev, size=(m, n)).astype(np.float32)
            bt = np.random.normal(mean, np.sqrt(1 / m), size=m).astype(np.float32)
            lin.weight.data = torch.tensor(W, requires_grad=True)
            lin.bias.data = torch.tensor(bt, requires_grad=True)
            layers.append(lin)
            layers.append(nn.Sigmoid() if i == sigmoid_layer else nn.ReLU())
        return nn.Sequential(*layers)

    def apply_emb(self, lS_o, lS_i, lS_w):
        ly = []
        for k, E in enumerate(self.emb_l):
            psw = lS_w[k] if lS_w is not None else None
            ly.append(E(lS_i[k], lS_o[k], per_sample_weights=psw))
        return ly

    def interact_features(self, x, ly):
        batch_size, d = x.shape
        T = torch.cat([x] + ly, dim=1).view((batch_size, -1, d))
        Z = torch.bmm(T, torch.transpose(T, 1, 2))
        _, ni, nj = Z.shape
        li, lj = torch.tril_indices(ni, nj, offset=-1)
        Zflat = Z[:, li, lj]
        return torch.cat([x] + [Zflat], dim=1)

    def forward(self, dense_x, lS_o, lS_i, lS_w=None):
        x = self.bot_l(dense_x)
        ly = self.apply_emb(lS_o, lS_i, lS_w)
        z = self.interact_features(x, ly)
        return self.top_l(z)


def make_batch(bs, ln_emb, max_bag=3):
    dense = torch.rand(bs, 4)
    lS_o, lS_i, lS_w = [], [], []
    for n in ln_emb:
        lens = torch.randint(1, max_bag + 1, (bs,))
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lens, 0)[:-1]])
        idx = torch.randint(0, n, (int(lens.sum()),))
        lS_o.append(offsets)
        lS_i.append(idx)
        lS_w.append(torch.rand(idx.shape[0]))
    target = (dense.sum(1, keepdim=True) + lS_i[0][lS_o[0]].float().unsqueeze(1) / ln_emb[0] > 2.2).float()
    return dense, lS_o, lS_i, lS_w, target


ln_emb = [10, 7, 13]
m_spa = 8
num_fea = len(ln_emb) + 1
num_int = num_fea * (num_fea - 1) // 2 + m_spa
dlrm = DLRM(m_spa, ln_emb, ln_bot=[4, 16, m_spa], ln_top=[num_int, 16, 1])
print("dlrm bags", [tuple(e.weight.shape) for e in dlrm.emb_l], dlrm.emb_l[0])
print("interaction inputs", num_int, "params", sum(p.numel() for p in dlrm.parameters()))

dense_params = [p for n, p in dlrm.named_parameters() if not n.startswith("emb_l")]
sparse_params = [p for n, p in dlrm.named_parameters() if n.startswith("emb_l")]
opt_dense = torch.optim.SGD(dense_params, lr=0.1)
opt_sparse = torch.optim.SparseAdam(sparse_params, lr=0.05)
loss_fn = nn.BCELoss(reduction="mean")

dense, lS_o, lS_i, lS_w, target = make_batch(16, ln_emb)
print("offsets", lS_o[0][:6].tolist(), "indices", lS_i[0].shape[0], lS_i[0].dtype, "weights", fmt(lS_w[0], 3))
bag = dlrm.emb_l[0](lS_i[0], lS_o[0], per_sample_weights=lS_w[0])
ref = torch.stack([(dlrm.emb_l[0].weight[lS_i[0][s:e]] * lS_w[0][s:e, None]).sum(0)
                   for s, e in zip(lS_o[0].tolist(), lS_o[0].tolist()[1:] + [lS_i[0].shape[0]])])
print("bag", tuple(bag.shape), "matches manual", torch.allclose(bag, ref, atol=1e-6))
for step in range(6):
    dense, lS_o, lS_i, lS_w, target = make_batch(16, ln_emb)
    z = dlrm(dense, lS_o, lS_i, lS_w if step % 2 else None)
    loss = loss_fn(z, target)
    opt_dense.zero_grad()
    opt_sparse.zero_grad()
    loss.backward()
    g = dlrm.emb_l[1].weight.grad
    if step == 0:
        print("emb grad sparse", g.is_sparse, g.layout, tuple(g.coalesce().indices().shape)[0],
              "dense grad", dlrm.bot_l[0].weight.grad.layout)
        print("sparse grad rows", sorted(set(g.coalesce().indices()[0].tolist())) == sorted(set(lS_i[1].tolist())))
    norm = torch.nn.utils.clip_grad_norm_(dense_params, max_norm=1.0)
    opt_dense.step()
    opt_sparse.step()
    print(f"dlrm step {step} loss {loss.item():.4f} norm {norm.item():.4f}")

state = dlrm.state_dict()
print("state keys", list(state)[:4], len(state))
buf = io.BytesIO()
torch.save(state, buf)
buf.seek(0)
clone = DLRM(m_spa, ln_emb, ln_bot=[4, 16, m_spa], ln_top=[num_int, 16, 1])
print("load", clone.load_state_dict(torch.load(buf)))
dlrm.eval()
clone.eval()
with torch.no_grad():
    a = dlrm(dense, lS_o, lS_i, lS_w)
    b = clone(dense, lS_o, lS_i, lS_w)
    acc = ((a > 0.5).float() == target).float().mean()
print("round trip equal", torch.equal(a, b), "acc", f"{acc.item():.4f}", fmt(a))


class NeuMF(nn.Module):
    def __init__(self, num_users, num_items, factor_num, num_layers, dropout):
        super().__init__()
        self.embed_user_GMF = nn.Embedding(num_users, factor_num)
        self.embed_item_GMF = nn.Embedding(num_items, factor_num)
        mlp_dim = factor_num * (2 ** (num_layers - 1))
        self.embed_user_MLP = nn.Embedding(num_users, mlp_dim)
        self.embed_item_MLP = nn.Embedding(num_items, mlp_dim)
        modules = []
        for i in range(num_layers):
            input_size = factor_num * (2 ** (num_layers - i))
            modules.append(nn.Dropout(p=dropout))
            modules.append(nn.Linear(input_size, input_size // 2))
            modules.append(nn.ReLU())
        self.MLP_layers = nn.Sequential(*modules)
        self.predict_layer = nn.Linear(factor_num * 2, 1)
        self._init_weight_()

    def _init_weight_(self):
        nn.init.normal_(self.embed_user_GMF.weight, std=0.01)
        nn.init.normal_(self.embed_user_MLP.weight, std=0.01)
        nn.init.normal_(self.embed_item_GMF.weight, std=0.01)
        nn.init.normal_(self.embed_item_MLP.weight, std=0.01)
        for m in self.MLP_layers:
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
        nn.init.kaiming_uniform_(self.predict_layer.weight, a=1, nonlinearity="sigmoid")
        for m in self.modules():
            if isinstance(m, nn.Linear) and m.bias is not None:
                m.bias.data.zero_()

    def forward(self, user, item):
        output_GMF = self.embed_user_GMF(user) * self.embed_item_GMF(item)
        interaction = torch.cat((self.embed_user_MLP(user), self.embed_item_MLP(item)), -1)
        output_MLP = self.MLP_layers(interaction)
        concat = torch.cat((output_GMF, output_MLP), -1)
        return self.predict_layer(concat).view(-1)


def hit(gt_item, pred_items):
    return 1 if gt_item in pred_items else 0


def ndcg(gt_item, pred_items):
    if gt_item in pred_items:
        index = pred_items.index(gt_item)
        return np.reciprocal(np.log2(index + 2))
    return 0


num_users, num_items = 12, 30
pos_user = torch.arange(num_users).repeat_interleave(4)
pos_item = (pos_user * 7 + torch.arange(pos_user.shape[0]) % 4) % num_items
ncf = NeuMF(num_users, num_items, factor_num=8, num_layers=3, dropout=0.1)
print("ncf", ncf.MLP_layers[1], ncf.predict_layer.weight.shape[1])
opt = torch.optim.Adam(ncf.parameters(), lr=0.01)
crit = nn.BCEWithLogitsLoss()
for epoch in range(5):
    ncf.train()
    neg_item = torch.randint(0, num_items, (pos_user.shape[0] * 2,))
    users = torch.cat([pos_user, pos_user.repeat(2)])
    items = torch.cat([pos_item, neg_item])
    labels = torch.cat([torch.ones(pos_user.shape[0]), torch.zeros(neg_item.shape[0])])
    perm = torch.randperm(users.shape[0])
    total = 0.0
    for chunk in perm.split(48):
        opt.zero_grad()
        pred = ncf(users[chunk], items[chunk])
        loss = crit(pred, labels[chunk])
        loss.backward()
        opt.step()
        total += loss.item() * chunk.numel()
    ncf.eval()
    HR, NDCG = [], []
    with torch.no_grad():
        for u in range(num_users):
            gt = int(pos_item[u * 4])
            cand = torch.cat([torch.tensor([gt]), (torch.arange(9) * 3 + u + 1) % num_items])
            pred = ncf(torch.full_like(cand, u), cand)
            _, idx = torch.topk(pred, 5)
            rec = torch.take(cand, idx).cpu().numpy().tolist()
            HR.append(hit(gt, rec))
            NDCG.append(ndcg(gt, rec))
    print(f"ncf epoch {epoch} loss {total / users.shape[0]:.4f} HR {np.mean(HR):.3f} NDCG {np.mean(NDCG):.3f}")
print("ncf logits", fmt(pred), pred.dtype, math.isfinite(pred.sum().item()))
