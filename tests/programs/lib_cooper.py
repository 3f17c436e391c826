"""Cooper (cooper-optim): Lagrangian constrained optimisation in PyTorch. A logistic regression whose mean positive
rate is bounded (inequality, DenseMultiplier, simultaneous gradient descent-ascent with Adam primal / SGD dual), a
unit-norm equality constraint under the Augmented Lagrangian with a multiplicative penalty updater and alternating
updates, per-sample constraints through an IndexedMultiplier with extragradient optimisers, the nuPI dual
controller, an unconstrained baseline, and the CMP's state_dict; all on seeded synthetic data."""
import cooper
import torch
import torch.nn.functional as F
from cooper.multipliers import DenseMultiplier, IndexedMultiplier
from cooper.optim import (AlternatingDualPrimalOptimizer, ExtraSGD, ExtrapolationConstrainedOptimizer, SimultaneousOptimizer,
                          UnconstrainedOptimizer, nuPI)
from cooper.penalty_coefficients import DensePenaltyCoefficient, MultiplicativePenaltyCoefficientUpdater


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


torch.manual_seed(0)
X = torch.randn(64, 5)
y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * torch.randn(64) > -0.5).float()


class RateConstrained(cooper.ConstrainedMinimizationProblem):
    """Cross-entropy subject to mean(sigmoid(logits)) <= 0.4 and a sum of squared weights <= 2."""

    def __init__(self):
        super().__init__()
        self.rate = cooper.Constraint(constraint_type=cooper.ConstraintType.INEQUALITY, multiplier=DenseMultiplier(num_constraints=2))

    def compute_cmp_state(self, model):
        logits = model(X).squeeze(-1)
        loss = F.binary_cross_entropy_with_logits(logits, y)
        violation = torch.stack([torch.sigmoid(logits).mean() - 0.4, model.weight.pow(2).sum() - 2.0])
        return cooper.CMPState(loss=loss, observed_constraints={self.rate: cooper.ConstraintState(violation=violation)})


torch.manual_seed(1)
model = torch.nn.Linear(5, 1)
cmp = RateConstrained()
opt = SimultaneousOptimizer(cmp=cmp, primal_optimizers=torch.optim.Adam(model.parameters(), lr=0.05),
                            dual_optimizers=torch.optim.SGD(cmp.dual_parameters(), lr=0.5, maximize=True))
for step in range(30):
    out = opt.roll(compute_cmp_state_kwargs={"model": model})
    if step % 10 == 9:
        viol = out.cmp_state.observed_constraints[cmp.rate].violation
        print("rate", step, r(out.loss), r(viol), r(cmp.rate.multiplier.weight), r(out.primal_lagrangian_store.lagrangian))
print("rate multipliers >= 0", bool((cmp.rate.multiplier.weight >= 0).all()), "weights", r(model.weight))


class UnitNorm(cooper.ConstrainedMinimizationProblem):
    """Minimise a quadratic form subject to ||w||^2 == 1 (smallest eigenvector), Augmented Lagrangian."""

    def __init__(self):
        super().__init__()
        self.norm = cooper.Constraint(constraint_type=cooper.ConstraintType.EQUALITY, formulation_type=cooper.formulations.AugmentedLagrangian,
                                      multiplier=DenseMultiplier(num_constraints=1),
                                      penalty_coefficient=DensePenaltyCoefficient(init=torch.tensor([1.0])))

    def compute_cmp_state(self, w, A):
        loss = w @ A @ w
        return cooper.CMPState(loss=loss, observed_constraints={self.norm: cooper.ConstraintState(violation=(w @ w - 1.0).reshape(1))})


torch.manual_seed(2)
B = torch.randn(4, 4)
A = B @ B.T + torch.diag(torch.tensor([0.0, 1.0, 2.0, 3.0]))
w = torch.nn.Parameter(torch.randn(4))
unit = UnitNorm()
updater = MultiplicativePenaltyCoefficientUpdater(growth_factor=1.05, violation_tolerance=1e-2)
alt = AlternatingDualPrimalOptimizer(cmp=unit, primal_optimizers=torch.optim.SGD([w], lr=0.01),
                                     dual_optimizers=torch.optim.SGD(unit.dual_parameters(), lr=0.5, maximize=True))
