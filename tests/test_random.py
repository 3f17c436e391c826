"""Random sampling: shapes, dtypes, ranges, rough moments, reproducibility and errors (vs torch)."""
import math

import numpy as np
import pytest
import torch

import torchlike

N = 20000


def stats(t):
    a = np.asarray(t._value, dtype=np.float64).reshape(-1)
    return a.mean(), a.std()


def same_meta(o, t):
    assert str(o.dtype) == str(t.dtype), (o.dtype, t.dtype)
    assert tuple(o.shape) == tuple(t.shape), (o.shape, t.shape)


META = [
    lambda m: m.rand(2, 3),
    lambda m: m.rand((2, 3), dtype=m.float64),
    lambda m: m.rand(4, dtype=m.float16),
    lambda m: m.rand(4, dtype=m.bfloat16),
    lambda m: m.rand(3, dtype=m.complex64),
    lambda m: m.rand(()),
    lambda m: m.rand(0, 2),
    lambda m: m.randn(3, 1),
    lambda m: m.rand(size=(3, 1)),
    lambda m: m.randn(size=[2, 1], dtype=m.float64),
    lambda m: m.randn([2], dtype=m.float64),
    lambda m: m.randint(10, (3,)),
    lambda m: m.randint(-5, 5, (2, 2)),
    lambda m: m.randint(0, 5, (2,), dtype=m.int32),
    lambda m: m.randint(0, 5, (2,), dtype=m.float32),
    lambda m: m.randint(3, size=(2, 2)),
    lambda m: m.randperm(7),
    lambda m: m.randperm(0),
    lambda m: m.randperm(5, dtype=m.int32),
    lambda m: m.normal(m.zeros(3, 2), 1.0),
    lambda m: m.normal(0.0, m.ones(4)),
    lambda m: m.normal(m.zeros(2, 1), m.ones(3)),
    lambda m: m.normal(2.0, 3.0, (5,)),
    lambda m: m.normal(2.0, 3.0, size=(5,), dtype=m.float64),
    lambda m: m.normal(m.zeros(3, dtype=m.float64), 2.0),
    lambda m: m.bernoulli(m.full((3, 2), 0.5)),
    lambda m: m.bernoulli(m.full((3,), 0.5, dtype=m.float64)),
    lambda m: m.bernoulli(m.zeros(3), 0.3),
    lambda m: m.ones(4).bernoulli(),
    lambda m: m.multinomial(m.ones(5), 3),
    lambda m: m.multinomial(m.ones(2, 5), 7, True),
    lambda m: m.ones(2, 5).multinomial(2),
    lambda m: m.poisson(m.full((N,), 4.0)),
    lambda m: m.rand_like(m.ones(2, 3, dtype=m.float64)),
    lambda m: m.randn_like(m.ones(2)),
    lambda m: m.randint_like(m.ones(2, 2), 5),
    lambda m: m.randint_like(m.ones(2, dtype=m.int32), 3, 5),
    lambda m: m.rand(2, requires_grad=True),
    lambda m: m.ones(3).uniform_(),
    lambda m: m.ones(3, dtype=m.int32).random_(),
    lambda m: m.ones(3).exponential_(),
    lambda m: m.ones(3, dtype=m.int64).geometric_(0.5),
]


@pytest.mark.parametrize("case", range(len(META)))
def test_shape_dtype(case):
    o, t = META[case](torchlike), META[case](torch)
    same_meta(o, t)
    assert o.requires_grad == t.requires_grad


