"""pytorch_optimizer (kozistr) training a small classifier: ~100 of its optimizers by name through
``load_optimizer`` (five steps each, the loss and the parameters' sums printed), ``create_optimizer`` with
weight-decay bans and Lookahead (and a compiled foreach step), a state_dict round trip, Ranger21, the SAM
family with closures (SAM, GSAM with its rho scheduler, FriendlySAM, LookSAM, WSAM, BSAM), second-order
optimizers reading a Hessian through ``create_graph`` (AdaHessian, SophiaH), Muon's parameter groups (and
AdaMuon, AdaGO, NorMuon, MuonClip), SpectralSphere (F.normalize over two dims), Adam-mini built from the model,
Lookahead/OrthoGrad/TRAC wrappers, ScheduleFree's train/eval switch, GaLore with a low-rank group, its
learning-rate schedulers and its loss functions.

Left out: optimizers that read eigen/singular-vector signs or a degenerate eigenbasis (SOAP, Conda, SPlus,
LoRA-RITE, Alice) and ones that amplify float rounding into visible changes (Kate, L-BFGS, SCION's bfloat16
Newton-Schulz): see docs/differences.md."""
import io

import torch
import torch.nn.functional as F

import pytorch_optimizer as po


def r(x, n=4):
    return round(float(x), n) + 0.0  # (+ 0.0: a sum that rounds to zero prints 0.0, whatever its sign)


g = torch.Generator().manual_seed(0)
X = torch.randn(16, 6, generator=g)
Y = torch.randint(0, 3, (16,), generator=g)


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))


def loss_of(m):
    return F.cross_entropy(m(X), Y)


def sums(m, n=4):
    return [r(p.sum(), n) for p in m.parameters()]


def train(name, make, steps=5, create_graph=False, closure=False, n=4):
    m = model()
    opt = make(m)
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_of(m)
        loss.backward(create_graph=create_graph)
        if closure == "loss":  # (AliG reads the loss only, under no_grad)
            opt.step(lambda: loss_of(m))
        elif closure:
            def again():
                opt.zero_grad()
                out = loss_of(m)
                out.backward()
                return out
            opt.step(again)
        else:
            opt.step()
    print(name, r(loss, n), sums(m, n))
    return m, opt


# ---- by name: every optimizer whose constructor takes (params, lr) ------------------------------------------
SKIP = {"soap", "conda", "splus", "lorarite", "alice", "kate", "lbfgs", "scion", "scionlight",  # see docstring
        "adalomo", "lomo", "adammini", "bsam", "ranger21", "demo", "spectralsphere", "alig",  # own constructors
        "muon", "muonclip", "adamuon", "adago", "normuon", "distributedmuon", "adahessian", "sophiah"}
for name in po.get_supported_optimizers():
    if name in SKIP:
        continue
    train(name, lambda m: po.load_optimizer(name)(m.parameters(), lr=1e-2))

# ---- create_optimizer: weight decay off for biases, Lookahead around AdamP --------------------------------
m, opt = train("create adamp lookahead",
               lambda m: po.create_optimizer(m, "adamp", lr=1e-2, weight_decay=1e-2, use_lookahead=True))
print("create groups", type(opt).__name__, [(len(gr["params"]), gr["weight_decay"]) for gr in opt.param_groups])
train("create lamb orthograd", lambda m: po.create_optimizer(m, "lamb", lr=1e-2, use_orthograd=True))
train("create lion compiled foreach", lambda m: po.create_optimizer(m, "lion", lr=1e-2, weight_decay=1e-2,
                                                                    compile=True, foreach=True))
m, opt = train("ranger", lambda m: po.create_optimizer(m, "ranger", lr=1e-2), steps=3)
buf = io.BytesIO()
torch.save(opt.state_dict(), buf)
buf.seek(0)
m2 = model()
m2.load_state_dict(m.state_dict())
opt2 = po.create_optimizer(m2, "ranger", lr=1e-2)
opt2.load_state_dict(torch.load(buf))
for mm, oo in ((m, opt), (m2, opt2)):
    for _ in range(2):
        oo.zero_grad()
        loss_of(mm).backward()
        oo.step()