for step in range(60):
    out = alt.roll(compute_cmp_state_kwargs={"w": w, "A": A})
    updater.step(out.cmp_state.observed_constraints)
    if step % 20 == 19:
        print("unit", step, r(out.loss), r(w.detach().norm()), r(unit.norm.multiplier.weight), r(unit.norm.penalty_coefficient.value))
print("eigen", r(torch.linalg.eigvalsh(A)[0]), r(w.detach() @ A @ w.detach() / (w.detach() @ w.detach())))


class PerSample(cooper.ConstrainedMinimizationProblem):
    """Regression whose per-sample residuals must stay below 0.5, one IndexedMultiplier entry per sample."""

    def __init__(self, n):
        super().__init__()
        self.res = cooper.Constraint(constraint_type=cooper.ConstraintType.INEQUALITY, multiplier=IndexedMultiplier(num_constraints=n))

    def compute_cmp_state(self, net, xb, yb, idx):
        res = (net(xb).squeeze(-1) - yb).abs()
        return cooper.CMPState(loss=res.pow(2).mean(),
                               observed_constraints={self.res: cooper.ConstraintState(violation=res - 0.5, constraint_features=idx)})


torch.manual_seed(3)
Xr = torch.randn(32, 3)
yr = Xr @ torch.tensor([1.0, -2.0, 0.5]) + 0.1 * torch.randn(32)
net = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
ps = PerSample(32)
ext = ExtrapolationConstrainedOptimizer(cmp=ps, primal_optimizers=ExtraSGD(net.parameters(), lr=0.05),
                                        dual_optimizers=ExtraSGD(ps.dual_parameters(), lr=0.2, maximize=True))
for step in range(12):
    idx = torch.arange(step * 8, step * 8 + 8) % 32
    out = ext.roll(compute_cmp_state_kwargs={"net": net, "xb": Xr[idx], "yb": yr[idx], "idx": idx})
    if step % 4 == 3:
        print("indexed", step, r(out.loss), r(ps.res.multiplier.weight.sum()), int((ps.res.multiplier.weight > 0).sum()))
print("indexed multipliers", r(ps.res.multiplier(torch.tensor([0, 5, 31]))))

# nuPI as the dual optimiser
torch.manual_seed(1)
model2 = torch.nn.Linear(5, 1)
cmp2 = RateConstrained()
opt2 = SimultaneousOptimizer(cmp=cmp2, primal_optimizers=torch.optim.SGD(model2.parameters(), lr=0.1, momentum=0.9),
                             dual_optimizers=nuPI(cmp2.dual_parameters(), lr=0.3, Kp=1.0, Ki=1.0, ema_nu=0.1, maximize=True))
for step in range(20):
    out = opt2.roll(compute_cmp_state_kwargs={"model": model2})
print("nupi", r(out.loss), r(cmp2.rate.multiplier.weight), r(model2.weight))

# an unconstrained problem through the same interface
class Plain(cooper.ConstrainedMinimizationProblem):
    def compute_cmp_state(self, model):
        return cooper.CMPState(loss=F.binary_cross_entropy_with_logits(model(X).squeeze(-1), y))


torch.manual_seed(1)
model3 = torch.nn.Linear(5, 1)
unc = UnconstrainedOptimizer(cmp=Plain(), primal_optimizers=torch.optim.Adam(model3.parameters(), lr=0.05))
for step in range(30):
    out = unc.roll(compute_cmp_state_kwargs={"model": model3})
print("unconstrained", r(out.loss), r(torch.sigmoid(model3(X)).mean()))

sd = cmp.state_dict()
fresh = RateConstrained()
fresh.load_state_dict(sd)
print("state_dict", sorted(sd), r(fresh.rate.multiplier.weight), sorted(opt.state_dict()))
