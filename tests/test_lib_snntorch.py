"""snntorch 1.0.0 under the drop-in runner, compared line by line with real torch: Leaky / Synaptic / Lapicque /
Alpha / RLeaky / SLSTM / SConv2dLSTM / LeakyParallel neurons, surrogate gradients, seeded spikegen encodings, a
spiking CNN trained with ce_rate_loss and mse_count_loss, the other losses, backprop.BPTT, accuracy_rate,
quantised state and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_snntorch_spiking_networks_like_torch():
    _, ours = lib_program_vs_torch("lib_snntorch.py", "snntorch", timeout=600, rtol=1e-4)
    assert len(ours) == 37, ours
    assert ours[0] == "leaky (25, 4, 6) torch.float32 93.0 376.1389 1.3905", ours[0]
    assert ours[8] == ("surrogate atan [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0] "
                       "[0.0247, 0.0431, 0.092, 0.2884, 1.0, 0.2884, 0.092, 0.0431, 0.0247]"), ours[8]
    assert ours[14] == "rate (10, 2, 1, 6, 6) torch.float32 300.0 0.1018", ours[14]
    assert ours[15] == "rate seeded again True", ours[15]
    assert ours[21] == "train ce_rate [1.0986, 1.0903, 1.0655, 1.0418, 1.0304] 0.5 56.0 0.33161", ours[21]
    assert ours[22] == "train mse_count [1.5833, 1.2118, 0.8368, 0.7326, 0.7778] 0.5833 115.0 0.06794", ours[22]
    assert ours[28] == "state_dict [('beta', 0.6), ('graded_spikes_factor', 1.0), ('reset_mechanism_val', 0.0), " \
                       "('threshold', 0.9)]", ours[28]
