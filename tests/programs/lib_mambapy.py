"""mambapy (pure-PyTorch Mamba): the Blelloch parallel scan `pscan` (a torch.autograd.Function whose forward
and backward sweep strided in-place views of transposed tensors) against a sequential loop, values and
gradients, for power-of-two and padded lengths; a Mamba language model (embedding, Mamba, RMSNorm, tied head)
trained a few steps with AdamW, the parallel and sequential selective scans agreeing, step-by-step recurrent
inference (conv and SSM caches) equal to the full-sequence forward, greedy generation, inner layernorms, and a
state_dict save/load round trip.
"""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from mambapy.mamba import Mamba, MambaConfig, RMSNorm
from mambapy.pscan import pscan


def r(x, n=4):
    return round(float(x), n)


def sequential_scan(A, X):
    h = torch.zeros_like(X[:, 0])
    hs = []
    for t in range(X.shape[1]):
        h = A[:, t] * h + X[:, t]
        hs.append(h)
    return torch.stack(hs, dim=1)


def parallel_scan():
    torch.manual_seed(0)
    for length in (16, 11, 2, 4):
        A = torch.rand(2, length, 3, 4).requires_grad_()
        X = torch.randn(2, length, 3, 4).requires_grad_()
        H = pscan(A, X)
        ref = sequential_scan(A, X)
        weights = torch.randn_like(H)
        gA, gX = torch.autograd.grad((H * weights).sum(), (A, X))
        rA, rX = torch.autograd.grad((ref * weights).sum(), (A, X))
        print("pscan", length, tuple(H.shape), r(H.sum()), bool(torch.allclose(H, ref, atol=1e-5)),
              bool(torch.allclose(gA, rA, atol=1e-4)), bool(torch.allclose(gX, rX, atol=1e-4)), r(gA.norm()))


class MambaLM(nn.Module):
    def __init__(self, config, vocab_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, config.d_model)
        self.mamba = Mamba(config)
        self.norm_f = RMSNorm(config.d_model)
        self.lm_head = nn.Linear(config.d_model, vocab_size, bias=False)
        self.lm_head.weight = self.embedding.weight
        self.apply(self._init_weights)

    def _init_weights(self, module):   # mambapy.lm.LM's initialization
        std = self.mamba.config.base_std
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=std)

    def forward(self, tokens):
        return self.lm_head(self.norm_f(self.mamba(self.embedding(tokens))))

    def step(self, token, caches):
        x, caches = self.mamba.step(self.embedding(token), caches)
        return self.lm_head(self.norm_f(x)), caches

    def empty_caches(self, batch):
        c = self.mamba.config
        return [(None, torch.zeros(batch, c.d_inner, c.d_conv - 1)) for _ in range(c.n_layers)]


def mamba_lm():
    torch.manual_seed(1)
    config = MambaConfig(d_model=16, n_layers=2, d_state=8, expand_factor=2, d_conv=4)
    model = MambaLM(config, vocab_size=30)
    print("mamba params", sum(p.numel() for p in model.parameters()), config.dt_rank, config.d_inner)
    data = torch.randint(0, 30, (4, 17))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-2, weight_decay=0.01)
    losses = []
    for _ in range(6):
        logits = model(data[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 30), data[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    print("mamba losses", losses, r(model.mamba.layers[0].mixer.A_log.grad.norm() * 1e4, 3))

    model.eval()
    with torch.no_grad():
        full = model(data[:2, :12])
        config.pscan = False
        seq = model(data[:2, :12])
        config.pscan = True
        caches = model.empty_caches(2)
        steps = []
        for t in range(12):
            out, caches = model.step(data[:2, t], caches)
            steps.append(out)
        steps = torch.stack(steps, 1)
    print("mamba full", tuple(full.shape), r(full.mean()), r(full.std()),
          bool(torch.allclose(full, seq, atol=1e-5)), bool(torch.allclose(full, steps, atol=1e-4)),
          tuple(caches[0][0].shape), tuple(caches[0][1].shape))

    with torch.no_grad():
        tokens = data[:1, :3]
        caches = model.empty_caches(1)
        for t in range(tokens.shape[1] - 1):
            _, caches = model.step(tokens[:, t], caches)
        last = tokens[:, -1]
        generated = []
        for _ in range(8):
            logits, caches = model.step(last, caches)
            last = logits.argmax(-1)
            generated.append(int(last))
    print("mamba generate", generated)

    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    clone = MambaLM(config, vocab_size=30)
    print("mamba load", clone.load_state_dict(torch.load(buffer)), sorted(model.state_dict())[:3])
    clone.eval()
    with torch.no_grad():
        print("mamba reload equal", bool(torch.equal(clone(data[:2, :12]), full)))


def inner_layernorms():
    torch.manual_seed(2)
    config = MambaConfig(d_model=8, n_layers=1, d_state=4, inner_layernorms=True, dt_init="constant",
                         bias=True)
    model = Mamba(config)
    x = torch.randn(2, 10, 8, requires_grad=True)
    y = model(x)
    y.pow(2).mean().backward()
    print("inner layernorms", tuple(y.shape), r(y.sum()), r(x.grad.norm()),
          r(model.layers[0].mixer.B_layernorm.weight.grad.norm()))


def main():
    parallel_scan()
    mamba_lm()
    inner_layernorms()


if __name__ == "__main__":
    main()