print("ranger resumed", sums(m) == sums(m2), sums(m2), sorted(opt2.state_dict()["state"][0]))
train("lookahead sgd", lambda m: po.Lookahead(torch.optim.SGD(m.parameters(), lr=0.1), k=2, alpha=0.5))
train("trac adam", lambda m: po.TRAC(torch.optim.Adam(m.parameters(), lr=1e-2)))
train("ranger21", lambda m: po.Ranger21(m.parameters(), num_iterations=5, lr=1e-2))
train("alig", lambda m: po.AliG(m.parameters(), max_lr=0.1), closure="loss")

# ---- second order: Hessian-vector products through create_graph ------------------------------------------
torch.manual_seed(1)
train("adahessian", lambda m: po.AdaHessian(m.parameters(), lr=0.1), create_graph=True)
torch.manual_seed(1)
train("sophiah", lambda m: po.SophiaH(m.parameters(), lr=0.05, update_period=2), create_graph=True)

# ---- Muon: orthogonalised updates for hidden matrices, AdamW for the rest --------------------------------
def muon(m):
    hidden = [m[0].weight]
    rest = [m[0].bias, *m[2].parameters()]
    return po.Muon([dict(params=hidden, use_muon=True), dict(params=rest, use_muon=False)], lr=0.02)


train("muon", muon, n=3)
for name in ("adamuon", "adago", "normuon", "muonclip"):
    train(name, lambda m: po.load_optimizer(name)([dict(params=[m[0].weight], use_muon=True),
                                                   dict(params=[m[0].bias, *m[2].parameters()], use_muon=False)],
                                                  lr=0.02), n=3)
train("spectralsphere", lambda m: po.load_optimizer("spectralsphere")([m[0].weight, m[2].weight], lr=0.02), n=3)
train("adammini", lambda m: po.AdamMini(m, lr=1e-2))

# ---- the SAM family: two forward/backward passes per step ------------------------------------------------
train("sam adamw", lambda m: po.SAM(m.parameters(), torch.optim.AdamW, rho=0.05, lr=1e-2), closure=True)
train("sam adaptive sgd", lambda m: po.SAM(m.parameters(), torch.optim.SGD, adaptive=True, rho=0.5, lr=0.1),
      closure=True)
train("friendlysam", lambda m: po.FriendlySAM(m.parameters(), torch.optim.SGD, lr=0.1), closure=True)
train("looksam", lambda m: po.LookSAM(m.parameters(), torch.optim.SGD, k=2, lr=0.1), closure=True)
train("wsam", lambda m: po.WSAM(m, m.parameters(), torch.optim.SGD, lr=0.1), closure=True)
train("bsam", lambda m: po.BSAM(m.parameters(), num_data=16, lr=0.05), closure=True)

