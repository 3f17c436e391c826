"""torch._grouped_mm / F.grouped_mm (Mixture-of-Experts grouped products; transformers' default experts
implementation calls it on CPU) against torch's CPU kernel: values, output strides, gradients and errors."""
import numpy as np
import pytest

from conftest import raises_like_torch

rng = np.random.default_rng(0)


def _arr(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# (a, b, offs or None, b is (G, N, K) to be transposed) with rows past offs[-1] / decreasing offsets included
CASES = {
    "2d3d": (_arr(10, 8), _arr(3, 8, 4), [3, 7, 10], False),
    "2d3d_padded_out": (_arr(10, 8), _arr(3, 8, 12), [3, 7, 10], False),
    "2d3d_colmajor_b": (_arr(10, 8), _arr(3, 12, 8), [2, 2, 10], True),
    "2d3d_empty_groups": (_arr(12, 8), _arr(4, 8, 4), [0, 5, 5, 12], False),
    "2d3d_over_end": (_arr(10, 8), _arr(3, 8, 4), [3, 7, 15], False),
    "2d3d_decreasing": (_arr(10, 8), _arr(3, 8, 4), [7, 3, 10], False),
    "3d2d": (_arr(3, 5, 8), _arr(8, 12), [4, 8, 12], False),
    "2d2d": (_arr(4, 12), _arr(12, 8), [4, 8, 12], False),
    "3d3d": (_arr(3, 5, 8), _arr(3, 8, 4), None, False),
    # bfloat16 (the stride of a row of 8 values is 16 bytes, torch's alignment; products accumulate in float32)
    "2d3d_bf16": (_arr(10, 8), _arr(3, 8, 16), [3, 7, 10], False),
    "2d3d_colmajor_b_bf16": (_arr(10, 16), _arr(3, 24, 16), [1, 9, 10], True),
    "3d2d_bf16": (_arr(3, 5, 8), _arr(8, 24), [8, 16, 24], False),
    "2d2d_bf16": (_arr(4, 24), _arr(24, 8), [8, 10, 24], False),
    "3d3d_bf16": (_arr(3, 5, 8), _arr(3, 8, 8), None, False),
}


def _run(m, a, b, offs, transpose, dtype="float32", grad=False):
    ta = m.tensor(a).to(getattr(m, dtype))
    tb = m.tensor(b).to(getattr(m, dtype))
    if transpose:  # (b given as (G, N, K): a column-major (G, K, N), as a Linear weight's transpose)
        tb = tb.transpose(-2, -1)
    if grad:
        ta.requires_grad_()
        tb.requires_grad_()
    o = None if offs is None else m.tensor(offs, dtype=m.int32)
    r = m.nn.functional.grouped_mm(ta, tb, offs=o)
    return ta, tb, r


@pytest.mark.parametrize("case", list(CASES))
def test_values_shapes_and_strides_match_torch(case):
    import torch

    import torchlike
    a, b, offs, tr = CASES[case]
    dtype = "bfloat16" if case.endswith("bf16") else "float32"
    _, _, theirs = _run(torch, a, b, offs, tr, dtype)
    _, _, ours = _run(torchlike, a, b, offs, tr, dtype)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.stride() == theirs.stride()
    assert str(ours.dtype) == str(theirs.dtype)
    t, o = theirs.float().numpy(), ours.float().numpy()
    if offs is not None and a.ndim == 2 and b.ndim == 3:  # rows past offs[-1]: torch leaves them uninitialised
        written = min(offs[-1], a.shape[0])
        t, o = t[:written], o[:written]
    tol = 1e-5 if dtype == "float32" else 1e-2
    np.testing.assert_allclose(o, t, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", ["2d3d", "2d3d_colmajor_b", "3d2d", "3d3d", "2d3d_empty_groups"])
def test_gradients_match_torch(case):
    import torch

    import torchlike
    a, b, offs, tr = CASES[case]
    grads, g = [], None
    for m in (torch, torchlike):
        ta, tb, r = _run(m, a, b, offs, tr, grad=True)
        if g is None:
            g = rng.standard_normal(tuple(r.shape)).astype(np.float32)
        r.backward(m.tensor(g))  # (torch's backward needs a cotangent of valid strides: not an expanded one)
        assert type(r.grad_fn).__name__ == "GroupedMmBackward0"
        grads.append((ta.grad.numpy(), tb.grad.numpy()))
    (ta_t, tb_t), (ta_o, tb_o) = grads
    np.testing.assert_allclose(ta_o, ta_t, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tb_o, tb_t, rtol=1e-4, atol=1e-4)


def _i32(m, v):
    return m.tensor(v, dtype=m.int32)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 4), offs=m.tensor([3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 4)),
    lambda m: m.nn.functional.grouped_mm(m.ones(3, 10, 8), m.ones(3, 8, 4), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(5, 10), m.ones(10, 4), offs=_i32(m, [3, 7])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 5), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8).double(), m.ones(3, 8, 4).double(), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8).int(), m.ones(3, 8, 4), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 4).half(), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 8).bfloat16(), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 4, 4), offs=_i32(m, [3, 7, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 4), offs=_i32(m, [[3, 7, 10]])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 4), offs=_i32(m, [3, 10])),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 8, 4), offs=_i32(m, [3, 7, 10]), bias=m.ones(4)),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8).bfloat16(), m.ones(3, 8, 8).bfloat16(),
                                         offs=_i32(m, [3, 7, 10]), out_dtype=m.float32),
    lambda m: m.nn.functional.grouped_mm(m.ones(3, 10, 8), m.ones(2, 8, 4)),
    lambda m: m.nn.functional.grouped_mm(m.ones(2, 3, 10, 8), m.ones(3, 8, 4)),
    lambda m: m.nn.functional.grouped_mm(m.ones(10, 8), m.ones(3, 4, 8).transpose(0, 1), offs=_i32(m, [3, 7, 10])),
    lambda m: m._grouped_mm(m.ones(4, 4)),
    lambda m: m.nn.functional.grouped_mm(1, m.ones(2, 2)),
    lambda m: m.nn.functional.grouped_mm(m.ones(4, 4), 2.0),
    lambda m: m._grouped_mm(m.ones(8, 4), m.ones(2, 4, 4), [4, 8]),
    lambda m: m._grouped_mm(m.ones(2, 4, 4), m.ones(2, 4, 4), None, None, "a"),
], ids=["offs_int64", "no_offs", "offs_with_3d", "2d2d_unaligned", "unaligned_b", "double", "int", "mixed_half",
        "mixed_bf16", "contraction", "offs_2d", "batch_mismatch", "bias", "out_dtype", "bmm_batch", "4d", "bad_strides",
        "missing_mat2",
        "int_input", "float_mat2", "list_offs", "str_out_dtype"])
def test_errors_match_torch(call):
    raises_like_torch(call)


def test_compiled_matches_eager():
    import torchlike
    a, b = torchlike.tensor(_arr(10, 8)), torchlike.tensor(_arr(3, 8, 4))
    offs = torchlike.tensor([3, 7, 10], dtype=torchlike.int32)
    f = torchlike.compile(lambda a, b, o: torchlike.nn.functional.grouped_mm(a, b, offs=o), fullgraph=True)
    np.testing.assert_allclose(f(a, b, offs).numpy(), torchlike.nn.functional.grouped_mm(a, b, offs=offs).numpy(),
                               rtol=1e-6)
