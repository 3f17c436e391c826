"""cloneofsimo/minRF-style rectified flow (rf.py): an ``RF`` wrapper drawing logit-normal timesteps
(``torch.randn((b,)).sigmoid()``), interpolating ``zt = (1 - t) * x + t * z1`` with ``torch.randn_like``
noise, regressing the velocity ``z1 - x`` with a per-sample MSE (``mean(dim=list(range(1, ndim)))``) and
binning the per-timestep losses; ``@torch.no_grad()`` Euler sampling from t=1 to 0 with classifier-free guidance
(``vu + cfg * (vc - vu)``); a small class-conditional convolutional velocity network with a sinusoidal
timestep embedding and a label embedder that drops labels to the null class with ``torch.where`` on
``torch.rand``; Adam, a ``lossbin`` log per epoch. Synthetic 8x8 "digits"; small sizes; prints rounded numbers
one fact per line."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class RF:
    def __init__(self, model, ln=True):
        self.model = model
        self.ln = ln

    def forward(self, x, cond):
        b = x.size(0)
        if self.ln:
            nt = torch.randn((b,)).to(x.device)
            t = torch.sigmoid(nt)
        else:
            t = torch.rand((b,)).to(x.device)
        texp = t.view([b, *([1] * len(x.shape[1:]))])
        z1 = torch.randn_like(x)
        zt = (1 - texp) * x + texp * z1
        vtheta = self.model(zt, t, cond)
        batchwise_mse = ((z1 - x - vtheta) ** 2).mean(dim=list(range(1, len(x.shape))))
        tlist = batchwise_mse.detach().cpu().reshape(-1).tolist()
        ttloss = [(tv, tloss) for tv, tloss in zip(t, tlist)]
        return batchwise_mse.mean(), ttloss

    @torch.no_grad()
    def sample(self, z, cond, null_cond=None, sample_steps=50, cfg=2.0):
        b = z.size(0)
        dt = 1.0 / sample_steps
        dt = torch.tensor([dt] * b).to(z.device).view([b, *([1] * len(z.shape[1:]))])
        images = [z]
        for i in range(sample_steps, 0, -1):
            t = i / sample_steps
            t = torch.tensor([t] * b).to(z.device)

            vc = self.model(z, t, cond)
            if null_cond is not None:
                vu = self.model(z, t, null_cond)
                vc = vu + cfg * (vc - vu)

            z = z - dt * vc
            images.append(z)
        return images


class TimestepEmbedder(nn.Module):
    def __init__(self, hidden_size, frequency_embedding_size=32):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(frequency_embedding_size, hidden_size),
            nn.SiLU(),
            nn.Linear(hidden_size, hidden_size),
        )
        self.frequency_embedding_size = frequency_embedding_size

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half) / half).to(t.device)
        args = t[:, None] * freqs[None]
        embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        if dim % 2:
            embedding = torch.cat([embedding, torch.zeros_like(embedding[:, :1])], dim=-1)
        return embedding

    def forward(self, t):
        t_freq = self.timestep_embedding(t, self.frequency_embedding_size).to(dtype=next(self.parameters()).dtype)
        return self.mlp(t_freq)


class LabelEmbedder(nn.Module):
    def __init__(self, num_classes, hidden_size, dropout_prob):
        super().__init__()
        use_cfg_embedding = int(dropout_prob > 0)
        self.embedding_table = nn.Embedding(num_classes + use_cfg_embedding, hidden_size)
        self.num_classes = num_classes
        self.dropout_prob = dropout_prob

    def token_drop(self, labels, force_drop_ids=None):
        if force_drop_ids is None:
            drop_ids = torch.rand(labels.shape[0]) < self.dropout_prob
            drop_ids = drop_ids.to(labels.device)
        else:
            drop_ids = force_drop_ids == 1
        labels = torch.where(drop_ids, self.num_classes, labels)
        return labels

    def forward(self, labels, train, force_drop_ids=None):
        use_dropout = self.dropout_prob > 0
        if (train and use_dropout) or (force_drop_ids is not None):
            labels = self.token_drop(labels, force_drop_ids)
        embeddings = self.embedding_table(labels)
        return embeddings


class VelocityNet(nn.Module):
    """A small stand-in for minRF's DiT_Llama: convs modulated by the timestep + label conditioning."""
    def __init__(self, in_channels=1, dim=32, num_classes=4, class_dropout_prob=0.1):
        super().__init__()
        self.t_embedder = TimestepEmbedder(dim)
        self.y_embedder = LabelEmbedder(num_classes, dim, class_dropout_prob)
        self.conv_in = nn.Conv2d(in_channels, dim, 3, padding=1)
        self.blocks = nn.ModuleList([nn.Conv2d(dim, dim, 3, padding=1) for _ in range(2)])
        self.norms = nn.ModuleList([nn.GroupNorm(4, dim) for _ in range(2)])
        self.ada = nn.ModuleList([nn.Linear(dim, 2 * dim) for _ in range(2)])
        self.conv_out = nn.Conv2d(dim, in_channels, 3, padding=1)
        nn.init.zeros_(self.conv_out.weight)
        nn.init.zeros_(self.conv_out.bias)

    def forward(self, x, t, y):
        c = self.t_embedder(t) + self.y_embedder(y, self.training)
        h = self.conv_in(x)
        for conv, norm, ada in zip(self.blocks, self.norms, self.ada):
            scale, shift = ada(F.silu(c)).chunk(2, dim=1)
            h = h + conv(F.silu(norm(h) * (1 + scale[:, :, None, None]) + shift[:, :, None, None]))
        return self.conv_out(h)