m = model()
base = torch.optim.SGD(m.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(base, T_max=5)
rho = po.ProportionScheduler(sched, max_lr=0.1, min_lr=0.0, max_value=0.1, min_value=0.01)
gsam = po.GSAM(m.parameters(), base, m, rho)
for _ in range(5):
    gsam.set_closure(F.cross_entropy, X, Y)
    pred, loss = gsam.step()
    sched.step()
    gsam.update_rho_t()
print("gsam", r(loss), sums(m), r(gsam.rho_t, 5))

# ---- ScheduleFree: parameters differ between train() and eval() -----------------------------------------
m, opt = train("schedulefree adamw warmup", lambda m: po.ScheduleFreeAdamW(m.parameters(), lr=1e-2, warmup_steps=2))
opt.eval()
print("schedulefree eval", sums(m), r(loss_of(m)))
opt.train()
print("schedulefree train", sums(m))

# ---- GaLore: a rank-2 projection of the hidden weight --------------------------------------------------
def galore(m):
    return po.GaLore([dict(params=[m[0].weight], rank=2, update_proj_gap=2, scale=0.5, projection_type="std"),
                      dict(params=[m[0].bias, *m[2].parameters()])], lr=1e-2)


train("galore rank2", galore)

# ---- learning-rate schedulers -----------------------------------------------------------------------------
def lrs(sched, opt, steps):
    out = []
    for _ in range(steps):
        out.append(r(opt.param_groups[0]["lr"], 6))
        opt.step()
        sched.step()
    return out


opt = torch.optim.SGD(model().parameters(), lr=0.1)
s = po.CosineAnnealingWarmupRestarts(opt, first_cycle_steps=4, max_lr=0.1, min_lr=0.001, warmup_steps=1, gamma=0.5)
print("cosine warmup restarts", lrs(s, opt, 10))
opt = torch.optim.SGD(model().parameters(), lr=0.1)
print("chebyshev", lrs(po.get_chebyshev_schedule(opt, num_epochs=8), opt, 8))
opt = torch.optim.SGD(model().parameters(), lr=0.1)
print("linear warmup", lrs(po.LinearScheduler(opt, t_max=8, max_lr=0.1, min_lr=0.01, init_lr=0.001,
                                             warmup_steps=3), opt, 8))
opt = torch.optim.SGD(model().parameters(), lr=0.1)
print("wsd", lrs(po.get_wsd_schedule(opt, 2, 3, 3, min_lr_ratio=0.1), opt, 8))
opt = torch.optim.SGD(model().parameters(), lr=0.1)
print("rex", lrs(po.load_lr_scheduler("rex")(opt, total_steps=6, max_lr=0.1, min_lr=0.0), opt, 6))

# ---- losses -----------------------------------------------------------------------------------------------
torch.manual_seed(2)
logits = torch.randn(8, 3, requires_grad=True)
labels = torch.randint(0, 3, (8,))
bin_logits = torch.randn(8, requires_grad=True)
bin_labels = (torch.rand(8) > 0.5).float()
seg = torch.randn(2, 3, 4, 4, requires_grad=True)
seg_y = torch.randint(0, 3, (2, 4, 4))
losses = {
    "focal": lambda: po.FocalLoss(alpha=0.5, gamma=2.0)(bin_logits, bin_labels),
    "bcefocal": lambda: po.BCEFocalLoss(label_smooth=0.1)(bin_logits, bin_labels),
    "bce": lambda: po.BCELoss(label_smooth=0.1)(bin_logits.sigmoid(), bin_labels),
    "ldam": lambda: po.LDAMLoss([10, 5, 2], max_m=0.5, s=10.0)(logits, labels),
    "focalcosine": lambda: po.FocalCosineLoss()(logits, labels),
    "bitempered": lambda: po.BiTemperedLogisticLoss(t1=0.8, t2=1.2, label_smooth=0.1)(logits, labels),
    "dice multiclass": lambda: po.DiceLoss("multiclass")(seg, seg_y),
    "dice binary log": lambda: po.DiceLoss("binary", log_loss=True)(bin_logits.view(2, 1, 4), bin_labels.view(2, 1, 4)),
    "jaccard multiclass": lambda: po.JaccardLoss("multiclass")(seg, seg_y),
    "softf1": lambda: po.SoftF1Loss()(bin_logits.sigmoid(), bin_labels),
    "tversky": lambda: po.TverskyLoss(alpha=0.3, beta=0.7)(bin_logits, bin_labels),
    "focaltversky": lambda: po.FocalTverskyLoss(gamma=2.0)(bin_logits, bin_labels),
    "lovaszhinge": lambda: po.LovaszHingeLoss()(seg[:, 0], (seg_y == 1).float()),
}
for name, fn in losses.items():
    for t in (logits, bin_logits, seg):
        t.grad = None
    loss = fn()
    loss.backward()
    grads = [r(t.grad.abs().sum()) if t.grad is not None else None for t in (logits, bin_logits, seg)]
    print("loss", name, r(loss), grads)
