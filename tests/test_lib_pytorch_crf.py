"""pytorch-crf 0.7.2 (``torchcrf``) under the drop-in runner, compared line by line with real torch: a BiLSTM-CRF
tagger trained with Adam on padded variable-length batches (bool and byte masks), every reduction of the
log-likelihood, Viterbi decoding with and without a mask, time-first vs batch-first layouts, gradients of the
log-likelihood and of the log-partition (marginals), the CRF's ValueErrors, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_pytorch_crf_bilstm_tagger_like_torch():
    _, ours = lib_program_vs_torch("lib_pytorch_crf.py", "torchcrf", timeout=600, rtol=1e-4)
    assert len(ours) == 29, ours
    assert ours[0] == "crf CRF(num_tags=5) (5, 5) -0.0927", ours[0]
    assert ours[12] == "decode lengths [9, 9, 6, 6, 6, 5] == [9, 9, 6, 6, 6, 5]", ours[12]
    assert ours[17] == "time-first llh [-16.1682, -22.2556, -10.1333, -10.6262, -9.6469, -6.5757]", ours[17]
    assert ours[18] == "time-first paths equal True", ours[18]
    assert ours[21] == "marginals [1.0, 1.0, 1.0, 1.0, 1.0, 1.0] 0.0", ours[21]
    assert ours[24] == "ValueError mask of the first timestep must all be on", ours[24]
    assert ours[-1].startswith("reloaded same paths True"), ours[-1]
