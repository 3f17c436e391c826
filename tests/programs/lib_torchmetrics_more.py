"""torchmetrics beyond tests/programs/lib_torchmetrics_metrics.py: calibration, kappa, MCC, ranking AP (ranks an empty
selection: an empty index into an empty tensor), fairness, regression, image, audio, nominal, clustering and
segmentation metrics, and the functional API."""
import torch
import torchmetrics.functional as F
from torchmetrics.classification import (MulticlassCalibrationError, MultilabelF1Score, BinaryROC, MulticlassCohenKappa,
                                         MulticlassMatthewsCorrCoef, BinaryPrecisionRecallCurve, MultilabelAUROC,
                                         MulticlassJaccardIndex, BinaryHingeLoss, MulticlassSpecificity,
                                         BinaryFairness, MultilabelRankingAveragePrecision)
from torchmetrics.regression import (ExplainedVariance, CosineSimilarity, KendallRankCorrCoef, LogCoshError,
                                     MeanSquaredLogError, TweedieDevianceScore, KLDivergence, ConcordanceCorrCoef,
                                     SymmetricMeanAbsolutePercentageError, MinkowskiDistance)
from torchmetrics.image import PeakSignalNoiseRatio, StructuralSimilarityIndexMeasure, TotalVariation, \
    SpectralAngleMapper, UniversalImageQualityIndex, RelativeAverageSpectralError, ErrorRelativeGlobalDimensionlessSynthesis
from torchmetrics.audio import SignalNoiseRatio, ScaleInvariantSignalDistortionRatio, SignalDistortionRatio
from torchmetrics.nominal import CramersV, TheilsU
from torchmetrics.clustering import MutualInfoScore, RandScore, AdjustedRandScore, NormalizedMutualInfoScore
from torchmetrics.segmentation import DiceScore, MeanIoU
g = torch.Generator().manual_seed(0)
def f(v):
    if isinstance(v, torch.Tensor):
        return [round(x, 4) for x in v.flatten()[:10].tolist()]
    if isinstance(v, (tuple, list)):
        return [f(x) for x in v]
    if isinstance(v, dict):
        return {k: f(x) for k, x in v.items()}
    return v
logits = torch.randn(40, 4, generator=g); probs = logits.softmax(-1); tgt = torch.randint(0, 4, (40,), generator=g)
bp = torch.rand(40, generator=g); bt = torch.randint(0, 2, (40,), generator=g)
mlp = torch.rand(40, 3, generator=g); mlt = torch.randint(0, 2, (40, 3), generator=g)
groups = torch.randint(0, 2, (40,), generator=g)
for name, m, args in [("calib", MulticlassCalibrationError(4, n_bins=5), (probs, tgt)),
                      ("ml_f1", MultilabelF1Score(3, average=None), (mlp, mlt)),
                      ("roc", BinaryROC(thresholds=5), (bp, bt)), ("kappa", MulticlassCohenKappa(4, weights="quadratic"), (probs, tgt)),
                      ("mcc", MulticlassMatthewsCorrCoef(4), (probs, tgt)), ("prc", BinaryPrecisionRecallCurve(), (bp[:8], bt[:8])),
                      ("ml_auroc", MultilabelAUROC(3, average="macro"), (mlp, mlt)), ("jacc", MulticlassJaccardIndex(4), (probs, tgt)),
                      ("hinge", BinaryHingeLoss(squared=True), (bp, bt)), ("spec", MulticlassSpecificity(4, average="weighted"), (probs, tgt)),
                      ("fair", BinaryFairness(2), (bp, bt, groups)), ("ml_rap", MultilabelRankingAveragePrecision(3), (mlp, mlt))]:
    m.update(*[a[:20] for a in args]); m.update(*[a[20:] for a in args])
    print(name, f(m.compute()))
