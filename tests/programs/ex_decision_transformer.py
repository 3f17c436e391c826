"""A Decision Transformer for offline RL (Chen et al. 2021; the kzl/decision-transformer and
nikhilbarhate99/min-decision-transformer idioms); own code, trajectories of a synthetic 1-D "reach the goal"
environment collected by a noisy scripted policy.

Returns-to-go by a reversed ``torch.cumsum`` (``flip``), per-timestep embeddings (``nn.Embedding`` of the
absolute step) added to return, state and action embeddings, the three tokens interleaved by ``torch.stack(...,
dim=1).permute(0, 2, 1, 3).reshape``; a GPT block stack with a causal mask from ``torch.tril`` registered as a
buffer and ``masked_fill(-inf)``, attention masks for left-padded context windows; actions predicted from the
state tokens (``x[:, 1]``) with a ``tanh`` head and an MSE loss on the non-padded positions; AdamW with a
``LambdaLR`` linear warmup, ``clip_grad_norm_(0.25)``; evaluation rollouts conditioned on a target return under
``torch.no_grad`` with a sliding context; bfloat16 ``autocast``; ``torch.compile`` of the action head; a
``state_dict`` round trip."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
S_DIM, A_DIM, K, MAX_T, D = 2, 1, 6, 16, 32


def env_step(pos, goal, a):
    pos = pos + 0.3 * a.clamp(-1, 1)
    r = -(pos - goal).abs()
    return pos, r


def collect(n):
    trajs = []
    for _ in range(n):
        pos, goal = torch.rand(1) * 2 - 1, torch.rand(1) * 2 - 1
        skill = torch.rand(1).item()
        states, actions, rewards = [], [], []
        for t in range(MAX_T):
            s = torch.cat([pos, goal])
            a = (skill * torch.sign(goal - pos) + (1 - skill) * torch.randn(1)).clamp(-1, 1)
            pos, r = env_step(pos, goal, a)
            states.append(s)
            actions.append(a)
            rewards.append(r)
        trajs.append((torch.stack(states), torch.stack(actions), torch.cat(rewards)))
    return trajs


def returns_to_go(rewards):
    return torch.flip(torch.cumsum(torch.flip(rewards, [0]), 0), [0])


trajs = collect(24)
rtg0 = returns_to_go(trajs[0][2])
print("rtg", rtg0[:3], f"{rtg0[0].item():.4f} == {trajs[0][2].sum().item():.4f}")
all_returns = torch.stack([t[2].sum() for t in trajs])
print(f"returns mean {all_returns.mean().item():.4f} max {all_returns.max().item():.4f}")
scale = 10.0


def get_batch(bs):
    idx = torch.randint(0, len(trajs), (bs,))
    s, a, r, ts, m = [], [], [], [], []
    for i in idx.tolist():
        st, ac, rw = trajs[i]
        end = int(torch.randint(1, MAX_T + 1, (1,)))
        start = max(0, end - K)
        pad = K - (end - start)
        rtg = returns_to_go(rw)[start:end] / scale
        s.append(F.pad(st[start:end], (0, 0, pad, 0)))
        a.append(F.pad(ac[start:end], (0, 0, pad, 0), value=-10.0))
        r.append(F.pad(rtg, (pad, 0)).unsqueeze(-1))
        ts.append(F.pad(torch.arange(start, end), (pad, 0)))
        m.append(torch.cat([torch.zeros(pad), torch.ones(end - start)]))
    return torch.stack(s), torch.stack(a), torch.stack(r), torch.stack(ts), torch.stack(m)


class Block(nn.Module):
    def __init__(self, n_head=2):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D), nn.Dropout(0.1))
        self.n_head = n_head
        self.register_buffer("causal", torch.tril(torch.ones(3 * K, 3 * K)).view(1, 1, 3 * K, 3 * K))

    def attn(self, x, key_mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.causal[:, :, :T, :T] == 0, float("-inf"))
        att = att.masked_fill(~key_mask[:, None, None, :], -1e4)
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))

    def forward(self, x, key_mask):
        x = x + self.attn(self.ln1(x), key_mask)
        return x + self.mlp(self.ln2(x))


class DecisionTransformer(nn.Module):
    def __init__(self, n_layer=2):
        super().__init__()
        self.embed_t = nn.Embedding(MAX_T, D)
        self.embed_r = nn.Linear(1, D)
        self.embed_s = nn.Linear(S_DIM, D)
        self.embed_a = nn.Linear(A_DIM, D)
        self.ln = nn.LayerNorm(D)
        self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
        self.predict_a = nn.Sequential(nn.Linear(D, A_DIM), nn.Tanh())
        self.predict_s = nn.Linear(D, S_DIM)
        self.predict_r = nn.Linear(D, 1)

    def forward(self, s, a, r, ts, mask):
        B, T = s.shape[:2]
        te = self.embed_t(ts)
        tokens = torch.stack([self.embed_r(r) + te, self.embed_s(s) + te, self.embed_a(a) + te], dim=1)
        x = self.ln(tokens.permute(0, 2, 1, 3).reshape(B, 3 * T, D))
        key_mask = torch.stack([mask, mask, mask], dim=1).permute(0, 2, 1).reshape(B, 3 * T).bool()
        for blk in self.blocks:
            x = blk(x, key_mask)
        x = x.reshape(B, T, 3, D).permute(0, 2, 1, 3)
        return self.predict_r(x[:, 2]), self.predict_s(x[:, 2]), self.predict_a(x[:, 1])


model = DecisionTransformer()
s, a, r, ts, m = get_batch(4)
print("batch", tuple(s.shape), tuple(a.shape), tuple(r.shape), ts[0].tolist(), m[0].tolist())
print("params", sum(p.numel() for p in model.parameters()), "buffers", [n for n, _ in model.named_buffers()])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
warm = 4
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: min((st + 1) / warm, 1))
for step in range(16):
    s, a, r, ts, m = get_batch(16)
    _, _, a_pred = model(s, a, r, ts, m)
    sel = m.bool()
    loss = F.mse_loss(a_pred[sel], a[sel])
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    sched.step()
    if step % 4 == 3:
        print(f"step {step + 1} action mse {loss.item():.4f} gn {gn.item():.4f} lr {sched.get_last_lr()[0]:.6f}")


@torch.no_grad()
def rollout(target_return):
    model.eval()
    pos, goal = torch.tensor([-0.5]), torch.tensor([0.6])
    states = torch.zeros(0, S_DIM)
    actions = torch.zeros(0, A_DIM)
    rtgs = torch.zeros(0, 1)
    total = 0.0
    rtg = target_return / scale
    for t in range(MAX_T):
        states = torch.cat([states, torch.cat([pos, goal]).unsqueeze(0)])
        actions = torch.cat([actions, torch.zeros(1, A_DIM)])
        rtgs = torch.cat([rtgs, torch.tensor([[rtg]])])
        s_, a_, r_ = states[-K:], actions[-K:], rtgs[-K:]
        n = s_.size(0)
        pad = K - n
        ts_ = F.pad(torch.arange(t - n + 1, t + 1), (pad, 0))
        m_ = torch.cat([torch.zeros(pad), torch.ones(n)])
        _, _, a_pred = model(F.pad(s_, (0, 0, pad, 0))[None], F.pad(a_, (0, 0, pad, 0))[None],
                             F.pad(r_, (0, 0, pad, 0))[None], ts_[None], m_[None])
        act = a_pred[0, -1]
        actions[-1] = act
        pos, rew = env_step(pos, goal, act)
        total += rew.item()
        rtg = rtg - rew.item() / scale
    return total, pos.item()


for target in (-1.0, -4.0):
    ret, final = rollout(target)
    print(f"rollout target {target} return {ret:.4f} final pos {final:.4f}")

model.train()
with torch.autocast("cpu", dtype=torch.bfloat16):
    r_pred, s_pred, a_pred = model(*get_batch(2))
print("autocast", r_pred.dtype, s_pred.dtype, a_pred.dtype, tuple(a_pred.shape))

head = torch.compile(model.predict_a)
with torch.no_grad():
    h = torch.randn(3, K, D)
    print("compiled head", torch.allclose(head(h), model.predict_a(h), atol=1e-6))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf)
m2 = DecisionTransformer()
print("load", m2.load_state_dict(sd), "blocks.0.causal" in sd, sd["blocks.0.causal"][0, 0, :3, :3].tolist())
model.eval()
m2.eval()
with torch.no_grad():
    batch = get_batch(3)
    print("same", torch.equal(m2(*batch)[2], model(*batch)[2]))
