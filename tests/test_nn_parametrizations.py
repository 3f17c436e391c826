"""torch.nn.utils.parametrizations against real torch: the orthogonal maps (matrix_exp, cayley,
householder, with and without the dynamic trivialization), their state_dict layout, gradients and the
randn draw torch makes to complete a wide/tall matrix."""
import pytest
from conftest import raises_like_torch, same_as_torch

CASES = [((4, 4), {}), ((3, 5), {"orthogonal_map": "cayley"}), ((5, 3), {"orthogonal_map": "householder"}),
         ((3, 5), {}), ((4, 4), {"orthogonal_map": "householder", "use_trivialization": False}),
         ((6, 2), {"orthogonal_map": "matrix_exp"}), ((2, 3, 3), {"orthogonal_map": "cayley"})]


@pytest.mark.parametrize("shape,kw", CASES, ids=[f"{s}-{k}" for s, k in CASES])
def test_orthogonal_matches_torch(shape, kw):
    def fn(m):
        m.manual_seed(0)
        mod = m.nn.Module()
        mod.weight = m.nn.Parameter(m.randn(*shape))
        m.nn.utils.parametrizations.orthogonal(mod, **kw)
        w = mod.weight
        (w * m.arange(float(w.numel())).reshape(w.shape)).sum().backward()
        keys = [(k, tuple(v.shape)) for k, v in mod.state_dict().items()]
        # the next draw shows the random numbers registration consumed
        return w.detach(), mod.parametrizations.weight.original.grad, keys, m.randn(2), w.grad_fn.name()
    same_as_torch(fn, grad=False, rtol=1e-4, atol=1e-5)


def test_orthogonal_assignment_and_training_steps():
    def fn(m):
        m.manual_seed(0)
        lin = m.nn.utils.parametrizations.orthogonal(m.nn.Linear(2, 6))
        lin.weight = m.nn.init.orthogonal_(m.empty(6, 2))
        opt = m.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (lin.weight[:, 0] * m.arange(6.)).sum().backward()
            opt.step()
        return lin.weight.detach(), lin.parametrizations.weight[0].base
    same_as_torch(fn, grad=False, rtol=1e-4, atol=1e-5)


def test_orthogonal_errors():
    raises_like_torch(lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), orthogonal_map="bad"))

    def assign_without_trivialization(m):
        lin = m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), orthogonal_map="cayley",
                                                     use_trivialization=False)
        lin.weight = m.eye(3)
    raises_like_torch(assign_without_trivialization)