ERRS = [
    lambda m: m.rand(2, dtype=m.int64),
    lambda m: m.randn(2, dtype=m.int64),
    lambda m: m.randint(5, 5, (2,)),
    lambda m: m.normal(0.0, -1.0, (2,)),
    lambda m: m.normal(m.zeros(2), -1.0),
    lambda m: m.normal(m.zeros(2), m.tensor([-1.0, 1.0])),
    lambda m: m.normal(m.zeros(2, dtype=m.int64), 1.0),
    lambda m: m.bernoulli(m.tensor([1.5])),
    lambda m: m.multinomial(m.ones(2, 2, 2), 1),
    lambda m: m.multinomial(m.ones(3), 4),
    lambda m: m.multinomial(m.zeros(3), 1),
    lambda m: m.multinomial(m.tensor([-1.0, 1.0]), 1),
    lambda m: m.multinomial(m.ones(3), 0),
    lambda m: m.multinomial(m.ones(3, dtype=m.int64), 1),
    lambda m: m.poisson(m.tensor([-1.0])),
    lambda m: m.randperm(-1),
    lambda m: m.empty(2, dtype=m.int64).uniform_(),
    lambda m: m.empty(2).uniform_(1, 0),
    lambda m: m.empty(2).random_(5, 5),
    lambda m: m.empty(2, dtype=m.int8).random_(0, 300),
    lambda m: m.empty(2).normal_(0, -1),
    lambda m: m.empty(2, dtype=m.int64).normal_(),
    lambda m: m.empty(2).exponential_(-1),
    lambda m: m.empty(2).geometric_(0),
    lambda m: m.empty(2).geometric_(1.5),
    lambda m: m.empty(2).bernoulli_(2.0),
    lambda m: m.empty(2).cauchy_(0, -1),
    lambda m: m.empty(2).log_normal_(0, -1),
    lambda m: m.ones(2, requires_grad=True).uniform_(),
]


@pytest.mark.parametrize("case", range(len(ERRS)))
def test_errors(case):
    with pytest.raises(Exception) as et:
        ERRS[case](torch)
    with pytest.raises(Exception) as eo:
        ERRS[case](torchlike)
    assert eo.type is et.type
    assert str(eo.value) == str(et.value)


def test_uniform_and_normal_moments():
    u = torchlike.rand(N)
    m, s = stats(u)
    assert abs(m - 0.5) < 0.02 and abs(s - math.sqrt(1 / 12)) < 0.02
    assert 0 <= float(u.min()) and float(u.max()) < 1
    m, s = stats(torchlike.randn(N, dtype=torchlike.float64))
    assert abs(m) < 0.04 and abs(s - 1) < 0.04
    m, s = stats(torchlike.normal(3.0, 2.0, (N,)))
    assert abs(m - 3) < 0.08 and abs(s - 2) < 0.08
    t = torchlike.normal(torchlike.full((N,), -1.0), torchlike.full((N,), 0.5))
    m, s = stats(t)
    assert abs(m + 1) < 0.02 and abs(s - 0.5) < 0.02
    x = torchlike.empty(N).uniform_(-2, 4)
    m, s = stats(x)
    assert -2 <= float(x.min()) and float(x.max()) < 4 and abs(m - 1) < 0.1 and abs(s - math.sqrt(3)) < 0.05
    m, s = stats(torchlike.empty(N).normal_(5, 0.1))
    assert abs(m - 5) < 0.01 and abs(s - 0.1) < 0.01


def test_discrete_moments_and_ranges():
    r = torchlike.randint(-3, 7, (N,))
    a = np.asarray(r._value)
    assert a.min() == -3 and a.max() == 6 and abs(a.mean() - 1.5) < 0.1
    p = torchlike.randperm(50)
    assert sorted(p.tolist()) == list(range(50))
    b = torchlike.bernoulli(torchlike.full((N,), 0.3))
    assert set(np.unique(np.asarray(b._value))) <= {0.0, 1.0} and abs(stats(b)[0] - 0.3) < 0.02
    b = torchlike.bernoulli(torchlike.tensor([0.0, 1.0]).repeat(N // 2))
    assert b.tolist()[:4] == [0.0, 1.0, 0.0, 1.0]
    x = torchlike.empty(N).bernoulli_(torchlike.full((N,), 0.8))
    assert abs(stats(x)[0] - 0.8) < 0.02
    m, s = stats(torchlike.poisson(torchlike.full((N,), 4.0)))
    assert abs(m - 4) < 0.1 and abs(s - 2) < 0.1
    m, _ = stats(torchlike.empty(N).exponential_(2.0))
    assert abs(m - 0.5) < 0.02
    g = torchlike.empty(N).geometric_(0.25)
    assert float(g.min()) >= 1 and abs(stats(g)[0] - 4) < 0.15
    ln = torchlike.empty(N, dtype=torchlike.float64).log_normal_(0.0, 0.5)
    assert abs(np.log(np.asarray(ln._value)).std() - 0.5) < 0.02
    c = np.asarray(torchlike.empty(N).cauchy_(1.0, 2.0)._value)
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.2


def test_multinomial_distribution():
    probs = torchlike.tensor([[1.0, 2.0, 7.0], [0.0, 1.0, 0.0]])
    s = torchlike.multinomial(probs, N, replacement=True)
    a = np.asarray(s._value)
    assert s.dtype is torchlike.int64 and a.shape == (2, N)
    np.testing.assert_allclose(np.bincount(a[0], minlength=3) / N, [0.1, 0.2, 0.7], atol=0.02)
    assert (a[1] == 1).all()
    s = torchlike.multinomial(torchlike.tensor([1.0, 1.0, 0.0, 1.0]), 3)
    assert sorted(s.tolist()) == [0, 1, 3]
    firsts = torchlike.multinomial(torchlike.tensor([1.0, 9.0]).repeat(N, 1), 1).reshape(-1)
    assert abs(stats(firsts)[0] - 0.9) < 0.02


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "bool", "float16"])
def test_random_int_ranges(dtype):
    d = getattr(torchlike, dtype)
    t = torchlike.empty(4000, dtype=d).random_()
    assert t.dtype is d
    x = np.asarray(t._value)
    if dtype == "bool":
        assert set(np.unique(x)) == {False, True}
        return
    lo = 0
    hi = 2 ** {"float16": 11, "float32": 24}[dtype] if dtype.startswith("float") else np.iinfo(d.np).max
    assert x.min() >= lo and x.max() <= hi and (x == np.round(x)).all()
    assert x.max() > hi / 2  # spread over the whole range
    y = np.asarray(torchlike.empty(4000, dtype=d).random_(3, 9)._value)
    assert set(np.unique(y)) == set(range(3, 9))
    z = np.asarray(torchlike.empty(4000, dtype=d).random_(5)._value)
    assert set(np.unique(z)) == set(range(5))


