"""mup (maximal update parametrization): an MLP and a tiny tied-embedding language model with MuReadout /
MuSharedReadout heads, base shapes from a narrow base and a delta model (set_base_shapes rescales the readout and
the biases), mup's width-aware initialisers (normal_, uniform_, ones_, xavier_normal_, kaiming_*, trunc_normal_,
which call torch.nn.init's private _no_grad_* helpers and fan calculators), MuAdam / MuAdamW / MuSGD splitting
parameters into per-width-multiplier groups, a few training steps at two widths, base shapes saved to and loaded
from a YAML file, and the coordinate check (forward hooks recording activation sizes into a pandas DataFrame)."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import mup
from mup import MuAdam, MuAdamW, MuReadout, MuSGD, MuSharedReadout, get_shapes, make_base_shapes, set_base_shapes
from mup.coord_check import get_coord_data


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


class MLP(nn.Module):
    def __init__(self, width, d_in=12, d_out=5):
        super().__init__()
        self.fc1 = nn.Linear(d_in, width)
        self.fc2 = nn.Linear(width, width)
        self.readout = MuReadout(width, d_out, output_mult=2.0)

    def forward(self, x):
        return self.readout(F.relu(self.fc2(F.relu(self.fc1(x)))))


class TinyLM(nn.Module):
    def __init__(self, width, vocab=17):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.ln = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.head = MuSharedReadout(self.emb.weight, bias=False)

    def forward(self, idx):
        h = self.emb(idx)
        h = h + torch.tanh(self.mix(self.ln(h)))
        return self.head(h)


def init_mlp(model):
    for name, p in model.named_parameters():
        if name == "fc1.weight":
            mup.kaiming_uniform_(p, a=5 ** 0.5)
        elif name == "fc2.weight":
            mup.xavier_normal_(p)
        elif name.endswith("bias") and "readout" not in name:
            mup.uniform_(p, -0.1, 0.1)
    return model


torch.manual_seed(0)
x = torch.randn(32, 12)
y = torch.randint(0, 5, (32,))
base = MLP(8)
delta = MLP(16)
base_shapes = make_base_shapes(base, delta)
print("base shapes", sorted((k, v) for k, v in get_shapes(base).items())[:3])
for width in [16, 64]:
    torch.manual_seed(1)
    model = MLP(width)
    set_base_shapes(model, base_shapes)
    init_mlp(model)
    print("width", width, [(n, p.infshape.ninf(), round(p.infshape.width_mult(), 3))
                           for n, p in model.named_parameters()][:4])
    print("readout", r(model.readout.width_mult()), r(model.readout.weight.std()), r(model.fc2.weight.std()))
    for opt_name, make in [("adam", lambda ps: MuAdam(ps, lr=1e-2)),
                           ("adamw", lambda ps: MuAdamW(ps, lr=1e-2, weight_decay=0.1)),
                           ("sgd", lambda ps: MuSGD(ps, lr=0.1, momentum=0.9))]:
        torch.manual_seed(2)
        m = MLP(width)
        set_base_shapes(m, base_shapes)
        init_mlp(m)
        opt = make(m.parameters())
        groups = sorted((round(g["lr"], 5), round(g["weight_decay"], 5), len(g["params"])) for g in opt.param_groups)
        for step in range(5):
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
        print(opt_name, width, groups, r(loss), r(m.readout.weight.norm()))

# a second call would rescale twice: mup refuses
try:
    m._has_rescaled_params = True
    m.readout._rescale_parameters()
except RuntimeError as e:
    print("rescale twice", str(e).splitlines()[0][:60])

# tied embedding / readout, base shapes through a YAML file
torch.manual_seed(3)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "shapes.bsh")
    make_base_shapes(TinyLM(8), TinyLM(12), savefile=path)
    lm = TinyLM(32)
    set_base_shapes(lm, path)
mup.kaiming_normal_(lm.mix.weight, mode="fan_out", nonlinearity="tanh")
mup.normal_(lm.mix.bias, std=0.02)
mup.ones_(lm.ln.weight)
mup.trunc_normal_(lm.emb.weight, std=0.5)
print("lm init", r(lm.mix.weight.std()), r(lm.mix.bias.std()), r(lm.emb.weight.abs().max()))
print("tied", lm.head.weight is lm.emb.weight, lm.emb.weight.infshape.ninf(), r(lm.head.width_mult()))
idx = torch.randint(0, 17, (4, 9))
opt = MuAdam(lm.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    logits = lm(idx[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 17), idx[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("lm", step, r(loss), r(lm.emb.weight.grad.norm()))
sd = {k: v.clone() for k, v in lm.state_dict().items()}
lm2 = TinyLM(32)
set_base_shapes(lm2, get_shapes(TinyLM(8)), rescale_params=False, delta=get_shapes(TinyLM(12)))
lm2.load_state_dict(sd)
print("reloaded", r((lm2(idx) - lm(idx)).abs().max()), lm2.head.weight.infshape.width_mult())

# coordinate check: activation sizes after a few steps at three widths
def lazy(width):
    def f():
        m = MLP(width)
        set_base_shapes(m, base_shapes)
        return init_mlp(m)
    return f


loader = [(x, y)]
df = get_coord_data({w: lazy(w) for w in [8, 16, 32]}, loader, optimizer="adam", lr=1e-2, nsteps=3,
                    cuda=False, show_progress=False)
print("coord rows", len(df), sorted(df.columns))
for (w, mod, t), l1 in sorted(df.set_index(["width", "module", "t"])["l1"].items())[:6]:
    print("coord", w, mod, t, round(float(l1), 4))
print("coord readout", r([float(v) for v in df[df.module == "readout"].sort_values(["width", "t"]).l1]))
