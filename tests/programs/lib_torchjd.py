"""torchjd (Jacobian descent): aggregators applied to a fixed Jacobian matrix (Mean, Sum, Constant, MGDA, PCGrad,
AlignedMTL, IMTL-G, ConFIG, Krum, TrimmedMean, GradDrop with a seeded mask) and their weightings; ``jac``
(vmapped vector-Jacobian products, in parallel and in chunks); ``backward`` filling ``.jac`` fields and
``jac_to_grad`` aggregating them into ``.grad`` for an SGD step on an instance-wise-risk regression; and
``mtl_backward`` on a two-task multi-task model trained a few steps with Adam."""
import torch
import torch.nn.functional as F
from torchjd import aggregation as A
from torchjd.autojac import backward, jac, jac_to_grad, mtl_backward


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)  # (PCGrad and GradDrop draw from the global generator)
J = torch.tensor([[-4.0, 1.0, 1.0], [6.0, 1.0, 1.0], [1.0, -2.0, 0.5], [0.5, 0.5, -1.0]])
aggregators = [("Mean", A.Mean()), ("Sum", A.Sum()), ("Constant", A.Constant(torch.tensor([0.5, 0.2, 0.2, 0.1]))),
               ("MGDA", A.MGDA()), ("PCGrad", A.PCGrad()), ("AlignedMTL", A.AlignedMTL()), ("IMTLG", A.IMTLG()),
               ("ConFIG", A.ConFIG()), ("Krum", A.Krum(n_byzantine=1)), ("TrimmedMean", A.TrimmedMean(trim_number=1))]
for name, agg in aggregators:
    print("aggregate", name, r(agg(J)))
print("repr", repr(A.MGDA()), repr(A.Constant(torch.tensor([1.0, 2.0]))))
print("graddrop", r(A.GradDrop()(J)))
print("weighting", r(A.MGDAWeighting()(J @ J.T)), r(A.IMTLGWeighting()(J @ J.T)))

# jac: one row per output, in parallel or in chunks
torch.manual_seed(1)
w = torch.randn(3, 4, requires_grad=True)
b = torch.randn(3, requires_grad=True)
x = torch.randn(4)
y = torch.tanh(w @ x + b)
jw, jb = jac(y, [w, b], retain_graph=True)
print("jac shapes", tuple(jw.shape), tuple(jb.shape), r(jw.sum()), r(jb))
jw2, jb2 = jac(y, [w, b], parallel_chunk_size=1)
print("jac chunked equal", torch.allclose(jw, jw2), torch.allclose(jb, jb2))

# backward + jac_to_grad: instance-wise risk minimisation with SGD
torch.manual_seed(2)
X = torch.randn(12, 5)
Y = X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 1.5]) + 0.1 * torch.randn(12)
model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    losses = (model(X).squeeze(1) - Y) ** 2
    opt.zero_grad()
    backward(losses)
    shapes = [tuple(p.jac.shape) for p in model.parameters()]
    jac_to_grad(model.parameters(), A.Mean())
    opt.step()
    print("iwrm", step, r(losses.mean()), r(model[0].weight.grad.norm()))
print("jac fields", shapes[:2], [getattr(p, "jac", None) is None for p in model.parameters()])

# mtl_backward: a shared trunk and two heads
torch.manual_seed(3)
trunk = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.ReLU())
head1, head2 = torch.nn.Linear(6, 1), torch.nn.Linear(6, 1)
params = [*trunk.parameters(), *head1.parameters(), *head2.parameters()]
opt = torch.optim.Adam(params, lr=1e-2)
Y2 = (X[:, 0] > 0).float()
for name, agg in [("MGDA", A.MGDA()), ("PCGrad", A.PCGrad()), ("AlignedMTL", A.AlignedMTL())]:
    for step in range(3):
        feats = trunk(X)
        l1 = F.mse_loss(head1(feats).squeeze(1), Y)
        l2 = F.binary_cross_entropy_with_logits(head2(feats).squeeze(1), Y2)
        opt.zero_grad()
        mtl_backward([l1, l2], features=feats)
        jac_to_grad(trunk.parameters(), agg)
        opt.step()
    print("mtl", name, r(l1), r(l2), r(trunk[0].weight.grad.sum()), r(head2.weight.grad))
