"""pytorch-tabnet: TabNetClassifier (sparsemax masks, categorical embeddings, an eval set with auc/accuracy/
logloss metrics, early-stopping history, class weights) and TabNetRegressor (entmax masks, a StepLR scheduler,
RegressionSMOTE augmentation, a multi-target regression) fitted a few epochs on small seeded numpy data sets;
predict, predict_proba, explain (the aggregated and per-step masks), feature_importances_, save_model/load_model
(a zip holding the network's state dict), warm start, TabNetPretrainer self-supervised pretraining and a
fine-tune from it, TabNetMultiTaskClassifier, and early stopping (best weights restored) with a custom
Metric, loss and Callback on scipy sparse inputs with grouped features and ClassificationSMOTE. Runs are short
and the classifiers' and pretrainer's learning rates small, so float rounding cannot grow into different sparsemax
supports (which make training chaotic at tabnet's default lr=2e-2)."""
import contextlib
import io
import os
import tempfile
import warnings

import numpy as np
import torch
from pytorch_tabnet.augmentations import RegressionSMOTE
from pytorch_tabnet.multitask import TabNetMultiTaskClassifier
from pytorch_tabnet.pretraining import TabNetPretrainer
from pytorch_tabnet.tab_model import TabNetClassifier, TabNetRegressor

warnings.filterwarnings("ignore")


def r(x, n=4):
    return round(float(x), n)


def rl(xs, n=4):
    return [r(v, n) for v in np.asarray(xs).flatten()]


def save(model, path):
    """save_model prints the (temporary, so varying) path it wrote: keep that line out of the output."""
    with contextlib.redirect_stdout(io.StringIO()):
        return model.save_model(path)


def hist(model):
    h = model.history.history
    return {k: rl(v) for k, v in sorted(h.items()) if k != "lr"}


rng = np.random.default_rng(0)
n = 256
X = rng.standard_normal((n, 6)).astype(np.float32)
X[:, 4] = rng.integers(0, 3, n)  # a categorical column with 3 levels
X[:, 5] = rng.integers(0, 4, n)  # one with 4 levels
logit = 1.5 * X[:, 0] - X[:, 1] + 0.8 * (X[:, 4] == 2) + 0.3 * rng.standard_normal(n)
y_cls = (logit > 0).astype(np.int64)
y_reg = (2 * X[:, 0] + np.sin(2 * X[:, 2]) - 0.5 * X[:, 3] + 0.1 * rng.standard_normal(n)).astype(np.float32)
Xtr, Xva = X[:192], X[192:]
probe = X[192:196]

# classifier with categorical embeddings and an eval set
clf = TabNetClassifier(n_d=8, n_a=8, n_steps=3, cat_idxs=[4, 5], cat_dims=[3, 4], cat_emb_dim=2, seed=0,
                       verbose=0, device_name="cpu", optimizer_params=dict(lr=1e-2))
clf.fit(Xtr, y_cls[:192], eval_set=[(Xtr, y_cls[:192]), (Xva, y_cls[192:])], eval_name=["train", "valid"],
        eval_metric=["auc", "accuracy", "logloss"], max_epochs=3, patience=10, batch_size=64,
        virtual_batch_size=32)
print("clf history", hist(clf))
print("clf best", clf.best_epoch, r(clf.best_cost), "params", sum(p.numel() for p in clf.network.parameters()))
print("clf predict", clf.predict(probe).tolist(), "classes", clf.classes_.tolist())
print("clf proba", [rl(row) for row in clf.predict_proba(probe)])
print("clf importances", rl(clf.feature_importances_))
M, masks = clf.explain(probe)
print("clf explain", list(M.shape), rl(M.sum(1)), len(masks), [rl(m.sum(1)) for m in masks.values()])
M_norm, _ = clf.explain(probe, normalize=True)
print("clf explain normalized", rl(M_norm.sum(1)))

with tempfile.TemporaryDirectory() as tmp:
    saved = save(clf, os.path.join(tmp, "clf"))
    print("clf saved", os.path.basename(saved))
    clf2 = TabNetClassifier(device_name="cpu")
    clf2.load_model(saved)
    print("clf reload", clf2.n_d, clf2.cat_dims, bool(np.allclose(clf2.predict_proba(probe), clf.predict_proba(probe))))

# warm start: continue training the same network with class weights
clf.fit(Xtr, y_cls[:192], eval_set=[(Xva, y_cls[192:])], eval_metric=["balanced_accuracy"], max_epochs=2,
        batch_size=64, virtual_batch_size=32, warm_start=True, weights=1)
print("clf warm", hist(clf), rl(clf.predict_proba(probe)[:, 1]))

# regressor: entmax masks, a StepLR schedule, SMOTE-style mixing augmentation
reg = TabNetRegressor(n_d=8, n_a=8, n_steps=2, mask_type="entmax", seed=0, verbose=0, device_name="cpu",
                      scheduler_fn=torch.optim.lr_scheduler.StepLR, scheduler_params=dict(step_size=2, gamma=0.5),
                      optimizer_params=dict(lr=2e-2), lambda_sparse=1e-4)
