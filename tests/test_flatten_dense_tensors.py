"""torch._utils' dense-buffer helpers (``_flatten_dense_tensors``, ``_unflatten_dense_tensors``, ``_take_tensors``,
``_reorder_tensors_as``; fp16 master-weight and bucketing utilities import them, torchcfm's UNet among them)
compared with torch: values, gradients, which results are views of the buffer, and the empty-list error."""
import numpy as np

from conftest import raises_like_torch, same_as_torch

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.array([7.0, 8.0], np.float32)


def _u(lib):
    return __import__(lib.__name__ + "._utils", fromlist=["x"])


def test_flatten_concatenates_non_contiguous_inputs_with_gradients():
    same_as_torch(lambda m, a, b: _u(m)._flatten_dense_tensors([a.t(), b]) * 2, A, B)


def test_unflatten_gives_views_of_the_buffer_and_fresh_empty_tensors():
    def run(m, a, b):
        u = _u(m)
        flat = u._flatten_dense_tensors([a, m.empty(0), b])
        parts = u._unflatten_dense_tensors(flat, [a.t(), m.empty(0), b])
        parts[0].mul_(10)  # writes through into ``flat``
        return flat, [tuple(p.shape) for p in parts], [p._base is flat for p in parts], parts[0]
    same_as_torch(run, A, B, grad=False)


def test_flatten_of_one_tensor_is_its_view():
    def run(m, b):
        flat = _u(m)._flatten_dense_tensors([b])
        flat[0] = -1.0
        return b, flat._base is b
    same_as_torch(run, B, grad=False)


def test_flatten_of_no_tensors_raises_like_torch():
    raises_like_torch(lambda m: _u(m)._flatten_dense_tensors([]))


def test_take_tensors_chunks_by_type_and_size_and_reorder_restores_order():
    def run(m):
        u = _u(m)
        ts = [m.ones(3), m.ones(2, dtype=m.float64), m.ones(5), m.zeros(1), m.ones(1, dtype=m.float64)]
        chunks = list(u._take_tensors(ts, 16))
        flat_order = [t for chunk in chunks for t in chunk]
        back = u._reorder_tensors_as(flat_order, ts)
        return [[(t.dtype, t.numel()) for t in c] for c in chunks], [b is t for b, t in zip(back, ts)]
    same_as_torch(run, grad=False)
