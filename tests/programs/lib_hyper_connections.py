"""hyper-connections: learned multi-stream residuals (HyperConnections: static and tanh-gated dynamic alpha/beta
mixing), their manifold-constrained form (mHC: Sinkhorn-Knopp doubly stochastic mixing, plain and log-domain),
fractional streams, channel-first conv branches, decorate_branch, and the package's mHCv2 ViT trained on seeded
images with Adam for a few steps (a few steps each: every new shape compiles under the runner)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from hyper_connections import get_init_and_expand_reduce_stream_functions, mc_get_init_and_expand_reduce_stream_functions
from hyper_connections.manifold_constrained_hyper_connections import log_domain_sinkhorn_knopps, sinkhorn_knopps
from hyper_connections.vit import ViT


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n) + 0.0
        return [round(float(v), n) + 0.0 for v in x.flatten()]
    return round(float(x), n) + 0.0


def stack_of(init, expand, reduce, dim, depth):
    torch.manual_seed(10)
    branches = nn.ModuleList([init(dim=dim, branch=nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()),
                                   layer_index=i) for i in range(depth)])

    def run(x):
        h = expand(x)
        for b in branches:
            h = b(h)
        return reduce(h)
    return branches, run


torch.manual_seed(0)
x = torch.randn(2, 5, 8)
target = torch.randn(2, 5, 8)

for name, fns in [("hc", get_init_and_expand_reduce_stream_functions(4)),
                  ("hc_frac", get_init_and_expand_reduce_stream_functions(2, num_fracs=2)),
                  ("mhc", mc_get_init_and_expand_reduce_stream_functions(4, sinkhorn_iters=10)),
                  ("mhc_log", mc_get_init_and_expand_reduce_stream_functions(3, log_domain_sinkhorn=True))]:
    branches, run = stack_of(*fns, dim=8, depth=2)
    out = run(x)
    print(name, "out", tuple(out.shape), sum(p.numel() for p in branches.parameters()), r(out.mean()), r(out.std()))
    opt = torch.optim.Adam(branches.parameters(), lr=1e-2)
    for step in range(2):
        opt.zero_grad()
        loss = F.mse_loss(run(x), target)
        loss.backward()
        opt.step()
    print(name, "train", r(loss))

# the manifold constraint: Sinkhorn-Knopp makes mixing matrices doubly stochastic
torch.manual_seed(1)
logits = torch.randn(2, 4, 4)
for fn in (sinkhorn_knopps, log_domain_sinkhorn_knopps):
    m = fn(logits, iters=30)
    print(fn.__name__, r(m.sum(-1)[0]), r(m.sum(-2)[0]), r(m[0, 0]))

# manual width / depth connections on a decorated branch
init, expand, reduce = get_init_and_expand_reduce_stream_functions(4)
torch.manual_seed(2)
hc = init(dim=8)
branch = nn.Linear(8, 8)
h = expand(x)
branch_input, add_residual = hc(h)
manual = reduce(add_residual(branch(branch_input)))
decorated = reduce(hc.decorate_branch(branch)(h))
print("manual", tuple(branch_input.shape), r(manual[0, 0, :4]), torch.allclose(manual, decorated, atol=1e-6))

# channel-first streams around a conv branch
init, expand, reduce = get_init_and_expand_reduce_stream_functions(2)
torch.manual_seed(3)
conv_hc = init(dim=4, branch=nn.Conv2d(4, 4, 3, padding=1), channel_first=True)
img = torch.randn(2, 4, 6, 6)
y = reduce(conv_hc(expand(img)))
print("channel_first", tuple(y.shape), r(y.mean()), r(y.abs().max()))

# the package's mHCv2 vision transformer
torch.manual_seed(4)
vit = ViT(image_size=8, patch_size=4, num_classes=3, dim=16, depth=2, heads=2, dim_head=8, mlp_dim=32,
          num_residual_streams=2)
images = torch.rand(6, 3, 8, 8)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
opt = torch.optim.Adam(vit.parameters(), lr=3e-3)
print("vit params", sum(p.numel() for p in vit.parameters()))
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(vit(images), labels)
    loss.backward()
    opt.step()
    if step != 1:
        print("vit", step, r(loss))
with torch.no_grad():
    print("vit eval", r(vit.eval()(images[:2]).softmax(-1)))