reg.fit(Xtr, y_reg[:192, None], eval_set=[(Xva, y_reg[192:, None])], eval_metric=["rmse", "mae", "mse"],
        max_epochs=4, batch_size=64, virtual_batch_size=32, augmentations=RegressionSMOTE(p=0.5, seed=0))
print("reg history", hist(reg), "lr", rl(reg.history.history["lr"], 6))
print("reg predict", rl(reg.predict(probe)))
print("reg importances", rl(reg.feature_importances_))
M, masks = reg.explain(probe)
print("reg explain", rl(M[0]), len(masks))
with tempfile.TemporaryDirectory() as tmp:
    saved = save(reg, os.path.join(tmp, "reg"))
    reg2 = TabNetRegressor(device_name="cpu")
    reg2.load_model(saved)
    print("reg reload", reg2.mask_type, rl(reg2.predict(probe)))

# two regression targets
Y2 = np.stack([y_reg, X[:, 1] - X[:, 2]], 1).astype(np.float32)
reg_mt = TabNetRegressor(n_d=4, n_a=4, n_steps=2, seed=1, verbose=0, device_name="cpu")
reg_mt.fit(Xtr, Y2[:192], eval_set=[(Xva, Y2[192:])], max_epochs=3, batch_size=64, virtual_batch_size=32)
print("reg 2-target", hist(reg_mt), [rl(row) for row in reg_mt.predict(probe[:2])])

# self-supervised pretraining, then a classifier fine-tuned from it
pre = TabNetPretrainer(n_d=8, n_a=8, n_steps=2, seed=0, verbose=0, device_name="cpu",
                       optimizer_params=dict(lr=5e-3), mask_type="sparsemax")
pre.fit(Xtr, eval_set=[Xva], max_epochs=3, batch_size=64, virtual_batch_size=32, pretraining_ratio=0.5)
print("pretrain history", hist(pre))
rec, emb = pre.predict(probe)
print("pretrain predict", list(rec.shape), list(emb.shape), r(np.abs(rec).mean()), r(np.abs(emb).mean()))
ft = TabNetClassifier(seed=0, verbose=0, device_name="cpu", optimizer_params=dict(lr=5e-3))
ft.fit(Xtr, y_cls[:192], eval_set=[(Xva, y_cls[192:])], max_epochs=2, batch_size=64, virtual_batch_size=32,
       from_unsupervised=pre)
print("finetune", ft.n_d, ft.n_steps, hist(ft), rl(ft.predict_proba(probe)[:, 0]))

# multi-task classification: two label columns
Ym = np.stack([y_cls, (X[:, 2] > 0).astype(np.int64)], 1)
mt = TabNetMultiTaskClassifier(n_d=4, n_a=4, n_steps=2, seed=0, verbose=0, device_name="cpu")
mt.fit(Xtr, Ym[:192], eval_set=[(Xva, Ym[192:])], eval_metric=["logloss"], max_epochs=3, batch_size=64,
       virtual_batch_size=32)
print("multitask", hist(mt), [p.tolist() for p in mt.predict(probe)],
      [[rl(row) for row in p] for p in mt.predict_proba(probe[:2])])

# early stopping restores the best weights; a custom Metric and a custom loss; scipy sparse inputs; grouped
# features; ClassificationSMOTE; a callback seeing the epoch logs
import scipy.sparse  # noqa: E402
from pytorch_tabnet.augmentations import ClassificationSMOTE  # noqa: E402
from pytorch_tabnet.callbacks import Callback  # noqa: E402
from pytorch_tabnet.metrics import Metric  # noqa: E402


class Brier(Metric):
    _name, _maximize = "brier", False

    def __call__(self, y_true, y_score):
        return float(np.mean((y_score[:, 1] - y_true) ** 2))


class Record(Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append((epoch, r(logs["loss"])))


def smooth_ce(y_pred, y_true):
    return torch.nn.functional.cross_entropy(y_pred, y_true, label_smoothing=0.1)


rec = Record()
es = TabNetClassifier(n_d=4, n_a=4, n_steps=2, seed=2, verbose=0, device_name="cpu", grouped_features=[[0, 1], [2, 3]],
                      optimizer_params=dict(lr=1e-2))
es.fit(scipy.sparse.csr_matrix(Xtr), y_cls[:192], eval_set=[(scipy.sparse.csr_matrix(Xva), y_cls[192:])],
       eval_metric=[Brier], loss_fn=smooth_ce, max_epochs=10, patience=1, batch_size=64, virtual_batch_size=32,
       callbacks=[rec], augmentations=ClassificationSMOTE(p=0.5, seed=0))
print("early stop", es.best_epoch, r(es.best_cost), len(es.history.history["loss"]), rec.seen)
print("early stop predict", rl(es.predict_proba(scipy.sparse.csr_matrix(probe))[:, 1]), rl(es.feature_importances_))
print("grouped explain", rl(es.explain(probe)[0][0]))
