"""TabNet in the style of dreamquark-ai/tabnet (pytorch_tabnet/tab_network.py and sparsemax.py; own code, a
synthetic tabular task).

Sparsemax and Entmax-1.5 written as ``torch.autograd.Function``s with hand-written backward passes (threshold
from a descending ``sort``, ``cumsum`` and an ``arange`` support count, ``gather`` of tau; the entmax bisection-free
closed form with ``clamp`` and ``sqrt``), checked by ``torch.autograd.gradcheck`` in float64; ghost batch
normalisation (``chunk`` into virtual batches), GLU blocks with ``sqrt(0.5)`` residual scaling, an attentive
transformer with a prior that multiplies by ``gamma - M``, the sparsity regulariser ``mean(sum(M * log(M + eps)))``,
categorical embeddings concatenated with continuous columns, feature importances from the masks;
Adam with ``StepLR``, ``clip_grad_norm_``, ``torch.no_grad`` prediction and a ``state_dict`` save/load."""
import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function

torch.manual_seed(0)
np.random.seed(0)


def _make_ix_like(input, dim=0):
    d = input.size(dim)
    rho = torch.arange(1, d + 1, device=input.device, dtype=input.dtype)
    view = [1] * input.dim()
    view[0] = -1
    return rho.view(view).transpose(0, dim)


