"""Dirichlet and Beta ``rsample`` gradients are torch's: its ``_Dirichlet.backward`` with ATen's
``_dirichlet_grad`` approximation (series near 0 and 1, Rice saddle point for large concentrations, a
rational fit otherwise), not the gamma reparameterization (another unbiased estimator with other values)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the oracle")
import torchlike  # noqa: E402

CONCENTRATIONS = [[0.3, 0.5], [2.0, 3.0], [8.0, 10.0], [0.1, 20.0], [50.0, 60.0, 70.0], [1.0, 2.0, 3.0, 0.5]]


@pytest.mark.parametrize("conc", CONCENTRATIONS, ids=[str(c) for c in CONCENTRATIONS])
def test_dirichlet_rsample_gradient_matches_torch(conc):
    w = np.random.default_rng(0).standard_normal((64, len(conc))).astype(np.float32)

    def run(m):
        m.manual_seed(5)
        a = m.tensor(conc, requires_grad=True)
        x = m.distributions.Dirichlet(a).rsample((64,))
        (x * m.from_numpy(w)).sum().backward()
        return x.detach().numpy(), a.grad.numpy()
    (xo, go), (xt, gt) = run(torchlike), run(torch)
    np.testing.assert_allclose(xo, xt, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(go, gt, rtol=2e-4, atol=1e-5)


@pytest.mark.parametrize("a,b", [(0.5, 0.5), (2.0, 3.0), (7.0, 9.0), (0.2, 5.0)])
def test_beta_rsample_gradient_matches_torch(a, b):
    def run(m):
        m.manual_seed(11)
        c1, c0 = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        x = m.distributions.Beta(c1, c0).rsample((200,))
        (x * x).mean().backward()
        return x.detach().numpy(), c1.grad.item(), c0.grad.item()
    (xo, *go), (xt, *gt) = run(torchlike), run(torch)
    np.testing.assert_allclose(xo, xt, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(go, gt, rtol=2e-4, atol=1e-6)
