"""torcheval (Meta's metrics) on a small classifier's predictions: class metrics updated batch by batch
(binary/multiclass/multilabel accuracy, precision, recall, F1, AUROC, AUPRC, binned curves, confusion
matrices), regression and aggregation metrics, ranking and text metrics, the functional forms, merge_state of
metrics updated on two "ranks", and state_dict/load_state_dict round trips."""
import torch
from torcheval import metrics as M
from torcheval.metrics import functional as F


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (tuple, list)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
x = torch.randn(96, 5)
y = (x[:, 0] + 0.5 * x[:, 1] > 0).long()
yc = (x[:, 2] > 0).long() + (x[:, 3] > 0.5).long()
model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(30):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), yc)
    loss.backward()
    opt.step()
print("train loss", r(loss))

with torch.no_grad():
    logits = model(x)
probs = logits.softmax(-1)
bscore = torch.sigmoid(x[:, 0] * 1.3 + 0.2 * x[:, 4])

# binary metrics, updated in three batches
binary = {
    "acc": M.BinaryAccuracy(threshold=0.5), "prec": M.BinaryPrecision(), "rec": M.BinaryRecall(),
    "f1": M.BinaryF1Score(), "auroc": M.BinaryAUROC(), "auprc": M.BinaryAUPRC(),
    "cm": M.BinaryConfusionMatrix(), "ne": M.BinaryNormalizedEntropy(),
    "bauroc": M.BinaryBinnedAUROC(threshold=5), "bauprc": M.BinaryBinnedAUPRC(threshold=5),
}
for i in range(0, 96, 32):
    for name, m in binary.items():
        if name == "ne":
            m.update(bscore[i:i + 32].double(), y[i:i + 32].double())
        else:
            m.update(bscore[i:i + 32], y[i:i + 32])
for name, m in binary.items():
    print("binary", name, r(m.compute()))

prc = M.BinaryPrecisionRecallCurve()
prc.update(bscore, y)
p, rc, t = prc.compute()
print("binary pr curve", p.shape[0], r(p.sum()), r(rc.sum()), r(t[:4]))
bprc = M.BinaryBinnedPrecisionRecallCurve(threshold=4)
bprc.update(bscore, y)
print("binary binned pr curve", r(bprc.compute()))
rfp = M.BinaryRecallAtFixedPrecision(min_precision=0.7)
rfp.update(bscore, y)
print("binary recall at precision", r(rfp.compute()))

# multiclass metrics
multi = {
    "acc_micro": M.MulticlassAccuracy(), "acc_macro": M.MulticlassAccuracy(average="macro", num_classes=3),
    "acc_none": M.MulticlassAccuracy(average=None, num_classes=3), "acc_top2": M.MulticlassAccuracy(k=2),
    "f1_macro": M.MulticlassF1Score(num_classes=3, average="macro"),
    "f1_weighted": M.MulticlassF1Score(num_classes=3, average="weighted"),
    "prec_macro": M.MulticlassPrecision(num_classes=3, average="macro"),
    "rec_none": M.MulticlassRecall(num_classes=3, average=None),
    "auroc": M.MulticlassAUROC(num_classes=3), "auprc": M.MulticlassAUPRC(num_classes=3),
    "cm": M.MulticlassConfusionMatrix(3), "bauroc": M.MulticlassBinnedAUROC(num_classes=3, threshold=5),
}
for i in range(0, 96, 48):
    for m in multi.values():
        m.update(probs[i:i + 48], yc[i:i + 48])
for name, m in multi.items():
    print("multiclass", name, r(m.compute()))
cmn = M.MulticlassConfusionMatrix(3, normalize="true")
cmn.update(logits.argmax(-1), yc)
print("multiclass cm normalized", r(cmn.compute()))
mprc = M.MulticlassPrecisionRecallCurve(num_classes=3)
mprc.update(probs, yc)
ps, rs, ts = mprc.compute()
print("multiclass pr curve", [int(v.shape[0]) for v in ps], r([v.sum() for v in rs]))

# multilabel
ml_target = torch.stack([y, (x[:, 2] > 0).long(), (x[:, 4] > 0.3).long()], 1)
ml_score = torch.sigmoid(torch.stack([x[:, 0], x[:, 2] * 0.8 + x[:, 1] * 0.3, x[:, 4] - 0.3], 1))
for crit in ["exact_match", "hamming", "overlap", "contain", "belong"]:
    m = M.MultilabelAccuracy(criteria=crit)
    m.update(ml_score, ml_target)
    print("multilabel acc", crit, r(m.compute()))
m = M.MultilabelAUPRC(num_labels=3, average=None)
m.update(ml_score, ml_target)
print("multilabel auprc", r(m.compute()))
m = M.TopKMultilabelAccuracy(criteria="hamming", k=2)
m.update(ml_score, ml_target)
print("topk multilabel acc", r(m.compute()))

