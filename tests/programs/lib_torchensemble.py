"""torchensemble: each ensemble (Fusion, Voting soft/hard, Bagging, GradientBoosting with shrinkage, Snapshot
ensemble with its cyclic learning rate, SoftGradientBoosting, Adversarial training, FastGeometric, NeuralForest)
fitted a few epochs on seeded synthetic classification and regression data with its own optimizer and scheduler
settings, then evaluate/predict; and a save/load round trip through torchensemble.utils.io."""
import logging
import tempfile
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
import torchensemble as te  # noqa: E402
from torchensemble.utils import io  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


torch.manual_seed(0)
X = torch.randn(80, 6)
yc = (X[:, 0] + X[:, 1] * X[:, 2] > 0).long()
yr = (X[:, 0] - 0.5 * X[:, 3]).unsqueeze(1)


def loaders(y, x):
    g = torch.Generator().manual_seed(1)
    return (DataLoader(TensorDataset(x[:64], y[:64]), batch_size=16, shuffle=True, generator=g),
            DataLoader(TensorDataset(x[64:], y[64:]), batch_size=16))


class MLP(nn.Module):
    def __init__(self, out=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, out))

    def forward(self, x):
        return self.net(x)


class Reg(MLP):
    def __init__(self):
        super().__init__(out=1)


def fit(name, ens, y, epochs=3, sched=None, x=X, **kw):
    torch.manual_seed(2)
    ens.set_optimizer("Adam", lr=1e-2, weight_decay=1e-4)
    if sched is not None:
        ens.set_scheduler(*sched[:1], **sched[1])
    train, test = loaders(y, x)
    ens.fit(train, epochs=epochs, save_model=False, **kw)
    ev = ens.evaluate(test)
    pred = ens.predict(x[64:])
    print(name, len(ens), r(ev), list(pred.shape), [r(v) for v in pred[:6, -1].tolist()])
    return ens


common = dict(estimator=MLP, n_estimators=2, cuda=False)
fit("fusion", te.FusionClassifier(**common), yc, sched=("StepLR", dict(step_size=1, gamma=0.5)))
fit("voting soft", te.VotingClassifier(**common), yc, sched=("CosineAnnealingLR", dict(T_max=3)))
fit("voting hard", te.VotingClassifier(voting_strategy="hard", **common), yc)
fit("bagging", te.BaggingClassifier(**common), yc)
fit("gradient boosting", te.GradientBoostingClassifier(shrinkage_rate=0.5, **common), yc, epochs=2)
fit("snapshot", te.SnapshotEnsembleClassifier(**common), yc, epochs=4)
fit("soft gb", te.SoftGradientBoostingClassifier(**common), yc)
fit("adversarial", te.AdversarialTrainingClassifier(**common), yc, epsilon=0.1, x=X.sigmoid())
fit("fast geometric", te.FastGeometricClassifier(**common), yc, epochs=4, cycle=2, lr_1=5e-2, lr_2=1e-3)
fit("neural forest", te.NeuralForestClassifier(n_estimators=2, depth=3, cuda=False), yc)

regs = dict(estimator=Reg, n_estimators=2, cuda=False)
fit("fusion reg", te.FusionRegressor(**regs), yr)
fit("voting reg", te.VotingRegressor(**regs), yr)
fit("bagging reg", te.BaggingRegressor(**regs), yr)
fit("gb reg", te.GradientBoostingRegressor(**regs), yr, epochs=2)
ens = fit("snapshot reg", te.SnapshotEnsembleRegressor(**regs), yr, epochs=4)

with tempfile.TemporaryDirectory() as d:
    io.save(ens, d, logging.getLogger())
    other = te.SnapshotEnsembleRegressor(**regs)
    with torch.serialization.safe_globals([nn.MSELoss]):  # (io.save stores the criterion module)
        io.load(other, d)
    print("loaded", len(other), torch.equal(other.predict(X), ens.predict(X)))
