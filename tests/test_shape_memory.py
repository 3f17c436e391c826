"""Memory with changing shapes: creating a tensor from host data of a new shape compiles no XLA program
(JAX's ``stage`` primitive used to compile and keep one per shape, outside torchlike's cache bound), the
copy is a real copy as in torch, and evictions hand freed heap back to the OS."""
import numpy as np
import pytest

import torchlike
from torchlike import _jit_cache
from conftest import XlaCompiles

torch = pytest.importorskip("torch", reason="torch is the oracle for these comparisons")



@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_, np.float16])
def test_tensor_from_ndarray_of_new_shapes_compiles_nothing(dtype):
    torchlike.tensor(np.zeros((2, 2), dtype))  # backend start-up, outside the count
    with XlaCompiles() as c:
        outs = [torchlike.tensor(np.arange(n * 3).reshape(n, 3).astype(dtype)) for n in (101, 102, 103)]
    assert c.n == 0
    for n, t in zip((101, 102, 103), outs):
        ref = torch.tensor(np.arange(n * 3).reshape(n, 3).astype(dtype))
        assert str(t.dtype) == str(ref.dtype)
        np.testing.assert_array_equal(t.numpy(), ref.numpy())


@pytest.mark.parametrize("how", ["from_numpy", "frombuffer", "pickle"])
def test_other_host_to_tensor_paths_compile_nothing_for_new_shapes(how):
    import pickle
    torchlike.from_numpy(np.zeros(3, np.float32))
    srcs = [np.arange(n, dtype=np.float32) for n in (201, 202, 203)]
    if how == "pickle":
        srcs = [pickle.dumps(torchlike.tensor(a)) for a in srcs]
    with XlaCompiles() as c:
        if how == "from_numpy":
            outs = [torchlike.from_numpy(a) for a in srcs]
        elif how == "frombuffer":
            outs = [torchlike.frombuffer(bytearray(a.tobytes()), dtype=torchlike.float32) for a in srcs]
        else:
            outs = [pickle.loads(b) for b in srcs]
    assert c.n == 0
    for n, t in zip((201, 202, 203), outs):
        np.testing.assert_array_equal(t.numpy(), torch.arange(n, dtype=torch.float32).numpy())


def test_tensor_from_ndarray_copies_like_torch():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t, r = torchlike.tensor(a), torch.tensor(a)
    a[0, 0] = 100.0  # torch.tensor copies: a later write to the source is not seen
    assert t[0, 0].item() == r[0, 0].item() == 0.0


def test_eviction_trims_the_heap_at_most_once_a_second(monkeypatch):
    calls, now = [], [1000.0]
    monkeypatch.setitem(_jit_cache._TRIM, "fn", lambda pad: calls.append(pad))
    monkeypatch.setitem(_jit_cache._TRIM, "last", 0.0)
    monkeypatch.setattr(_jit_cache, "_monotonic", lambda: now[0])
    torchlike.set_cache_size(4)
    try:
        for n in range(1, 8):  # (exp: a device program per shape; ones * 2 and sum of host tensors run in numpy)
            (torchlike.ones(n, 5).exp() * 2).sum()
        assert torchlike.cache_info()["evictions"] > 0
        assert calls == [0]  # many evictions within one second: one trim
        now[0] += 1.5
        for n in range(8, 10):
            (torchlike.ones(n, 5).exp() * 2).sum()
        assert calls == [0, 0]
    finally:
        torchlike.set_cache_size(None)


def test_host_tensors_move_to_the_device_without_compiling():
    """A host-resident tensor (small CPU creation) of a new shape reaches the device by a transfer, not by a
    per-shape program: only the op itself compiles."""
    import jax.monitoring
    count = [0]

    def on(name, *a, **k):
        if name.endswith("backend_compile_duration"):
            count[0] += 1
    jax.monitoring.register_event_duration_secs_listener(on)
    w = torchlike.ones(7)
    for n in (3, 4):  # warm
        _ = (torchlike.zeros(n, 7) + w).sum()
    before = count[0]
    for n in range(50, 60):
        x = torchlike.zeros(n, 7)
        assert x._host_array() is not None
        _ = x + w
    assert count[0] - before <= 10  # one add per shape, no transfer program
