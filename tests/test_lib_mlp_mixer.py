"""mlp-mixer-pytorch 0.3.1 under the drop-in runner, compared line by line with real torch: MLP-Mixer trained with
Adam and dropout, a non-square single-channel mixer's input gradient, the 3-D mixer, ViP's Permutator trained
with SGD, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_mlp_mixer_like_torch():
    _, ours = lib_program_vs_torch("lib_mlp_mixer.py", "mlp_mixer_pytorch", "einops", timeout=600, rtol=1e-4)
    assert len(ours) == 10, ours
    assert ours[0] == "params 9108 7 Rearrange", ours[0]
    assert ours[3] == "train 5 0.9612", ours[3]
    assert ours[7] == "permutator 7892 1.2349", ours[7]
    assert ours[9] == "reloaded True ['1.bias', '1.weight', '2.0.fn.0.bias']", ours[9]