def test_reproducibility():
    torchlike.manual_seed(123)
    a = [torchlike.rand(3), torchlike.randn(3), torchlike.randint(0, 100, (3,)), torchlike.randperm(5),
         torchlike.empty(3).normal_(), torchlike.multinomial(torchlike.ones(5), 3)]
    torchlike.manual_seed(123)
    b = [torchlike.rand(3), torchlike.randn(3), torchlike.randint(0, 100, (3,)), torchlike.randperm(5),
         torchlike.empty(3).normal_(), torchlike.multinomial(torchlike.ones(5), 3)]
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert torchlike.rand(3).tolist() != a[0].tolist()
    assert torchlike.initial_seed() == 123


def test_generators_are_independent():
    g1 = torchlike.Generator().manual_seed(7)
    g2 = torchlike.Generator().manual_seed(7)
    torchlike.manual_seed(0)
    x = torchlike.rand(4, generator=g1)
    torchlike.rand(10)  # the default generator does not affect g2
    y = torchlike.rand(4, generator=g2)
    assert x.tolist() == y.tolist()
    for fn in [lambda g: torchlike.randn(3, generator=g), lambda g: torchlike.randint(9, (3,), generator=g),
               lambda g: torchlike.randperm(6, generator=g), lambda g: torchlike.normal(0.0, 1.0, (3,), generator=g),
               lambda g: torchlike.bernoulli(torchlike.full((6,), 0.5), generator=g),
               lambda g: torchlike.multinomial(torchlike.ones(5), 3, generator=g),
               lambda g: torchlike.poisson(torchlike.full((N,), 4.0), generator=g),
               lambda g: torchlike.empty(3).uniform_(generator=g), lambda g: torchlike.empty(3).random_(generator=g),
               lambda g: torchlike.empty(3).exponential_(generator=g),
               lambda g: torchlike.empty(3).cauchy_(generator=g), lambda g: torchlike.rand_like(torchlike.ones(2),
                                                                                               generator=g)]:
        assert fn(g1).tolist() == fn(g2).tolist()
    state = g1.get_state()
    u = torchlike.rand(3, generator=g1)
    g1.set_state(state)
    assert torchlike.rand(3, generator=g1).tolist() == u.tolist()


def test_inplace_semantics():
    x = torchlike.zeros(2, 3)
    v = x.narrow(1, 0, 2)
    assert v.uniform_(5, 6) is v
    a = np.asarray(x._value)
    assert (a[:, :2] >= 5).all() and (a[:, 2] == 0).all()
    with torchlike.no_grad():
        p = torchlike.zeros(3, requires_grad=True)
        p.normal_()
    assert p.requires_grad and p.is_leaf
    o = torchlike.empty(0)
    torchlike.rand(2, 2, out=o)
    assert o.shape == (2, 2)
