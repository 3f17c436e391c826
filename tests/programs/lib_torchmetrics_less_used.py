"""torchmetrics metrics the other programs do not reach: fixed-recall/precision curves, log-AUC/EER, stat scores,
multilabel ranking, retrieval at k, clustering indices, edit-distance text metrics, multi-scale SSIM, PSNR-B
(``torch.tensor(range(...))``), permutation-invariant training, segmentation, nominal association, running
aggregations and wrappers; each updated in two halves, then computed."""
import torch
import torchmetrics as tm
from torchmetrics import classification as C, regression as R, retrieval as RT, clustering as CL, text as T
from torchmetrics import image as I, audio as A, segmentation as S, nominal as N, wrappers as W, aggregation as G


def fmt(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {fmt(x)}" for k, x in sorted(v.items())) + "}"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if torch.is_tensor(v):
        return f"{tuple(v.shape)} " + " ".join(f"{x:.4f}" for x in v.double().flatten()[:8].tolist())
    return repr(v)


torch.manual_seed(0)
p2 = torch.rand(40)
t2 = torch.randint(0, 2, (40,))
pm = torch.randn(40, 4).softmax(-1)
tmc = torch.randint(0, 4, (40,))
pml = torch.rand(40, 3)
tml = torch.randint(0, 2, (40, 3))
yr = torch.randn(40)
yt = yr + 0.3 * torch.randn(40)
idx = torch.randint(0, 5, (40,))
img1, img2 = torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)
metrics = [
    ("BinaryPrecisionAtFixedRecall", lambda: C.BinaryPrecisionAtFixedRecall(0.5), (p2, t2)),
    ("BinaryRecallAtFixedPrecision", lambda: C.BinaryRecallAtFixedPrecision(0.5), (p2, t2)),
    ("BinarySpecificityAtSensitivity", lambda: C.BinarySpecificityAtSensitivity(0.5), (p2, t2)),
    ("BinaryAveragePrecision_thr", lambda: C.BinaryAveragePrecision(thresholds=10), (p2, t2)),
    ("BinaryStatScores", lambda: C.BinaryStatScores(), (p2, t2)),
    ("BinaryFBetaScore", lambda: C.BinaryFBetaScore(2.0), (p2, t2)),
    ("BinaryLogAUC", lambda: C.BinaryLogAUC(), (p2, t2)),
    ("BinaryEER", lambda: C.BinaryEER(), (p2, t2)),
    ("MulticlassStatScores", lambda: C.MulticlassStatScores(4, average=None), (pm, tmc)),
    ("MulticlassExactMatch", lambda: C.MulticlassExactMatch(4), (pm.argmax(-1)[None], tmc[None])),
    ("MulticlassROC", lambda: C.MulticlassROC(4, thresholds=5), (pm, tmc)),
    ("MulticlassAveragePrecision", lambda: C.MulticlassAveragePrecision(4, average="macro"), (pm, tmc)),
    ("MulticlassHammingDistance", lambda: C.MulticlassHammingDistance(4), (pm, tmc)),
    ("MulticlassHingeLoss", lambda: C.MulticlassHingeLoss(4), (pm, tmc)),
    ("MulticlassAccuracy_top2", lambda: C.MulticlassAccuracy(4, top_k=2, average="micro"), (pm, tmc)),
    ("MultilabelCoverageError", lambda: C.MultilabelCoverageError(3), (pml, tml)),
    ("MultilabelRankingLoss", lambda: C.MultilabelRankingLoss(3), (pml, tml)),
    ("MultilabelHammingDistance", lambda: C.MultilabelHammingDistance(3), (pml, tml)),
    ("MultilabelExactMatch", lambda: C.MultilabelExactMatch(3), (pml, tml)),
    ("MultilabelF1", lambda: C.MultilabelF1Score(3, average="weighted"), (pml, tml)),
    ("MultilabelPRCurve", lambda: C.MultilabelPrecisionRecallCurve(3, thresholds=4), (pml, tml)),
    ("R2Score", lambda: R.R2Score(), (yr, yt)),
    ("SpearmanCorrCoef", lambda: R.SpearmanCorrCoef(), (yr, yt)),
    ("MeanAbsolutePercentageError", lambda: R.MeanAbsolutePercentageError(), (yr, yt)),
    ("WeightedMAPE", lambda: R.WeightedMeanAbsolutePercentageError(), (yr, yt)),
    ("CriticalSuccessIndex", lambda: R.CriticalSuccessIndex(0.5), (yr, yt)),
    ("NormalizedRootMeanSquaredError", lambda: R.NormalizedRootMeanSquaredError(), (yr, yt)),
    ("ContinuousRankedProbabilityScore", lambda: R.ContinuousRankedProbabilityScore(), (torch.randn(10, 5), torch.randn(10))),
    ("JensenShannonDivergence", lambda: R.JensenShannonDivergence(), (pm, torch.randn(40, 4).softmax(-1))),
    ("RetrievalNormalizedDCG", lambda: RT.RetrievalNormalizedDCG(top_k=3), (p2, t2, idx)),
    ("RetrievalPrecision", lambda: RT.RetrievalPrecision(top_k=2), (p2, t2, idx)),
    ("RetrievalRecall", lambda: RT.RetrievalRecall(top_k=2), (p2, t2, idx)),
    ("RetrievalHitRate", lambda: RT.RetrievalHitRate(top_k=2), (p2, t2, idx)),
    ("RetrievalFallOut", lambda: RT.RetrievalFallOut(top_k=2), (p2, t2, idx)),
    ("RetrievalMAP", lambda: RT.RetrievalMAP(), (p2, t2, idx)),
    ("RetrievalRPrecision", lambda: RT.RetrievalRPrecision(), (p2, t2, idx)),
    ("RetrievalAUROC", lambda: RT.RetrievalAUROC(), (p2, t2, idx)),
    ("CalinskiHarabaszScore", lambda: CL.CalinskiHarabaszScore(), (torch.randn(40, 3), tmc)),
    ("DaviesBouldinScore", lambda: CL.DaviesBouldinScore(), (torch.randn(40, 3), tmc)),
    ("DunnIndex", lambda: CL.DunnIndex(), (torch.randn(40, 3), tmc)),
    ("FowlkesMallowsIndex", lambda: CL.FowlkesMallowsIndex(), (tmc, idx)),
    ("HomogeneityScore", lambda: CL.HomogeneityScore(), (tmc, idx)),
    ("VMeasureScore", lambda: CL.VMeasureScore(), (tmc, idx)),
    ("AdjustedMutualInfoScore", lambda: CL.AdjustedMutualInfoScore(), (tmc, idx)),
    ("CharErrorRate", lambda: T.CharErrorRate(), (["hello world", "abc"], ["hallo word", "abd"])),
    ("MatchErrorRate", lambda: T.MatchErrorRate(), (["hello world there"], ["hallo world"])),
    ("ExtendedEditDistance", lambda: T.ExtendedEditDistance(), (["the cat sat"], ["a cat sat down"])),
    ("CHRFScore", lambda: T.CHRFScore(), (["the cat sat on the mat"], [["a cat sat on the mat"]])),
    ("SacreBLEUScore", lambda: T.SacreBLEUScore(), (["the cat sat on the mat"], [["a cat sat on the mat"]])),
    ("TranslationEditRate", lambda: T.TranslationEditRate(), (["the cat sat on the mat"], [["a cat sat on the mat"]])),
    ("Perplexity", lambda: T.Perplexity(), (torch.randn(2, 5, 7), torch.randint(0, 7, (2, 5)))),
    ("EditDistance", lambda: T.EditDistance(), (["kitten"], ["sitting"])),
    ("MultiScaleSSIM", lambda: I.MultiScaleStructuralSimilarityIndexMeasure(kernel_size=3, betas=(0.5, 0.5)), (img1, img2)),
    ("SpatialCorrelationCoefficient", lambda: I.SpatialCorrelationCoefficient(), (img1, img2)),
    ("SpectralDistortionIndex", lambda: I.SpectralDistortionIndex(), (img1, img2)),
    ("RelativeAverageSpectralError", lambda: I.RelativeAverageSpectralError(), (img1, img2)),
    ("PeakSignalNoiseRatioWithBlockedEffect", lambda: I.PeakSignalNoiseRatioWithBlockedEffect(data_range=1.0), (img1[:, :1], img2[:, :1])),
    ("QualityWithNoReference", lambda: I.QualityWithNoReference(), (img1, {"ms": img2[..., :16, :16], "pan": img1, "pan_lr": img1[..., :16, :16]})),
    ("ScaleInvariantSignalNoiseRatio", lambda: A.ScaleInvariantSignalNoiseRatio(), (torch.randn(2, 100), torch.randn(2, 100))),
    ("PermutationInvariantTraining", lambda: A.PermutationInvariantTraining(tm.functional.audio.scale_invariant_signal_noise_ratio, mode="speaker-wise", eval_func="max"), (torch.randn(2, 2, 50), torch.randn(2, 2, 50))),
    ("ComplexSISNR", lambda: A.ComplexScaleInvariantSignalNoiseRatio(), (torch.randn(1, 9, 10, 2), torch.randn(1, 9, 10, 2))),
    ("GeneralizedDiceScore", lambda: S.GeneralizedDiceScore(3), (torch.randint(0, 2, (2, 3, 8, 8)), torch.randint(0, 2, (2, 3, 8, 8)))),
    ("HausdorffDistance", lambda: S.HausdorffDistance(3), (torch.randint(0, 2, (2, 3, 8, 8)), torch.randint(0, 2, (2, 3, 8, 8)))),
    ("PearsonsContingencyCoefficient", lambda: N.PearsonsContingencyCoefficient(4), (tmc, idx % 4)),
    ("TschuprowsT", lambda: N.TschuprowsT(4), (tmc, idx % 4)),
    ("FleissKappa", lambda: N.FleissKappa(mode="counts"), (torch.randint(0, 4, (10, 3)),)),
    ("RunningMean", lambda: G.RunningMean(window=3), (yr,)),
    ("RunningSum", lambda: G.RunningSum(window=3), (yr,)),
    ("MinMetric", lambda: G.MinMetric(), (yr,)),
    ("SumMetric", lambda: G.SumMetric(nan_strategy="ignore"), (torch.tensor([1.0, float("nan"), 2.0]),)),
    ("ClasswiseWrapper", lambda: W.ClasswiseWrapper(C.MulticlassAccuracy(4, average=None), labels=list("abcd")), (pm, tmc)),
    ("MinMaxMetric", lambda: W.MinMaxMetric(C.BinaryAccuracy()), (p2, t2)),
    ("MultioutputWrapper", lambda: W.MultioutputWrapper(R.R2Score(), 2), (torch.randn(20, 2), torch.randn(20, 2))),
    ("Running", lambda: W.Running(G.SumMetric(), window=2), (yr,)),
]
for name, make, args in metrics:
    try:
        m = make()
        n = len(args[0]) if not isinstance(args[0], dict) else 2
        half = n // 2
        if torch.is_tensor(args[0]) and args[0].dim() > 0 and name not in ("MulticlassExactMatch", "Perplexity", "ComplexSISNR", "QualityWithNoReference"):
            m.update(*[a[:half] for a in args])
            m.update(*[a[half:] for a in args])
        else:
            m.update(*args)
        print(name, fmt(m.compute()))
    except Exception as e:
        print(name, "ERR", type(e).__name__, str(e)[:150])
