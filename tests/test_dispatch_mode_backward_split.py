"""Gradients computed under a logging ``TorchDispatchMode`` for split/chunk/unbind and the recurrent and attention
modules equal torch's (their aten calls differ where docs/differences.md, "Split, RNN and attention backward",
says; the calls both show for ``split`` are compared here in order)."""
import numpy as np
import pytest

import torchlike
from torchlike.utils import _python_dispatch as pd

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
from torch.utils import _python_dispatch as torch_pd  # noqa: E402
from tests._dispatch_logging import log_mode  # noqa: E402

CASES = {
    "split_all": lambda tl, x, m: sum(p.sum() for p in x.split(2, 1)),
    "split_one": lambda tl, x, m: x.split(2, 1)[0].sum(),
    "split_sizes": lambda tl, x, m: sum(p.sum() * (i + 1) for i, p in enumerate(x.split([1, 5], 1))),
    "chunk": lambda tl, x, m: sum(p.pow(2).sum() for p in x.chunk(3, 1)),
    "unbind": lambda tl, x, m: sum(p.sum() * i for i, p in enumerate(x.unbind(0))),
    "unbind_one": lambda tl, x, m: x.unbind(0)[1].sum(),
    "rnn": lambda tl, x, m: m["rnn"](x.view(2, 4, 3))[0].sum(),
    "gru": lambda tl, x, m: m["gru"](x.view(2, 4, 3))[0].pow(2).sum(),
    "lstm": lambda tl, x, m: m["lstm"](x.view(2, 4, 3))[0].sum(),
    "mha": lambda tl, x, m: m["mha"](x.view(3, 2, 4), x.view(3, 2, 4), x.view(3, 2, 4))[0].sum(),
}


def _run(tl, base, name):
    tl.manual_seed(0)
    mods = {"rnn": tl.nn.RNN(3, 4), "gru": tl.nn.GRU(3, 4), "lstm": tl.nn.LSTM(3, 4),
            "mha": tl.nn.MultiheadAttention(4, 2)}
    for mod in mods.values():   # torch's initial values, so both compute the same function
        for p in mod.parameters():
            p.data.copy_(tl.linspace(-0.5, 0.5, p.numel()).view(p.shape))
    x = tl.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6), requires_grad=True)
    with log_mode(base)() as m:
        CASES[name](tl, x, mods).backward()
    used = mods.get(name)
    grads = [x.grad.numpy().copy()] + ([p.grad.numpy().copy() for p in used.parameters()] if used else [])
    return m.ops, grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_under_a_mode_match_torch(name):
    ours, ref = _run(torchlike, pd.TorchDispatchMode, name), _run(torch, torch_pd.TorchDispatchMode, name)
    assert len(ours[1]) == len(ref[1])
    for a, b in zip(ours[1], ref[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    if name == "split_all":   # torch's one cat of the three gradients is torchlike's two add.Tensor (documented)
        ops = ours[0]
        k = len(ops) - ops[::-1].index("aten.expand.default")
        assert ops[k:].count("aten.add.Tensor") == 2
        assert ops[:k] + [o for o in ops[k:] if o != "aten.add.Tensor"] == \
            [o for o in ref[0] if o not in ("aten.split.Tensor", "aten.cat.default")]