y = torch.randn(50, generator=g); yh = y + 0.3 * torch.randn(50, generator=g)
for name, m, args in [("ev", ExplainedVariance(), (yh, y)), ("cos", CosineSimilarity(reduction="mean"), (yh.view(10, 5), y.view(10, 5))),
                      ("kendall", KendallRankCorrCoef(variant="b"), (yh[:12], y[:12])), ("logcosh", LogCoshError(), (yh, y)),
                      ("msle", MeanSquaredLogError(), (yh.abs(), y.abs())), ("tweedie", TweedieDevianceScore(power=1.5), (yh.abs() + 0.1, y.abs())),
                      ("kl", KLDivergence(), (probs[:10], logits[10:20].softmax(-1))), ("ccc", ConcordanceCorrCoef(), (yh, y)),
                      ("smape", SymmetricMeanAbsolutePercentageError(), (yh, y)), ("mink", MinkowskiDistance(p=3), (yh, y))]:
    m.update(*args); print(name, f(m.compute()))
img = torch.rand(2, 3, 16, 16, generator=g); img2 = (img + 0.1 * torch.randn(2, 3, 16, 16, generator=g)).clamp(0, 1)
for name, m in [("psnr", PeakSignalNoiseRatio(data_range=1.0)), ("ssim", StructuralSimilarityIndexMeasure(data_range=1.0)),
                ("sam", SpectralAngleMapper()), ("uqi", UniversalImageQualityIndex()), ("rase", RelativeAverageSpectralError()),
                ("ergas", ErrorRelativeGlobalDimensionlessSynthesis())]:
    print(name, f(m(img2, img)))
print("tv", f(TotalVariation()(img)))
s = torch.randn(2, 400, generator=g); sh = s + 0.2 * torch.randn(2, 400, generator=g)
for name, m in [("snr", SignalNoiseRatio()), ("sisdr", ScaleInvariantSignalDistortionRatio()), ("sdr", SignalDistortionRatio())]:
    print(name, f(m(sh, s)))
a = torch.randint(0, 3, (60,), generator=g); b = (a + torch.randint(0, 2, (60,), generator=g)) % 3
print("cramers", f(CramersV(3)(a, b)), "theilsu", f(TheilsU(3)(a, b)))
for name, m in [("mi", MutualInfoScore()), ("rand", RandScore()), ("ari", AdjustedRandScore()), ("nmi", NormalizedMutualInfoScore())]:
    print(name, f(m(a, b)))
seg_p = torch.randint(0, 2, (2, 3, 8, 8), generator=g); seg_t = torch.randint(0, 2, (2, 3, 8, 8), generator=g)
print("dice", f(DiceScore(3, average="macro")(seg_p, seg_t)), "miou", f(MeanIoU(3)(seg_p, seg_t)))
# functional
print("f_auroc", f(F.auroc(probs, tgt, task="multiclass", num_classes=4, average=None)))
print("f_ap", f(F.average_precision(bp, bt, task="binary")))
print("f_f1", f(F.f1_score(probs, tgt, task="multiclass", num_classes=4, average="macro", top_k=2)))
print("f_fbeta", f(F.fbeta_score(mlp, mlt, task="multilabel", num_labels=3, beta=0.5)))
print("f_cm", f(F.confusion_matrix(probs, tgt, task="multiclass", num_classes=4, normalize="true")))
print("f_r2", f(F.r2_score(yh, y, adjusted=2)), "f_pearson", f(F.pearson_corrcoef(yh, y)))
print("f_mse_log", f(F.mean_squared_error(yh, y, squared=False)))
print("f_ndcg", f(F.retrieval_normalized_dcg(bp[:10], bt[:10], top_k=5)), f(F.retrieval_precision(bp[:10], bt[:10], top_k=3)))
print("f_ms_ssim", f(F.multiscale_structural_similarity_index_measure(torch.rand(1, 1, 64, 64, generator=g), torch.rand(1, 1, 64, 64, generator=g), data_range=1.0, betas=(0.5, 0.5), kernel_size=3)))
print("f_pairwise", f(F.pairwise_euclidean_distance(y.view(10, 5), yh.view(10, 5))), f(F.pairwise_manhattan_distance(y.view(10, 5))))
print("f_dice", f(F.dice(probs, tgt, average="micro")) if hasattr(F, "dice") else "nodice")
print("f_char", f(F.char_error_rate(["hello world", "abc"], ["hallo world", "abd"])), f(F.translation_edit_rate(["the cat sat"], [["the cat sat on"]])))
