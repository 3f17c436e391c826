"""The fast eager paths of the CPU generator against real torch, on both sides of each threshold:
float32/half/bfloat16 normals through the XLA program (>= 16 floats, chunks of 16, 256 and 4096 rows),
the scalar path below; randperm's list loop (n <= 768) and vectorized resolution above; scalar bernoulli's
integer comparison; randint; the host->device copy (dtypes, shapes, 0-d); generator objects and
get_rng_state/set_rng_state round trips across the paths; no XLA compilation for a new size."""
import numpy as np
import pytest

import torchlike as tl
from conftest import same_draws_as_torch, torch_or_tl
from torchlike import _mt_kernels, _mt_xla

torch = pytest.importorskip("torch", reason="torch is the oracle for the generator's streams")

FLOATS = [("float32", torch.float32), ("float16", torch.float16), ("bfloat16", torch.bfloat16),
          ("float64", torch.float64)]
XLA = _mt_kernels._XLA_MIN
NORMAL_SIZES = [XLA - 1, XLA, XLA + 7, 32, 1000, 16 * _mt_xla.TINY * 4 + 16, 4095, 4096,
                16 * _mt_xla.SMALL * 3 + 16 * 5 + 3, 16 * _mt_xla.BIG + 16,
                16 * _mt_xla.BIG * 2 + 16 * (_mt_xla.BIG // 2 + 1) + 9]


@pytest.mark.parametrize("n", NORMAL_SIZES)
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_randn_both_sides_of_the_xla_threshold(n, name, tdt):
    d = getattr(tl, name)
    same_draws_as_torch(torch_or_tl(lambda: torch.randn(n, dtype=tdt), lambda: tl.randn(n, dtype=d)), 5)


@pytest.mark.parametrize("n", [XLA + 3, 4080, 70001])
def test_normal_variants_through_the_xla_program(n):
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(n).normal_(1.5, 0.3), lambda: tl.empty(n).normal_(1.5, 0.3)), 1)
    same_draws_as_torch(torch_or_tl(lambda: torch.normal(-2.0, 3.0, (n,)), lambda: tl.normal(-2.0, 3.0, (n,))), 2)
    same_draws_as_torch(torch_or_tl(lambda: torch.randn(3, n // 3), lambda: tl.randn(3, n // 3)), 3)
    same_draws_as_torch(torch_or_tl(lambda: torch.nn.init.normal_(torch.empty(n // 16, 16), 0.0, 0.02),
                                    lambda: tl.nn.init.normal_(tl.empty(n // 16, 16), 0.0, 0.02)), 4)
    same_draws_as_torch(torch_or_tl(lambda: torch.randn(n, dtype=torch.complex64),
                                    lambda: tl.randn(n, dtype=tl.complex64)), 6)


def test_xla_rows_equal_the_numpy_reference_at_the_edges():
    # torch's kernel maps u1 -> 1 - u1 and u2 -> 2 pi u2: the extreme 24-bit uniforms and random rows
    k = np.random.RandomState(0).randint(0, 2 ** 24, (700, 16)).astype(np.float32)
    k[:3] = 0
    k[3:6] = 2 ** 24 - 1
    k[6:9, :8], k[6:9, 8:] = 1, 2 ** 24 - 1
    d = k * np.float32(2.0 ** -24)
    for mean, std in ((0.0, 1.0), (0.3, 2.5), (-1e3, 1e-3)):
        ref = d.copy()
        _mt_kernels._box_muller16_f32(ref, np.float32(mean), np.float32(std))
        np.testing.assert_array_equal(_mt_xla.normal_rows(d, mean, std).view(np.uint32), ref.view(np.uint32))


def test_generator_object_and_state_round_trip_across_paths():
    g, h = tl.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    for n in (5, 100, XLA + 1, 20000, 3):  # scalar path, numpy rows, XLA, XLA, scalar (cached second normal)
        np.testing.assert_array_equal(tl.randn(n, generator=g).numpy(), torch.randn(n, generator=h).numpy())
    st = g.get_state()
    np.testing.assert_array_equal(st.numpy(), h.get_state().numpy())
    a = tl.randn(9000, generator=g).numpy()
    g.set_state(st)
    np.testing.assert_array_equal(tl.randn(9000, generator=g).numpy(), a)
    # a state saved by torch restores here, then both continue alike on the fast paths
    tl.set_rng_state(tl.tensor(h.get_state().numpy()))
    np.testing.assert_array_equal(tl.randn(XLA * 2 + 5).numpy(), torch.randn(XLA * 2 + 5, generator=h).numpy())
    np.testing.assert_array_equal(tl.randint(0, 100, (32,)).numpy(), torch.randint(0, 100, (32,), generator=h).numpy())


@pytest.mark.parametrize("n", [1, 2, 3, 100, 767, 768, 769, 1000, 5000])
def test_randperm_both_sides_of_the_loop_threshold(n):
    same_draws_as_torch(torch_or_tl(lambda: torch.randperm(n), lambda: tl.randperm(n)), 0)
    same_draws_as_torch(torch_or_tl(lambda: torch.randperm(n, dtype=torch.int32),
                                    lambda: tl.randperm(n, dtype=tl.int32)), 9)


@pytest.mark.parametrize("p", [0.0, 2.0 ** -1001, 1e-300, 0.1, 0.5, 1 - 2.0 ** -53, 1.0])
def test_scalar_bernoulli_integer_compare(p):
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(3000).bernoulli_(p), lambda: tl.empty(3000).bernoulli_(p)), 1)
    same_draws_as_torch(torch_or_tl(lambda: torch.bernoulli(torch.zeros(40, dtype=torch.float64), p),
                                    lambda: tl.bernoulli(tl.zeros(40, dtype=tl.float64), p)), 2)


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_training_matches_torch(p):
    x = np.random.RandomState(0).randn(32, 128).astype(np.float32)
    same_draws_as_torch(torch_or_tl(lambda: torch.nn.functional.dropout(torch.tensor(x), p, True),
                                    lambda: tl.nn.functional.dropout(tl.tensor(x), p, True)), 3)


@pytest.mark.parametrize("dt,tdt", [(tl.int64, torch.int64), (tl.int32, torch.int32), (tl.uint8, torch.uint8),
                                    (tl.float32, torch.float32), (tl.int16, torch.int16)])
def test_randint_fast_path_dtypes(dt, tdt):
    same_draws_as_torch(torch_or_tl(lambda: torch.randint(0, 100, (32,), dtype=tdt),
                                    lambda: tl.randint(0, 100, (32,), dtype=dt)), 0)
    same_draws_as_torch(torch_or_tl(lambda: torch.randint(3, 50, (4, 8), dtype=tdt),
                                    lambda: tl.randint(3, 50, (4, 8), dtype=dt)), 1)


def test_randint_wide_and_empty_and_scalar_shapes():
    same_draws_as_torch(torch_or_tl(lambda: torch.randint(-2 ** 40, 2 ** 40, (7,)),
                                    lambda: tl.randint(-2 ** 40, 2 ** 40, (7,))), 0)
    same_draws_as_torch(torch_or_tl(lambda: torch.randint(0, 5, ()), lambda: tl.randint(0, 5, ())), 1)
    same_draws_as_torch(torch_or_tl(lambda: torch.randint(0, 5, (0, 3)), lambda: tl.randint(0, 5, (0, 3))), 2)
    same_draws_as_torch(torch_or_tl(lambda: torch.rand(()), lambda: tl.rand(())), 3)
    same_draws_as_torch(torch_or_tl(lambda: torch.rand(2, 0, 3), lambda: tl.rand(2, 0, 3)), 4)


def test_fast_copy_is_jnp_asarray():
    import jax.numpy as jnp
    import ml_dtypes
    for x in (np.arange(6, dtype=np.float32).reshape(2, 3), np.array(3.5), np.zeros((0, 2), np.int64),
              np.ones(5, ml_dtypes.bfloat16), np.array([True, False]), np.arange(4.0)[::2]):
        a, b = _mt_xla.to_device(x), jnp.asarray(x)
        assert a.shape == b.shape and a.dtype == b.dtype and a.committed == b.committed
        assert a.devices() == b.devices()
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_array_equal(np.asarray(a + a), np.asarray(b + b))


def test_new_sizes_compile_nothing():
    import jax.monitoring
    count = [0]

    def on(name, *a, **k):
        if name.endswith("backend_compile_duration"):
            count[0] += 1
    jax.monitoring.register_event_duration_secs_listener(on)
    for n in (XLA, 16 * _mt_xla.BIG * 2, 4096):  # warm the three chunk programs
        tl.randn(n)
        tl.rand(n)
        tl.randint(0, 10, (n,))
    sizes = (XLA + 123, 16 * _mt_xla.BIG + 4321, 50001, 33, 1001)
    targets = {n: tl.empty(n) for n in sizes}  # (empty() itself compiles per size: not a random op)
    before = count[0]
    for n in sizes:
        tl.randn(n)
        tl.rand(n)
        tl.randint(0, 10, (n,))
        tl.randperm(n)
        targets[n].normal_()
        targets[n].uniform_(-1, 1)
        targets[n].bernoulli_(0.3)
    assert count[0] == before


def _mixed_factory_calls(m, g):
    """Factory calls that take the host fast path (plain int sizes, a tuple, default device) between ones that do
    not (a list or torch.Size size, a dtype, out=, requires_grad, a draw above HOST_MAX); a Generator object."""
    out = [m.rand(32), m.rand(4, 4), m.rand((2, 3)), m.rand(3, dtype=m.float64), m.rand(size=(5,)),
           m.randint(9000, (32,)), m.randint(-7, 7, (3, 4)), m.randint(0, 2 ** 40, (3,)),
           m.randint(3, (2,), dtype=m.int32), m.randint(2, 9, size=(4,)), m.rand(m.Size([2, 2])),
           m.randn(5), m.randn(2, 17), m.rand(2, requires_grad=True), m.rand(3, generator=g),
           m.randint(5, (4,), generator=g), m.randn(4, generator=g), m.rand(()), m.rand(0), m.randint(4, (0,)),
           m.rand([2, 2]), m.randint(5, [3]), m.randint(5, size=(2,)), m.randn(size=(3,)), m.randint(1, 4, (2,))]
    o = m.empty(6)
    m.rand(6, out=o)
    out.append(o)
    out.append(m.rand(70000)[-5:])  # above HOST_MAX: drawn through the general path
    out.append(m.randint(-2 ** 63, 2 ** 63 - 1, (4,)))
    return out


def test_quick_factories_mixed_with_the_general_path_match_torch():
    """rand/randn/randint's fast path (host words straight into a host tensor) interleaved with the general
    path, the default generator and a Generator object: the same values, dtypes, shapes and stream as torch."""
    def run(m):
        g = m.Generator().manual_seed(11)
        return _mixed_factory_calls(m, g) + [m.rand(3, generator=g)]
    same_draws_as_torch(run, 3)
    same_draws_as_torch(run, 2 ** 40 + 3)


def test_quick_factories_results_are_plain_tensors():
    """A fast-path draw behaves like any tensor: a device op reads it, autograd and in-place writes see it, and
    it moves to the device unchanged (no state shared with the generator)."""
    def run(m):
        x = m.rand(8)
        w = m.ones(8, requires_grad=True)
        y = (x * w).sum()
        y.backward()
        i = m.randint(8, (5,))
        x[i] = 2.0
        return [x, w.grad, i, x.sum()]
    same_draws_as_torch(run, 0)


def test_quick_factories_skip_the_general_draw(monkeypatch):
    """The calls the mixed test above counts as fast really take the host path (the general ``draw`` unused)
    and give host-resident tensors; the same values as torch for the seed."""
    from torchlike._ops import random_ops

    def general(*a, **k):
        raise AssertionError("the general draw ran")
    monkeypatch.setattr(random_ops, "draw", general)
    tl.manual_seed(4)
    torch.manual_seed(4)
    for ours, theirs in [(tl.rand(32), torch.rand(32)), (tl.randint(9000, (32,)), torch.randint(9000, (32,))),
                         (tl.randn(2, 3), torch.randn(2, 3)), (tl.rand((2, 3)), torch.rand((2, 3))),
                         (tl.rand(size=(4,)), torch.rand(size=(4,))), (tl.randint(3, 7, size=(5,)),
                                                                       torch.randint(3, 7, size=(5,)))]:
        assert ours._host_array() is not None
        assert str(ours.dtype) == str(theirs.dtype) and np.array_equal(ours.numpy(), theirs.numpy())
