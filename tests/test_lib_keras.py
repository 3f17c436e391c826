"""Keras 3 on its torch backend (KERAS_BACKEND=torch: a Sequential MLP with a custom layer, a functional CNN with
BatchNormalization, an Embedding/LSTM/GRU/MultiHeadAttention model, Adam/AdamW through torch._foreach_*, fit with a
validation split and callbacks, evaluate, predict, .keras and .weights.h5 round trips, keras.ops) under the
drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_keras_torch_backend_trains_saves_and_runs_ops_like_torch():
    _, ours = lib_program_vs_torch("lib_keras_torch_backend.py", "torch", "keras", timeout=600, rtol=2e-3)
    assert len(ours) == 39
    for name in ("mlp", "cnn", "seq"):
        losses = [float(v) for v in next(line for line in ours if line.startswith(f"{name} loss"))
                  .split("[")[1][:-1].split(",")]
        assert len(losses) == 3 and losses[-1] < losses[0], (name, losses)
    assert sum(line.endswith("same predictions True") for line in ours) == 3
    assert "weights round trip True" in ours
    assert ours[-1].startswith("ops nn.moments")
