"""torch.vander: values, dtypes, errors and the node name compared with torch (expected values come from torch)."""
import pytest
import torch

import torchlike as tl

CASES = [([1, 2, 3], {}), ([1, 2, 3], dict(N=2, increasing=True)), ([1.0, 2.5, -1.0], dict(N=4)),
         ([1.0, 2.5], dict(N=5, increasing=True)), ([True, False], {}), ([1, 2], dict(N=0)), ([1, 2], dict(N=1)),
         ([1 + 2j, 3 - 1j], {})]


@pytest.mark.parametrize("values,kwargs", CASES)
def test_vander_matches_torch(values, kwargs):
    a, b = tl.vander(tl.tensor(values), **kwargs), torch.vander(torch.tensor(values), **kwargs)
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
    assert a.tolist() == b.tolist()  # small powers of these values are exact in every dtype here


@pytest.mark.parametrize("increasing", [False, True])
def test_vander_graph_node_matches_torch(increasing):
    x, xt = tl.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    assert type(tl.vander(x, increasing=increasing).grad_fn).__name__ == \
        type(torch.vander(xt, increasing=increasing).grad_fn).__name__
    assert tl.vander(x, N=1).grad_fn is None and torch.vander(xt, N=1).grad_fn is None


def test_vander_gradient():
    # d/dx sum_j x**j (j < 3) = 1 + 2x; torch's own backward for vander raises (an in-place write it saves)
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    tl.vander(x, N=3).sum().backward()
    assert x.grad.tolist() == [3.0, 5.0]


@pytest.mark.parametrize("make,kwargs", [(lambda m: m.ones(2, 2), {}), (lambda m: m.tensor(2.0), {}),
                                         (lambda m: m.tensor([1, 2]), dict(N=-1))])
def test_vander_errors_match_torch(make, kwargs):
    with pytest.raises(RuntimeError) as e:
        torch.vander(make(torch), **kwargs)
    with pytest.raises(RuntimeError) as f:
        tl.vander(make(tl), **kwargs)
    assert str(f.value) == str(e.value)
