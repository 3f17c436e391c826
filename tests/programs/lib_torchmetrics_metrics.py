"""torchmetrics on torch tensors: class metrics (update/forward/compute/reset), a MetricCollection, and the
functional metrics; prints each value (run once with real torch and once under ``python -m torchlike run``)."""
import torch
import torchmetrics
import torchmetrics.functional as TF
from torchmetrics import MetricCollection
from torchmetrics.classification import (AUROC, Accuracy, AveragePrecision, ConfusionMatrix, F1Score,
                                         Precision, Recall)
from torchmetrics.regression import MeanAbsoluteError, MeanSquaredError, PearsonCorrCoef, R2Score


def show(name, value):
    if isinstance(value, dict):
        for k in sorted(value):
            show(f"{name}.{k}", value[k])
        return
    v = value.detach().reshape(-1).tolist()
    print(name, str(value.dtype).replace("torch.", ""), tuple(value.shape), " ".join(f"{x:.6f}" for x in v))


torch.manual_seed(0)
n_cls = 4
batches = [(torch.randn(16, n_cls), torch.randint(0, n_cls, (16,))) for _ in range(3)]

acc = Accuracy(task="multiclass", num_classes=n_cls)
f1 = F1Score(task="multiclass", num_classes=n_cls, average="macro")
auroc = AUROC(task="multiclass", num_classes=n_cls)
for i, (logits, target) in enumerate(batches):
    show(f"acc.forward{i}", acc(logits, target))          # batch value, accumulates too
    f1.update(logits.softmax(-1), target)
    auroc.update(logits.softmax(-1), target)
show("acc.compute", acc.compute())
show("f1.compute", f1.compute())
show("auroc.compute", auroc.compute())
acc.reset()
acc.update(batches[0][0], batches[0][1])
show("acc.after_reset", acc.compute())

coll = MetricCollection({"acc": Accuracy(task="multiclass", num_classes=n_cls),
                         "prec": Precision(task="multiclass", num_classes=n_cls, average="macro"),
                         "rec": Recall(task="multiclass", num_classes=n_cls, average="weighted"),
                         "cm": ConfusionMatrix(task="multiclass", num_classes=n_cls)}, prefix="val_")
for logits, target in batches:
    coll.update(logits, target)
show("collection", coll.compute())

bin_p = torch.rand(40)
bin_t = (torch.rand(40) > 0.5).long()
show("binary_auroc", TF.auroc(bin_p, bin_t, task="binary"))
show("binary_ap", AveragePrecision(task="binary")(bin_p, bin_t))
show("binary_f1", TF.f1_score(bin_p, bin_t, task="binary"))
show("binary_acc_thr", TF.accuracy(bin_p, bin_t, task="binary", threshold=0.3))
show("multilabel_acc", TF.accuracy(torch.rand(8, 3), torch.randint(0, 2, (8, 3)), task="multilabel", num_labels=3))

mse, mae, r2, pear = MeanSquaredError(), MeanAbsoluteError(), R2Score(), PearsonCorrCoef()
for _ in range(3):
    p, t = torch.randn(20), torch.randn(20)
    t = 0.5 * p + t
    for m in (mse, mae, r2, pear):
        m.update(p, t)
for name, m in (("mse", mse), ("mae", mae), ("r2", r2), ("pearson", pear)):
    show(name, m.compute())
show("rmse", TF.mean_squared_error(p, t, squared=False) if "squared" in
     TF.mean_squared_error.__code__.co_varnames else TF.mean_squared_error(p, t).sqrt())
show("cosine", TF.pairwise_cosine_similarity(torch.randn(3, 5), torch.randn(2, 5)))
show("mape", TF.mean_absolute_percentage_error(p, t))
show("spearman", TF.spearman_corrcoef(p, t))
show("ssim", TF.structural_similarity_index_measure(torch.rand(2, 1, 16, 16), torch.rand(2, 1, 16, 16)))
show("psnr", TF.peak_signal_noise_ratio(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8), data_range=1.0))
show("stat_scores", TF.stat_scores(batches[0][0], batches[0][1], task="multiclass", num_classes=n_cls))

# text, retrieval, aggregation and wrappers
from torchmetrics.aggregation import CatMetric, MaxMetric, MeanMetric  # noqa: E402
from torchmetrics.retrieval import RetrievalMRR  # noqa: E402
from torchmetrics.text import BLEUScore, WordErrorRate  # noqa: E402
from torchmetrics.wrappers import BootStrapper, MetricTracker, MultitaskWrapper  # noqa: E402

show("bleu", BLEUScore()(["the cat sat on the mat"], [["a cat sat on the mat", "the cat is on the mat"]]))
show("wer", WordErrorRate()(["hello world foo"], ["hello there world"]))
show("mrr", RetrievalMRR()(torch.rand(6), torch.tensor([0, 1, 0, 1, 0, 1]),
                           indexes=torch.tensor([0, 0, 0, 1, 1, 1])))
mean, mx, cat = MeanMetric(), MaxMetric(), CatMetric()
for v in (1.0, 5.0, 3.0):
    mean.update(v)
    mx.update(v)
    cat.update(torch.tensor([v]))
show("aggregation", torch.cat([mean.compute().reshape(1), mx.compute().reshape(1), cat.compute()]))
tracker = MetricTracker(Accuracy(task="multiclass", num_classes=3))
for _ in range(3):
    tracker.increment()
    tracker.update(torch.randn(10, 3), torch.randint(0, 3, (10,)))
show("tracker", tracker.compute_all())
best, which = tracker.best_metric(return_step=True)
print("tracker.best", f"{best:.6f}", which)
boot = BootStrapper(Accuracy(task="multiclass", num_classes=3), num_bootstraps=5, sampling_strategy="multinomial")
boot.update(torch.randn(20, 3), torch.randint(0, 3, (20,)))
show("bootstrap", boot.compute())
multi = MultitaskWrapper({"cls": Accuracy(task="multiclass", num_classes=3), "reg": MeanSquaredError()})
show("multitask", multi({"cls": torch.randn(8, 3), "reg": torch.randn(8)},
                        {"cls": torch.randint(0, 3, (8,)), "reg": torch.randn(8)}))
print("version", torchmetrics.__version__)
