"""A pointer network for the travelling-salesman problem trained with REINFORCE (Bello et al. 2016; the
pemami4911/neural-combinatorial-rl-pytorch and wouterkool/attention-learn-to-route idioms); own code, random
2-D cities.

An LSTM encoder over embedded coordinates (``nn.Conv1d`` with kernel 1 as the embedding, as those repositories
do), an ``LSTMCell`` decoder with a glimpse and a pointer attention (``v^T tanh(W_ref e + W_q q)``) and
``C * tanh`` logit clipping; visited cities masked with ``masked_fill(-inf)`` and tracked by ``scatter``; a
``torch.distributions.Categorical`` sampler (``sample``/``log_prob``/``entropy``), greedy decoding by ``argmax``,
beam search over ``topk`` of the summed log-probabilities, tour lengths by ``gather`` + ``torch.roll``; an
exponential-moving-average baseline, Adam with ``clip_grad_norm_`` and ``StepLR``; evaluation under
``torch.no_grad`` against a nearest-neighbour heuristic; a ``state_dict`` round trip."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)
N, H, B = 8, 32, 32


def tour_length(cities, tour):
    ordered = cities.gather(1, tour.unsqueeze(-1).expand(-1, -1, 2))
    return (ordered - torch.roll(ordered, -1, dims=1)).norm(dim=-1).sum(1)


class Attention(nn.Module):
    def __init__(self, h, clip=None):
        super().__init__()
        self.w_ref = nn.Conv1d(h, h, 1)
        self.w_q = nn.Linear(h, h)
        self.v = nn.Parameter(torch.empty(h).uniform_(-1 / h ** 0.5, 1 / h ** 0.5))
        self.clip = clip

    def forward(self, q, ref):  # q (B, H), ref (B, N, H)
        e = self.w_ref(ref.transpose(1, 2))                    # (B, H, N)
        u = torch.einsum("h,bhn->bn", self.v, torch.tanh(e + self.w_q(q).unsqueeze(2)))
        if self.clip is not None:
            u = self.clip * torch.tanh(u)
        return e, u


class PointerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Conv1d(2, H, 1)
        self.encoder = nn.LSTM(H, H, batch_first=True)
        self.decoder = nn.LSTMCell(H, H)
        self.glimpse = Attention(H)
        self.pointer = Attention(H, clip=10.0)
        self.start = nn.Parameter(torch.empty(H).uniform_(-0.1, 0.1))

    def forward(self, cities, mode="sample"):
        b = cities.size(0)
        emb = self.embed(cities.transpose(1, 2)).transpose(1, 2)     # (B, N, H)
        enc, (h, c) = self.encoder(emb)
        h, c = h[0], c[0]
        inp = self.start.unsqueeze(0).expand(b, -1)
        mask = torch.zeros(b, N, dtype=torch.bool)
        tour, logps, ents = [], [], []
        for _ in range(N):
            h, c = self.decoder(inp, (h, c))
            e, g = self.glimpse(h, enc)
            g = g.masked_fill(mask, float("-inf"))
            q = torch.bmm(e, F.softmax(g, dim=1).unsqueeze(2)).squeeze(2)
            _, logits = self.pointer(q, enc)
            logits = logits.masked_fill(mask, float("-inf"))
            dist = Categorical(logits=logits)
            idx = dist.sample() if mode == "sample" else logits.argmax(1)
            logps.append(dist.log_prob(idx))
            ents.append(dist.entropy())
            tour.append(idx)
            mask = mask.scatter(1, idx.unsqueeze(1), True)
            inp = emb.gather(1, idx.view(b, 1, 1).expand(-1, 1, H)).squeeze(1)
        return torch.stack(tour, 1), torch.stack(logps, 1).sum(1), torch.stack(ents, 1).mean()

    @torch.no_grad()
    def beam(self, cities, width=3):
        """Beam search for one instance: keeps the ``width`` best partial tours by summed log-probability."""
        emb = self.embed(cities.T.unsqueeze(0)).transpose(1, 2)
        enc, (h, c) = self.encoder(emb)
        beams = [(0.0, [], h[0], c[0], self.start.unsqueeze(0))]
        for _ in range(N):
            cands = []
            for score, tour, h, c, inp in beams:
                h2, c2 = self.decoder(inp, (h, c))
                mask = torch.zeros(1, N, dtype=torch.bool)
                if tour:
                    mask[0, tour] = True
                e, g = self.glimpse(h2, enc)
                q = torch.bmm(e, F.softmax(g.masked_fill(mask, float("-inf")), 1).unsqueeze(2)).squeeze(2)
                logp = F.log_softmax(self.pointer(q, enc)[1].masked_fill(mask, float("-inf")), 1)[0]
                top = logp.topk(min(width, N - len(tour)))
                for lp, i in zip(top.values.tolist(), top.indices.tolist()):
                    cands.append((score + lp, tour + [i], h2, c2, emb[:, i]))
            beams = sorted(cands, key=lambda t: -t[0])[:width]
        return torch.tensor(beams[0][1]), beams[0][0]


def nearest_neighbour(cities):
    tours = []
    for pts in cities:
        d = torch.cdist(pts, pts)
        cur, seen = 0, [0]
        for _ in range(N - 1):
            row = d[cur].clone()
            row[seen] = float("inf")
            cur = int(row.argmin())
            seen.append(cur)
        tours.append(seen)
    return torch.tensor(tours)


model = PointerNet()
print("params", sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_children()])
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.8)
baseline = None
for step in range(8):
    cities = torch.rand(B, N, 2)
    tour, logp, ent = model(cities)
    length = tour_length(cities, tour)
    baseline = length.mean() if baseline is None else 0.8 * baseline + 0.2 * length.mean()
    adv = (length - baseline).detach()
    loss = (adv * logp).mean() - 0.01 * ent
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 4 == 3:
        print(f"step {step + 1} len {length.mean().item():.4f} baseline {baseline.item():.4f} "
              f"loss {loss.item():.4f} ent {ent.item():.4f} gn {gn.item():.4f} lr {sched.get_last_lr()[0]:.6f}")

valid = sorted(set(tour[0].tolist())) == list(range(N))
print("tour", tour[0].tolist(), "valid", valid, "perm", bool((tour.sort(1).values == torch.arange(N)).all()))

model.eval()
with torch.no_grad():
    test = torch.rand(16, N, 2)
    g_tour, g_logp, _ = model(test, mode="greedy")
    g_len = tour_length(test, g_tour)
    nn_len = tour_length(test, nearest_neighbour(test))
print(f"greedy {g_len.mean().item():.4f} nearest neighbour {nn_len.mean().item():.4f} "
      f"logp {g_logp[:3].tolist()[0]:.4f}")
print("greedy lengths", g_len[:4])
b_tour, b_score = model.beam(test[0], width=3)
print("beam", b_tour.tolist(), f"{b_score:.4f}", f"len {tour_length(test[:1], b_tour.unsqueeze(0)).item():.4f}",
      "valid", sorted(b_tour.tolist()) == list(range(N)))

dist = Categorical(logits=torch.tensor([[0.0, float("-inf"), 1.0]]))
print("masked categorical", dist.probs, dist.entropy(), dist.log_prob(torch.tensor([2])))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
m2 = PointerNet()
print("load", m2.load_state_dict(torch.load(buf)), len(model.state_dict()))
m2.eval()
with torch.no_grad():
    print("same", torch.equal(m2(test, mode="greedy")[0], g_tour))
