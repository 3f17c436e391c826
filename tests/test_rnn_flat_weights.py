"""RNN modules keep torch's ``_flat_weights``: a plain list attribute that forward reads, kept up to date by
attribute assignment and ``_apply``, assignable by libraries (higher's patched RNNs set it to their fast
weights before calling forward), rebuilt when a weight object was swapped (functional_call), pickled without
its weak references. It was a read-only property, so ``self._flat_weights = [...]`` raised AttributeError."""
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402


def _program(t):
    t.manual_seed(0)
    m = t.nn.LSTM(3, 4, num_layers=2, batch_first=True)
    x = t.randn(2, 5, 3)
    out = [m(x)[0].detach().numpy(), type(m._flat_weights).__name__, len(m._flat_weights)]
    # a library assigns the list forward reads (the weights it holds stay as they are)
    scaled = [w * 0.5 for w in m._flat_weights]
    m._flat_weights = scaled
    out.append(m(x)[0].detach().numpy())
    out.append(m.weight_ih_l0 is not scaled[0])
    m._init_flat_weights()
    # assigning a weight updates the list
    m.weight_hh_l1 = t.nn.Parameter(t.zeros(16, 4))
    out += [m._flat_weights[5] is m.weight_hh_l1, m(x)[0].detach().numpy()]
    # functional_call swaps weight objects: forward reads the swapped ones; the module's own afterwards
    params = {k: v * 2 for k, v in m.named_parameters()}
    out.append(t.func.functional_call(m, params, (x,))[0].detach().numpy())
    out.append(m(x)[0].detach().numpy())
    # _apply (.double()) rebuilds the list
    m.double()
    out += [m._flat_weights[0].dtype is t.float64, m(x.double())[0].detach().numpy()]
    state = m.__getstate__()
    out += ["_flat_weights" in state, "_flat_weight_refs" in state]
    m2 = pickle.loads(pickle.dumps(m))
    out += [m2._flat_weights[1] is m2.weight_hh_l0, len(m2._flat_weight_refs), m2(x.double())[0].detach().numpy()]
    return out


def test_rnn_flat_weights_list_like_torch():
    want, got = _program(torch), _program(torchlike)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        else:
            assert g == w


def _func_grad(t):
    t.manual_seed(0)
    m = t.nn.GRU(3, 4)
    x = t.randn(5, 2, 3)
    g = t.func.grad(lambda p: t.func.functional_call(m, p, (x,))[0].sum())(dict(m.named_parameters()))
    # the traced call left nothing traced behind in the module: eager forward and backward still work
    y = m(x)[0].sum()
    y.backward()
    return [g["weight_ih_l0"].detach().numpy(), y.detach().numpy(), m.weight_hh_l0.grad.numpy()]


def test_rnn_under_func_grad_of_functional_call_like_torch():
    for w, g in zip(_func_grad(torch), _func_grad(torchlike)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
