"""Regressions found by running real PyTorch programs through the drop-in runner, checked against torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("variant", ["hook", "parametrization"])
def test_spectral_norm_module_called_twice_before_backward(variant):
    """A WGAN critic runs on real and fake batches, then backward: the second forward's power
    iteration must not invalidate what the first saved."""
    def build(lib):
        lib.manual_seed(0)
        conv = lib.nn.Conv2d(1, 3, 3)
        if variant == "hook":
            return lib.nn.utils.spectral_norm(conv)
        return lib.nn.utils.parametrizations.spectral_norm(conv)
    mt, ml = build(torch), build(torchlike)
    ml.load_state_dict({k: torchlike.from_numpy(v.detach().numpy().copy()) for k, v in mt.state_dict().items()})
    xs = [RNG.standard_normal((2, 1, 5, 5)).astype(np.float32) for _ in range(2)]
    lt = mt(torch.from_numpy(xs[0])).mean() - mt(torch.from_numpy(xs[1])).mean()
    ll = ml(torchlike.from_numpy(xs[0])).mean() - ml(torchlike.from_numpy(xs[1])).mean()
    np.testing.assert_allclose(ll.item(), lt.item(), rtol=1e-4, atol=1e-6)
    lt.backward()
    ll.backward()
    for (name, p), (_, q) in zip(mt.named_parameters(), ml.named_parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