class SparsemaxFunction(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = input - max_val
        tau, supp_size = SparsemaxFunction._threshold_and_support(input, dim=dim)
        output = torch.clamp(input - tau, min=0)
        ctx.save_for_backward(supp_size, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        supp_size, output = ctx.saved_tensors
        dim = ctx.dim
        grad_input = grad_output.clone()
        grad_input[output == 0] = 0
        v_hat = grad_input.sum(dim=dim) / supp_size.to(output.dtype).squeeze()
        v_hat = v_hat.unsqueeze(dim)
        grad_input = torch.where(output != 0, grad_input - v_hat, grad_input)
        return grad_input, None

    @staticmethod
    def _threshold_and_support(input, dim=-1):
        input_srt, _ = torch.sort(input, descending=True, dim=dim)
        input_cumsum = input_srt.cumsum(dim) - 1
        rhos = _make_ix_like(input, dim)
        support = rhos * input_srt > input_cumsum
        support_size = support.sum(dim=dim).unsqueeze(dim)
        tau = input_cumsum.gather(dim, support_size - 1)
        tau /= support_size.to(input.dtype)
        return tau, support_size


class Entmax15Function(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = input - max_val
        input = input / 2
        tau_star, _ = Entmax15Function._threshold_and_support(input, dim)
        output = torch.clamp(input - tau_star, min=0) ** 2
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (Y,) = ctx.saved_tensors
        gppr = Y.sqrt()
        dX = grad_output * gppr
        q = dX.sum(ctx.dim) / gppr.sum(ctx.dim)
        q = q.unsqueeze(ctx.dim)
        dX -= q * gppr
        return dX, None

    @staticmethod
    def _threshold_and_support(input, dim=-1):
        Xsrt, _ = torch.sort(input, descending=True, dim=dim)
        rho = _make_ix_like(input, dim)
        mean = Xsrt.cumsum(dim) / rho
        mean_sq = (Xsrt ** 2).cumsum(dim) / rho
        ss = rho * (mean_sq - mean ** 2)
        delta = (1 - ss) / rho
        delta_nz = torch.clamp(delta, 0)
        tau = mean - torch.sqrt(delta_nz)
        support_size = (tau <= Xsrt).sum(dim).unsqueeze(dim)
        tau_star = tau.gather(dim, support_size - 1)
        return tau_star, support_size


sparsemax = SparsemaxFunction.apply
entmax15 = Entmax15Function.apply


class GBN(nn.Module):
    def __init__(self, input_dim, virtual_batch_size=8, momentum=0.01):
        super().__init__()
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(input_dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)
        return torch.cat([self.bn(x_) for x_ in chunks], dim=0)


class GLU_Layer(nn.Module):
    def __init__(self, input_dim, output_dim, fc=None):
        super().__init__()
        self.output_dim = output_dim
        self.fc = fc if fc is not None else nn.Linear(input_dim, 2 * output_dim, bias=False)
        gain = np.sqrt((input_dim + 2 * output_dim) / np.sqrt(input_dim))
        nn.init.xavier_normal_(self.fc.weight, gain=gain)
        self.bn = GBN(2 * output_dim)

    def forward(self, x):
        x = self.bn(self.fc(x))
        return torch.mul(x[:, : self.output_dim], torch.sigmoid(x[:, self.output_dim:]))


class FeatTransformer(nn.Module):
    def __init__(self, input_dim, output_dim, shared, n_independent=1):
        super().__init__()
        self.layers = nn.ModuleList()
        for i, fc in enumerate(shared):
            self.layers.append(GLU_Layer(input_dim if i == 0 else output_dim, output_dim, fc=fc))
        for _ in range(n_independent):
            self.layers.append(GLU_Layer(output_dim, output_dim))
        self.scale = torch.sqrt(torch.FloatTensor([0.5]))

    def forward(self, x):
        x = self.layers[0](x)
        for layer in self.layers[1:]:
            x = (x + layer(x)) * self.scale
        return x


class AttentiveTransformer(nn.Module):
    def __init__(self, input_dim, group_dim, mask_type="sparsemax"):
        super().__init__()
        self.fc = nn.Linear(input_dim, group_dim, bias=False)
        gain = np.sqrt((input_dim + group_dim) / np.sqrt(4 * input_dim))
        nn.init.xavier_normal_(self.fc.weight, gain=gain)
        self.bn = GBN(group_dim)
        self.selector = sparsemax if mask_type == "sparsemax" else entmax15

    def forward(self, priors, processed_feat):
        x = self.bn(self.fc(processed_feat))
        x = torch.mul(x, priors)
        return self.selector(x, -1)


class TabNet(nn.Module):
    def __init__(self, n_cont, cat_dims, cat_emb_dim, output_dim, n_d=8, n_a=8, n_steps=3, gamma=1.3,
                 mask_type="sparsemax"):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(c, cat_emb_dim) for c in cat_dims])
        self.post_embed_dim = n_cont + len(cat_dims) * cat_emb_dim
        self.n_d, self.n_steps, self.gamma, self.epsilon = n_d, n_steps, gamma, 1e-15
        self.initial_bn = nn.BatchNorm1d(self.post_embed_dim, momentum=0.01)
        shared = nn.ModuleList([nn.Linear(self.post_embed_dim, 2 * (n_d + n_a), bias=False),
                                nn.Linear(n_d + n_a, 2 * (n_d + n_a), bias=False)])
        self.initial_splitter = FeatTransformer(self.post_embed_dim, n_d + n_a, shared)
        self.feat_transformers = nn.ModuleList([FeatTransformer(self.post_embed_dim, n_d + n_a, shared)
                                                for _ in range(n_steps)])
        self.att_transformers = nn.ModuleList([AttentiveTransformer(n_a, self.post_embed_dim, mask_type)
                                               for _ in range(n_steps)])
        self.final_mapping = nn.Linear(n_d, output_dim, bias=False)

    def embed(self, x_cont, x_cat):
        cols = [x_cont] + [emb(x_cat[:, i]) for i, emb in enumerate(self.embeddings)]
        return torch.cat(cols, dim=1)

    def forward(self, x_cont, x_cat):
        x = self.initial_bn(self.embed(x_cont, x_cat))
        res = 0
        prior = torch.ones(x.shape, device=x.device)
        M_loss = 0
        att = self.initial_splitter(x)[:, self.n_d:]
        masks = []
        for step in range(self.n_steps):
            M = self.att_transformers[step](prior, att)
            M_loss += torch.mean(torch.sum(torch.mul(M, torch.log(M + self.epsilon)), dim=1))
            prior = torch.mul(self.gamma - M, prior)
            out = self.feat_transformers[step](torch.mul(M, x))
            d = F.relu(out[:, : self.n_d])
            res = torch.add(res, d)
            att = out[:, self.n_d:]
            masks.append(M * d.sum(1, keepdim=True))
        M_loss /= self.n_steps
        return self.final_mapping(res), M_loss, masks


z = torch.tensor([[1.0, 0.8, 0.1, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.5, 2.9, 2.8]])
print("sparsemax", [[round(v, 4) for v in row] for row in sparsemax(z, -1).tolist()])
print("entmax15", [[round(v, 4) for v in row] for row in entmax15(z, -1).tolist()])
print("sums", sparsemax(z, -1).sum(-1).tolist(), [round(v, 5) for v in entmax15(z, -1).sum(-1).tolist()])
zz = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
print("gradcheck", torch.autograd.gradcheck(lambda t: sparsemax(t, -1), (zz,)),
      torch.autograd.gradcheck(lambda t: entmax15(t, -1), (zz,)))
print("dim 0", [round(v, 4) for v in sparsemax(z.t(), 0)[:, 2].tolist()])

n = 64
x_cont = torch.randn(n, 4)
x_cat = torch.stack([torch.randint(0, 5, (n,)), torch.randint(0, 3, (n,))], 1)
y = ((x_cont[:, 0] + (x_cat[:, 0] == 2).float() - 0.5 * x_cont[:, 2]) > 0.3).long()
print("data", tuple(x_cont.shape), x_cat.dtype, "positives", int(y.sum()))
for mask_type in ("sparsemax", "entmax"):
    torch.manual_seed(1)
    model = TabNet(4, [5, 3], 2, 2, mask_type=mask_type)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for epoch in range(5):
        model.train()
        perm = torch.randperm(n)
        for idx in perm.split(32):
            out, m_loss, _ = model(x_cont[idx], x_cat[idx])
            loss = F.cross_entropy(out, y[idx]) - 1e-3 * m_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        sched.step()
        if epoch % 2 == 0:
            print(f"{mask_type} epoch {epoch} loss {loss.item():.4f} m_loss {m_loss.item():.4f} "
                  f"lr {sched.get_last_lr()[0]:.4f}")
    model.eval()
    with torch.no_grad():
        logits, _, masks = model(x_cont, x_cat)
        proba = torch.softmax(logits, dim=1)
        acc = (proba.argmax(1) == y).float().mean().item()
        explain = sum(masks)
        importances = explain.sum(0) / explain.sum()
        sparsity = (masks[0] == 0).float().mean().item()
    print(f"{mask_type} acc {acc:.3f} sparsity {sparsity:.3f}", [round(v, 3) for v in importances.tolist()])
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    clone = TabNet(4, [5, 3], 2, 2, mask_type=mask_type)
    missing = clone.load_state_dict(torch.load(buf, weights_only=True))
    clone.eval()
    with torch.no_grad():
        same = torch.allclose(clone(x_cont, x_cat)[0], logits)
    print(mask_type, "reload", missing, same, len(clone.state_dict()))
