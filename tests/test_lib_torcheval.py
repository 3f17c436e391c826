"""torcheval 0.0.7 (Meta's metrics) under the drop-in runner, compared line by line with real torch: binary,
multiclass and multilabel classification metrics updated batch by batch (AUROC/AUPRC, binned curves, confusion
matrices built through torch.sparse_coo_tensor inside torch.jit.script functions), regression, aggregation,
ranking and text metrics, the functional forms, merge_state and state_dict round trips.

Found: scatter_'s ``reduce=`` with a Tensor src lacked torch's deprecation note, and the sparse factories'
invariant note fired inside torch.jit.script functions, where torch's TorchScript path gives none."""
from conftest import lib_program_vs_torch


def test_torcheval_metrics_like_torch():
    _, ours = lib_program_vs_torch("lib_torcheval.py", "torcheval", timeout=600, rtol=1e-4)
    assert len(ours) == 72, ours
    assert ours[0] == "train loss 0.2048", ours[0]
    assert ours[2] == "binary prec 0.8846", ours[2]
    assert ours[12] == ("binary binned pr curve [[0.6042, 0.7368, 0.9667, 1.0, 1.0], [1.0, 0.9655, 0.5, 0.0, 0.0], "
                        "[0.0, 0.3333, 0.6667, 1.0]]"), ours[12]
    assert ours[24] == "multiclass cm [30.0, 1.0, 0.0, 3.0, 46.0, 1.0, 0.0, 1.0, 14.0]", ours[24]
    assert ours[52] == "bleu 0.8165", ours[52]
    assert ours[67] == "merged macro acc 0.9404", ours[67]
