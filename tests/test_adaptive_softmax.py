"""nn.AdaptiveLogSoftmaxWithLoss vs torch: outputs, loss, gradients, log_prob, predict, errors, compile."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

RNG = np.random.default_rng(11)


def _modules(**kw):
    torch.manual_seed(0)
    mt = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, **kw)
    ml = torchlike.nn.AdaptiveLogSoftmaxWithLoss(8, 10, **kw)
    assert list(mt.state_dict()) == list(ml.state_dict())
    assert repr(mt) == repr(ml)
    ml.load_state_dict({k: torchlike.from_numpy(v.numpy().copy()) for k, v in mt.state_dict().items()})
    return mt, ml


@pytest.mark.parametrize("kw", [dict(cutoffs=[4, 7]), dict(cutoffs=[2], div_value=2.0, head_bias=True),
                                dict(cutoffs=[3, 5, 8], div_value=1.0)])
def test_forward_backward_log_prob_predict(kw):
    mt, ml = _modules(**kw)
    x = RNG.standard_normal((7, 8)).astype(np.float32)
    t = RNG.integers(0, 10, 7)
    xt, xl = torch.tensor(x, requires_grad=True), torchlike.tensor(x, requires_grad=True)
    ot, ol = mt(xt, torch.tensor(t)), ml(xl, torchlike.tensor(t))
    np.testing.assert_allclose(ol.output.detach().numpy(), ot.output.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ol.loss.item(), ot.loss.item(), rtol=1e-6)
    ot.loss.backward()
    ol.loss.backward()
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-7)
    for (name, p), (_, q) in zip(mt.named_parameters(), ml.named_parameters()):
        assert (q.grad is None) == (p.grad is None), name  # a cluster no target falls in gets no gradient
        if p.grad is not None:
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7, err_msg=name)
    with torch.no_grad():
        np.testing.assert_allclose(ml.log_prob(xl).detach().numpy(), mt.log_prob(xt).numpy(), rtol=1e-5,
                                   atol=1e-6)
        assert ml.predict(xl).tolist() == mt.predict(xt).tolist()


def test_unbatched_and_errors():
    mt, ml = _modules(cutoffs=[4, 7])
    x = RNG.standard_normal(8).astype(np.float32)
    ot, ol = mt(torch.tensor(x), torch.tensor(5)), ml(torchlike.tensor(x), torchlike.tensor(5))
    assert ol.output.shape == ot.output.shape == ()
    np.testing.assert_allclose(ol.output.item(), ot.output.item(), rtol=1e-6)
    bad = [(np.zeros((3, 8), np.float32), np.array([0, 1, 10])), (np.zeros((3, 8), np.float32), np.zeros(2, int)),
           (np.zeros(8, np.float32), np.zeros(2, int)), (np.zeros((2, 8), np.float32), np.zeros((2, 2), int))]
    for x, t in bad:
        with pytest.raises(RuntimeError) as et:
            mt(torch.tensor(x), torch.tensor(t))
        with pytest.raises(RuntimeError) as el:
            ml(torchlike.tensor(x), torchlike.tensor(t))
        assert str(el.value) == str(et.value)
    for cutoffs in ([], [0, 3], [5, 3], [4, 10]):
        with pytest.raises(ValueError) as et:
            torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
        with pytest.raises(ValueError) as el:
            torchlike.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
        assert str(el.value) == str(et.value)


def test_compiles_into_one_program():
    _, ml = _modules(cutoffs=[4, 7])
    x, t = torchlike.randn(5, 8), torchlike.tensor([0, 4, 9, 6, 2])
    compiled = torchlike.compile(lambda a, b: ml(a, b).loss, fullgraph=True)
    np.testing.assert_allclose(compiled(x, t).item(), ml(x, t).loss.item(), rtol=1e-6)