def synthetic_digits(n, seed):
    """(n, 1, 8, 8) in [-1, 1]: class c draws a bar in one of four orientations."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.full((n, 1, 8, 8), -1.0)
    for i, c in enumerate(y.tolist()):
        if c == 0:
            x[i, 0, 3:5, 1:7] = 1
        elif c == 1:
            x[i, 0, 1:7, 3:5] = 1
        elif c == 2:
            x[i, 0].fill_diagonal_(1)
        else:
            x[i, 0] = torch.flip(torch.eye(8) * 2 - 1, dims=[1])
    return x + 0.05 * torch.randn(n, 1, 8, 8, generator=g), y


if __name__ == "__main__":
    torch.manual_seed(0)
    x_all, y_all = synthetic_digits(128, 0)
    dataloader = DataLoader(TensorDataset(x_all, y_all), batch_size=32, shuffle=True, drop_last=True)

    model = VelocityNet(in_channels=1, dim=32, num_classes=4, class_dropout_prob=0.1)
    model_size = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Number of parameters: {model_size}, {model_size / 1e6}M")

    rf = RF(model)
    optimizer = optim.Adam(model.parameters(), lr=2e-3)

    for epoch in range(4):
        lossbin = {i: 0 for i in range(10)}
        losscnt = {i: 1e-6 for i in range(10)}
        for i, (x, c) in enumerate(dataloader):
            optimizer.zero_grad()
            loss, blsct = rf.forward(x, c)
            loss.backward()
            optimizer.step()

            # count based on t
            for t, l in blsct:
                lossbin[int(t * 10)] += l
                losscnt[int(t * 10)] += 1

        # log
        print(f"epoch {epoch} loss {loss.item():.5f}")
        print("lossbin", [round(lossbin[i] / losscnt[i], 4) for i in range(10)])

    rf.model.eval()
    with torch.no_grad():
        cond = torch.arange(0, 8) % 4
        uncond = torch.ones_like(cond) * 4

        init_noise = torch.randn(8, 1, 8, 8)
        images = rf.sample(init_noise, cond, uncond, sample_steps=10, cfg=2.0)
        print("sampled", len(images), tuple(images[-1].shape), round(images[-1].mean().item(), 5),
              round(images[-1].std().item(), 5))
        # the class means the samples should approach
        final = images[-1].clamp(-1, 1)
        for k in range(4):
            err = (final[cond == k] - x_all[y_all == k].mean(0)).abs().mean().item()
            print(f"class {k} mean abs error to class mean {err:.4f}")
