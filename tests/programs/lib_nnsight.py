"""nnsight interventions on small torch models, no download: NNsight wrapping an nn.Module (reading and saving
module inputs/outputs inside model.trace, editing an output in place and by assignment, an explicit invoke, gradients of an intermediate with backward, skip, cache, a session with two traces, edit() making a
persistent intervention, iterating over generation steps), and a tiny GPT-2 built from a config wrapped the
same way. Everything seeded, CPU."""
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")

from nnsight import NNsight  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(6, 8)
        self.act = nn.GELU()
        self.layer2 = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        h = self.act(self.layer1(x))
        h = self.norm(self.layer2(h) + h)
        return self.head(h)


torch.manual_seed(0)
net = Net()
model = NNsight(net)
x = torch.randn(4, 6)
plain = net(x)
print("plain", tuple(plain.shape), r(plain.sum()))

with model.trace(x):
    h1 = model.layer1.output.save()
    inp = model.layer2.input.save()
    out = model.output.save()
print("read", tuple(h1.shape), r(h1.sum()), r(inp.sum()), r(out.sum()), bool(torch.allclose(out, plain)))

with model.trace(x):
    model.layer1.output[:, :4] = 0
    edited = model.output.save()
print("edit in place", r(edited.sum()), r((edited - plain).abs().max()))

with model.trace(x):
    model.act.output = model.act.output * 2
    doubled = model.head.output.save()
print("edit assign", r(doubled.sum()))

with model.trace() as tracer:
    with tracer.invoke(x):
        model.layer2.output[:] = 0
        b = model.head.output.save()
print("invoke", tuple(b.shape), r(b.sum()))

with model.trace(x):
    l1 = model.layer1.output
    norm_out = model.norm.output.save()
    loss = model.output.sum()
    with loss.backward():
        g = l1.grad.save()
print("grad", tuple(g.shape), r(g.sum()), r(g.abs().max()), r(norm_out.std()))

with model.trace(x):
    model.layer2.skip(model.layer2.input)
    skipped = model.output.save()
print("skip", r(skipped.sum()))

with model.trace(x) as tracer:
    cache = tracer.cache()
print("cache", sorted(cache.keys())[:3], r(cache["model.layer1"].output.sum()))

with model.session():
    with model.trace(x):
        first = model.layer1.output.save()
    with model.trace(x * 2):
        model.layer1.output[:] = first
        mixed = model.output.save()
print("session", r(mixed.sum()), r((mixed - plain).abs().max()))

with model.edit() as (_, edited_model):
    edited_model.act.output[:] = 0
with edited_model.trace(x):
    e_out = edited_model.output.save()
with model.trace(x):
    n_out = model.output.save()
print("persistent edit", r(e_out.sum()), r(n_out.sum()))

# training through a trace: gradients reach the wrapped parameters
opt = torch.optim.SGD(net.parameters(), lr=0.1)
y = torch.tensor([0, 1, 2, 1])
losses = []
for step in range(4):
    opt.zero_grad()
    with model.trace(x):
        logits = model.output.save()
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    losses.append(r(loss))
print("train", losses, r(net.layer1.weight.grad.norm(), 5))

# a tiny GPT-2 built from a config
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

torch.manual_seed(0)
gpt = GPT2LMHeadModel(GPT2Config(n_layer=2, n_head=2, n_embd=16, vocab_size=40, n_positions=16, bos_token_id=0,
                                 eos_token_id=0))
gpt.eval()
lm = NNsight(gpt)
ids = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(1))
with lm.trace(ids):
    hidden = lm.transformer.h[0].output.save()
    attn_in = lm.transformer.h[1].attn.input.save()
    lm.transformer.h[1].mlp.output[:, -1] = 0
    logits = lm.lm_head.output.save()
h0 = hidden[0] if isinstance(hidden, tuple) else hidden
print("gpt2", tuple(h0.shape), r(h0.sum()), tuple(attn_in.shape), tuple(logits.shape), r(logits.sum()))
with lm.trace(ids):
    ref = lm.lm_head.output.save()
print("gpt2 clean", r(ref.sum()), r((ref - logits).abs().max()))

# operation-level access inside forwards (.source): a user's forward and torch's own modules' forwards
with model.trace(x):
    lin = model.layer1.source.F_linear_0.output.save()
with model.trace(x):
    act_in = model.source.self_act_0.output.save()
print("source", r(act_in.sum()), r(lin.sum()))
torch.manual_seed(2)
cnn = NNsight(nn.Sequential(nn.Conv2d(1, 2, 3), nn.SiLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Softmax(-1)))
img = torch.randn(2, 1, 6, 6)
with cnn.trace(img):
    conv = cnn[0].source.self__conv_forward_0.output.save()
    cnn[1].source.F_silu_0.output[:] = 1.0
    pooled = cnn[2].source.F_max_pool2d_0.output.save()
    probs = cnn[4].source.F_softmax_0.output.save()
print("module source", tuple(conv.shape), r(conv.sum()), r(pooled.sum()), tuple(probs.shape), r(probs.sum()))