# regression and aggregation
pred = x[:, 0] * 0.9 + 0.1
true = x[:, 0] + 0.05 * x[:, 1]
for name, m in [("mse", M.MeanSquaredError()), ("r2", M.R2Score()), ("r2_adj", M.R2Score(num_regressors=2))]:
    m.update(pred[:50], true[:50])
    m.update(pred[50:], true[50:])
    print("regression", name, r(m.compute()))
mse2 = M.MeanSquaredError(multioutput="raw_values")
mse2.update(torch.stack([pred, pred * 2], 1), torch.stack([true, true], 1))
print("regression mse raw", r(mse2.compute()))
for name, m in [("mean", M.Mean()), ("sum", M.Sum()), ("max", M.Max()), ("min", M.Min()), ("cat", M.Cat())]:
    m.update(x[:4, 0])
    m.update(x[4:7, 1])
    out = m.compute()
    print("aggregation", name, tuple(out.shape), r(out.sum()))
wm = M.Mean()
wm.update(torch.tensor([1.0, 2.0, 3.0]), weight=torch.tensor([0.5, 1.0, 2.0]))
print("weighted mean", r(wm.compute()))
psnr = M.PeakSignalNoiseRatio(data_range=1.0)
img = torch.rand(2, 3, 8, 8)
psnr.update(img, (img + 0.05 * torch.randn(2, 3, 8, 8)).clamp(0, 1))
print("psnr", r(psnr.compute(), 3))
ctr = M.ClickThroughRate()
ctr.update(y, weights=torch.rand(96))
print("ctr", r(ctr.compute()))
wc = M.WeightedCalibration()
wc.update(bscore, y.float())
print("weighted calibration", r(wc.compute()))

# ranking, text
hr = M.HitRate(k=2)
hr.update(probs, yc)
print("hit rate", r(hr.compute().mean()))
rr = M.ReciprocalRank()
rr.update(probs, yc)
print("reciprocal rank", r(rr.compute().mean()))
rp = M.RetrievalPrecision(k=10)
rp.update(bscore, y)
print("retrieval precision", r(rp.compute()))
ppl = M.Perplexity()
lm_logits = torch.randn(2, 6, 11)
lm_target = torch.randint(0, 11, (2, 6))
ppl.update(lm_logits, lm_target)
print("perplexity", r(ppl.compute()))
bleu = M.BLEUScore(n_gram=2)
bleu.update(["the cat sat on the mat", "a dog ran in the park"],
            [["the cat sat on a mat", "a cat sat on the mat"], ["a dog runs in the park"]])
print("bleu", r(bleu.compute()))
wer = M.WordErrorRate()
wer.update(["hello world how are you", "this is fine"], ["hello there how are you", "this is not fine"])
print("wer", r(wer.compute()))
wil = M.WordInformationLost()
wil.update(["hello world how are you"], ["hello there how are you"])
print("wil", r(wil.compute()))

# functional forms
print("f binary_auroc", r(F.binary_auroc(bscore, y)))
print("f binary_auprc", r(F.binary_auprc(bscore, y)))
print("f multiclass_f1", r(F.multiclass_f1_score(probs, yc, num_classes=3, average="macro")))
print("f multiclass_auroc", r(F.multiclass_auroc(probs, yc, num_classes=3, average=None)))
print("f multiclass_cm", r(F.multiclass_confusion_matrix(probs.argmax(-1), yc, 3)))
print("f r2", r(F.r2_score(pred, true)))
print("f auc", r(F.auc(torch.linspace(0, 1, 9), torch.linspace(0, 1, 9) ** 2)))
print("f binned curve", r(F.binary_binned_precision_recall_curve(bscore, y, threshold=3)[:2]))
print("f ne", r(F.binary_normalized_entropy(bscore.double(), y.double())))
print("f perplexity", r(F.perplexity(lm_logits, lm_target, ignore_index=3)))
print("f frequency_at_k", r(F.frequency_at_k(torch.tensor([0.3, 0.1, 0.6, 0.25]), 0.3)))

# merge_state: two "ranks" each saw half of the data
a, b = M.BinaryAUROC(), M.BinaryAUROC()
a.update(bscore[:40], y[:40])
b.update(bscore[40:], y[40:])
a.merge_state([b])
print("merged auroc", r(a.compute()))
a, b = M.MulticlassAccuracy(average="macro", num_classes=3), M.MulticlassAccuracy(average="macro", num_classes=3)
a.update(probs[:30], yc[:30])
b.update(probs[30:], yc[30:])
a.merge_state([b])
print("merged macro acc", r(a.compute()))

# state_dict round trip and reset
src = M.MulticlassConfusionMatrix(3)
src.update(probs, yc)
sd = src.state_dict()
print("state keys", sorted(sd), [tuple(v.shape) for k, v in sorted(sd.items())])
dst = M.MulticlassConfusionMatrix(3)
dst.load_state_dict(sd)
print("loaded cm", r(dst.compute()))
dst.reset()
print("reset cm", r(dst.compute().sum()))
src = M.Mean().to("cpu")
src.update(torch.tensor([2.0, 4.0]))
print("mean device", src.device, r(src.compute()))
