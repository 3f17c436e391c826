"""The README's main job: the character-level GPT demo trains (loss falls) and samples text."""
import re

from torchlike import demo


def test_demo_trains_and_samples(capsys):
    demo.main(["--steps", "40", "--batch", "8"])
    out = capsys.readouterr().out
    losses = [float(v) for v in re.findall(r"loss (\d+\.\d+)", out)]
    assert len(losses) >= 2 and losses[-1] < losses[0]
    assert "tok/s" in out
    sample = out.split("sample:\n", 1)[1]
    assert sample.startswith("The keeper ") and len(sample.strip()) > 100
