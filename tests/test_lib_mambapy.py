"""mambapy 1.2.0 (pure-PyTorch Mamba with the Blelloch parallel scan) under the drop-in runner, compared line by
line with the same program under real torch (tests/programs/lib_mambapy.py)."""
from conftest import lib_program_vs_torch


def test_mambapy_pscan_training_and_recurrent_inference_like_torch():
    _, ours = lib_program_vs_torch("lib_mambapy.py", "torch", "mambapy")
    assert len(ours) == 11, ours
    # pscan's in-place sweeps over strided views of transposed tensors: values and both gradients equal the
    # sequential recurrence, for power-of-two and padded lengths
    assert [text.split(" ", 4)[1] for text in ours[:4]] == ["16", "11", "2", "4"]
    assert all(text.endswith(f"True True True {text.split()[-1]}") for text in ours[:4]), ours[:4]
    line = {text.split(" ")[0] + " " + text.split(" ")[1]: text for text in ours[4:]}
    assert line["mamba losses"].startswith("mamba losses [3.4029, 3.2409, 3.0799, 2.9233, 2.7624, 2.5922] ")
    # sequential scan and step-by-step recurrent inference both equal the parallel full-sequence forward
    assert line["mamba full"].endswith(" True True (2, 32, 8) (2, 32, 3)"), line["mamba full"]
    assert line["mamba generate"] == "mamba generate [10, 10, 10, 10, 10, 10, 10, 10]"
    assert line["mamba reload"] == "mamba reload equal True"
