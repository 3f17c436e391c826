"""skorch: NeuralNetClassifier/NeuralNetRegressor fit on numpy data (its own train/valid split, callbacks,
history), predict/predict_proba/score, and a scikit-learn Pipeline + GridSearchCV around the net."""
import numpy as np
import torch
import torch.nn as nn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from skorch import NeuralNetClassifier, NeuralNetRegressor
from skorch.callbacks import EpochScoring, LRScheduler

rng = np.random.RandomState(0)
X = rng.randn(120, 6).astype(np.float32)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)


class Clf(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, X):
        return self.net(X)


torch.manual_seed(0)
net = NeuralNetClassifier(Clf, criterion=nn.CrossEntropyLoss, max_epochs=4, lr=0.1, optimizer=torch.optim.SGD, batch_size=32, verbose=0,
                          iterator_train__shuffle=False,
                          callbacks=[EpochScoring("accuracy", name="train_acc", on_train=True),
                                     LRScheduler(policy=torch.optim.lr_scheduler.StepLR, step_size=2)])
net.fit(X, y)
for row in net.history:
    print(f"epoch {row['epoch']} train_loss {row['train_loss']:.5f} valid_loss {row['valid_loss']:.5f} "
          f"valid_acc {row['valid_acc']:.4f} train_acc {row['train_acc']:.4f}")
proba = net.predict_proba(X[:4])
print("proba", " ".join(f"{v:.5f}" for v in proba.ravel()), proba.dtype)
print("pred", net.predict(X[:8]).tolist(), f"score {net.score(X, y):.4f}")

torch.manual_seed(1)
reg = NeuralNetRegressor(nn.Sequential(nn.Linear(6, 4), nn.Tanh(), nn.Linear(4, 1)), max_epochs=3, lr=0.05,
                         verbose=0, train_split=None, iterator_train__shuffle=False)
reg.fit(X, (X[:, :1] * 2).astype(np.float32))
print("reg", " ".join(f"{r['train_loss']:.5f}" for r in reg.history), f"{reg.predict(X[:2]).ravel()[0]:.5f}")

torch.manual_seed(2)
pipe = Pipeline([("scale", StandardScaler()),
                 ("net", NeuralNetClassifier(Clf, criterion=nn.CrossEntropyLoss, max_epochs=2, lr=0.1, verbose=0, train_split=None,
                                             iterator_train__shuffle=False))])
gs = GridSearchCV(pipe, {"net__module__hidden": [4, 8]}, cv=2, scoring="accuracy", refit=False)
gs.fit(X, y)
print("grid", " ".join(f"{v:.4f}" for v in gs.cv_results_["mean_test_score"]))
