"""The 'meta' device against torch: a meta tensor has no values, so building a model on it (what Hugging Face's
``from_pretrained`` and ``init_empty_weights`` do) must leave the random generator where torch leaves it, and
reading values out of it raises torch's errors.  Also ``x in t`` (Tensor.__contains__)."""
import pytest
import torch

import torchlike
from conftest import raises_like_torch, same_as_torch


def _stream_after(T, build):
    T.manual_seed(0)
    build(T)
    return T.rand(4).tolist()


def _linear_on_meta(T):
    with T.device("meta"):
        T.nn.Sequential(T.nn.Linear(8, 8), T.nn.LayerNorm(8), T.nn.Embedding(10, 4), T.nn.Conv2d(3, 4, 3))


def _init_on_meta(T):
    w = T.empty(6, 5, device="meta")
    T.nn.init.kaiming_uniform_(w, a=5 ** 0.5)
    T.nn.init.normal_(w)
    T.nn.init.trunc_normal_(w)
    T.nn.init.xavier_uniform_(w)
    T.nn.init.orthogonal_(w)
    w.uniform_()
    w.normal_()
    w.bernoulli_(0.5)
    w.random_(0, 5)
    w.exponential_()


def _factories_on_meta(T):
    T.randn(3, 4, device="meta")
    T.rand(5, device="meta")
    T.randint(0, 9, (4,), device="meta")
    T.randperm(7, device="meta")
    T.normal(0.0, 1.0, (3,), device="meta")
    m = T.zeros(3, device="meta")
    T.rand_like(m)
    T.randn_like(m)
    T.randint_like(m, 5)
    T.bernoulli(T.full((3,), 0.5, device="meta"))
    T.normal(m, 1.0)


@pytest.mark.parametrize("build", [_linear_on_meta, _init_on_meta, _factories_on_meta],
                         ids=["modules", "init_and_inplace_random", "factories"])
def test_meta_draws_leave_the_generator_as_torch_does(build):
    assert _stream_after(torchlike, build) == _stream_after(torch, build)


def test_meta_tensor_metadata_and_repr_like_torch():
    def f(T):
        x = T.randn(2, 3, device="meta")
        with T.device("meta"):
            lin = T.nn.Linear(2, 2)
        y = x + 1
        return (repr(x), repr(x.double()), repr(T.zeros((), device="meta")), repr(T.zeros(0, device="meta")),
                repr(T.zeros(2, dtype=T.int64, device="meta")), repr(T.zeros(2, device="meta", requires_grad=True)),
                repr(lin.weight), str(x), x.is_meta, y.is_meta, str(y.device), T.zeros(2).is_meta,
                tuple(lin.to_empty(device="cpu").weight.shape), lin.weight.is_meta)
    same_as_torch(f, grad=False)


@pytest.mark.parametrize("read", [
    lambda T, x: x.item(),
    lambda T, x: x[0, 0].item(),
    lambda T, x: x.tolist(),
    lambda T, x: x.numpy(),
    lambda T, x: x.cpu(),
    lambda T, x: x.to("cpu"),
    lambda T, x: bool(x.sum() > 0),
    lambda T, x: float(x.sum()),
], ids=["item", "item_0d", "tolist", "numpy", "cpu", "to_cpu", "bool", "float"])
def test_reading_a_meta_tensor_raises_like_torch(read):
    raises_like_torch(lambda T: read(T, T.randn(2, 3, device="meta")))


@pytest.mark.parametrize("element", [2, 5, 2.0, 3.5, True, "tensor3", "tensor9"])
def test_contains_like_torch(element):
    def f(T):
        x = T.tensor([[1, 2], [3, 4]])
        e = T.tensor(int(element[6:])) if isinstance(element, str) else element
        return (e in x, e in x.float(), e in T.zeros(0))
    same_as_torch(f, grad=False)


@pytest.mark.parametrize("element", ["a", None, [1, 2]])
def test_contains_rejects_other_types_like_torch(element):
    raises_like_torch(lambda T: element in T.tensor([1, 2]))
