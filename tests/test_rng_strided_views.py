"""Random fills of strided views equal torch's bit for bit: in-place samplers fill a non-contiguous view in
torch's stride order (a non-contiguous ``normal_`` element by element), ``*_like`` factories of a strided
input, dropout of a strided input, complex fills of a transposed view.  Every expected value comes from
torch run with the same seed; after each draw both frameworks draw ``rand(3)`` too
(``same_draws_as_torch``), so the number of words consumed is checked as well."""
import numpy as np
import pytest

from conftest import same_draws_as_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for the random streams")

DT = ["float32", "float64", "float16", "bfloat16"]


# --- strided views: torch fills in stride order (and a non-contiguous normal_ element by element) ---------
VIEWS = {
    "t": lambda m, d: m.zeros(8, 6, dtype=d).t(),
    "permute": lambda m, d: m.zeros(3, 4, 5, dtype=d).permute(2, 0, 1),
    "column": lambda m, d: m.zeros(20, 3, dtype=d)[:, 1],
    "step": lambda m, d: m.zeros(8, 6, dtype=d)[:, ::2],
    "big_t": lambda m, d: m.zeros(40, 30, dtype=d).t(),
    "slice_permute": lambda m, d: m.zeros(6, 8, 4, dtype=d)[:, 1:7].permute(1, 2, 0),
}


FILLS = {
    "uniform_": lambda z: z.uniform_(-1, 2), "normal_": lambda z: z.normal_(1, 2),
    "exponential_": lambda z: z.exponential_(), "cauchy_": lambda z: z.cauchy_(),
    "log_normal_": lambda z: z.log_normal_(), "geometric_": lambda z: z.geometric_(0.3),
    "bernoulli_": lambda z: z.bernoulli_(0.4), "random_": lambda z: z.random_(),
    "random_from_to": lambda z: z.random_(3, 9),
    "bernoulli_tensor": lambda z: z.bernoulli_(z.new_tensor(np.linspace(0, 1, z.numel()).reshape(tuple(z.shape)))),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_inplace_fill_of_a_strided_view_matches_torch(view, fill, dt):
    def run(m):
        z = VIEWS[view](m, getattr(m, dt))
        FILLS[fill](z)
        return [z, z._base]
    same_draws_as_torch(run)


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dt", DT)
def test_like_factories_of_a_strided_input_match_torch(view, dt):
    same_draws_as_torch(lambda m: [m.rand_like(VIEWS[view](m, getattr(m, dt))), m.randn_like(VIEWS[view](m, getattr(m, dt))),
                     m.randint_like(VIEWS[view](m, getattr(m, dt)), 0, 100),
                     m.randn_like(VIEWS[view](m, getattr(m, dt)), memory_format=m.contiguous_format)])


def test_like_factories_with_channels_last_match_torch():
    same_draws_as_torch(lambda m: [m.randn_like(m.zeros(2, 3, 4, 5), memory_format=m.channels_last),
                     m.rand_like(m.zeros(2, 3, 4, 5, 2), memory_format=m.channels_last_3d)])


@pytest.mark.parametrize("make", [lambda m: m.ones(8, 6).t(), lambda m: m.arange(6000.).reshape(30, 40, 5).permute(2, 0, 1),
                                  lambda m: m.ones(8, 6)[:, ::2]], ids=["t", "permute", "step"])
def test_dropout_of_a_strided_input_matches_torch(make):
    F = lambda m: m.nn.functional  # noqa: E731
    same_draws_as_torch(lambda m: [F(m).dropout(make(m), 0.3), F(m).alpha_dropout(make(m), 0.3, True),
                     F(m).dropout2d(m.ones(2, 3, 4, 5).transpose(0, 1), 0.5)])


def test_inplace_dropout_of_a_transposed_view_matches_torch():
    def run(m):
        base = m.ones(8, 6)
        m.nn.functional.dropout(base.t(), 0.5, inplace=True)
        return base
    same_draws_as_torch(run)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 2), (8, 6)])
def test_complex_fills_of_a_transposed_view_match_torch(dt, shape):
    def run(m):
        z = m.zeros(*shape, dtype=getattr(m, dt)).t()
        z.normal_()
        u = m.zeros(*shape, dtype=getattr(m, dt)).t()
        u.uniform_()
        like = m.zeros(*shape, dtype=getattr(m, dt)).t()
        return [z._base, u._base, m.randn_like(like), m.rand_like(like)]
    same_draws_as_torch(run)
