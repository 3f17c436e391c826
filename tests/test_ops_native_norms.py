"""torch.native_layer_norm / native_batch_norm / _native_batch_norm_legit / native_group_norm against torch:
all three outputs (values, shapes, dtypes), which of them carry gradients, running-statistics updates,
eval mode, half precision, and errors; ``_batch_norm_with_update`` and the dtype of batch norm's statistics
for half inputs."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, raises_like_torch, same_as_torch, tensor_pair

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
W45, B45 = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
W3, B3 = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
RM, RV = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)

CASES = {
    "layer_norm": (lambda m, x, w, b: m.native_layer_norm(x, [4, 5], w, b, 1e-5), X, W45, B45),
    "layer_norm_no_affine": (lambda m, x: m.native_layer_norm(x, [5], None, None, 1e-3), X),
    "batch_norm_train": (lambda m, x, w, b: m.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5), X, W3, B3),
    "batch_norm_eval": (lambda m, x, w, b, rm, rv: m.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)[0],
                        X, W3, B3, RM, RV),
    "legit_no_stats": (lambda m, x, w, b: m._native_batch_norm_legit(x, w, b, True, 0.1, 1e-5), X, W3, B3),
    "group_norm": (lambda m, x, w, b: m.native_group_norm(x, w, b, 2, 3, 20, 3, 1e-5), X, W3, B3),
    "group_norm_no_affine": (lambda m, x: m.native_group_norm(x.reshape(2, 6, 10), None, None, 2, 6, 10, 2, 1e-5),
                             X),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_like_torch(case):
    fn, *inputs = CASES[case]
    same_as_torch(fn, *inputs, grad_inputs=(0, 1, 2) if case == "batch_norm_eval" else None)


@pytest.mark.parametrize("op", ["layer", "batch", "group"])
def test_which_outputs_carry_gradients_like_torch(op):
    import torch

    import torchlike as tl
    got = []
    for m in (torch, tl):
        x = m.tensor(X, requires_grad=True)
        if op == "layer":
            outs = m.native_layer_norm(x, [5], None, None, 1e-5)
        elif op == "batch":
            outs = m.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
        else:
            outs = m.native_group_norm(x, None, None, 2, 3, 20, 3, 1e-5)
        got.append([o.requires_grad for o in outs])
    assert got[0] == got[1]


@pytest.mark.parametrize("legit", [False, True])
def test_training_updates_running_statistics_like_torch(legit):
    import torch

    import torchlike as tl
    res = []
    for m in (torch, tl):
        rm, rv = m.tensor(RM.copy()), m.tensor(RV.copy())
        f = m._native_batch_norm_legit if legit else m.native_batch_norm
        out, mean, invstd = f(m.tensor(X), None, None, rm, rv, True, 0.3, 1e-5)
        res.append([np.asarray(t.tolist()) for t in (out, mean, invstd, rm, rv)])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_eval_mode_returns_empty_statistics_like_torch():
    import torch

    import torchlike as tl
    shapes = []
    for m in (torch, tl):
        outs = m.native_batch_norm(m.tensor(X), None, None, m.tensor(RM), m.tensor(RV), False, 0.1, 1e-5)
        shapes.append([(tuple(o.shape), str(o.dtype).split(".")[-1]) for o in outs])
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_keeps_the_input_dtype_like_torch(dtype):
    import torch

    import torchlike as tl
    res = []
    for m in (torch, tl):
        x = m.tensor(X).to(getattr(m, dtype))
        outs = (m.native_layer_norm(x, [5], None, None, 1e-5) + m.native_batch_norm(x, None, None, None, None, True,
                                                                                   0.1, 1e-5))
        res.append([(str(o.dtype).split(".")[-1], np.asarray(o.float().tolist())) for o in outs])
    for (da, a), (db, b) in zip(*res):
        assert da == db
        np.testing.assert_allclose(b, a, rtol=1e-2, atol=1e-2)


def test_errors_like_torch():
    raises_like_torch(lambda m, x: m.native_layer_norm(x, [4], None, None, 1e-5), X)
    raises_like_torch(lambda m, x: m.native_group_norm(x, None, None, 2, 3, 20, 2, 1e-5), X, match="divisible")


# --- _batch_norm_with_update and the dtype of batch norm's statistics -----------------------------
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_with_update_matches_torch(affine):
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    w, b = (rng.standard_normal(3).astype(np.float32) for _ in range(2))
    rm_a, rm_b = tensor_pair(np.zeros(3, np.float32))
    rv_a, rv_b = tensor_pair(np.ones(3, np.float32))
    wa, wb = tensor_pair(w) if affine else (None, None)
    ba, bb = tensor_pair(b) if affine else (None, None)
    got = torchlike.ops.aten._batch_norm_with_update(torchlike.tensor(x), wa, ba, rm_a, rv_a, 0.1, 1e-5)
    want = torch.ops.aten._batch_norm_with_update(torch.tensor(x), wb, bb, rm_b, rv_b, 0.1, 1e-5)
    assert len(got) == len(want) == 4
    for a, b in zip(got, want):
        assert_same(a, b, rtol=1e-5, atol=1e-5)
    assert_same(rm_a, rm_b, rtol=1e-5, atol=1e-5)
    assert_same(rv_a, rv_b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["stats", "eval", "no_stats", "weight_only"])
def test_native_batch_norm_half_statistics_dtype(case):
    """torch keeps the statistics in float32 for a bfloat16 input with float32 parameters, else the input's."""
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)

    def run(lib):
        xi = lib.tensor(x).to(lib.bfloat16)
        stats = (lib.zeros(3), lib.ones(3)) if case in ("stats", "eval") else (None, None)
        w = lib.ones(3) if case == "weight_only" else None
        return lib.native_batch_norm(xi, w, None, *stats, case != "eval", 0.1, 1e-5)
    for a, b in zip(run(torchlike), run(torch)):
        assert_same(a, b, rtol=1e-2, atol=1e-2)


# every CPU normalisation entry point, by (input dtype, parameter dtypes): torch allows "mixed" parameters only
# as float32 ones of a float16/bfloat16 input, and otherwise wants every parameter in the input's dtype
NORM_ENTRIES = {
    "F.layer_norm": lambda m, x, w, b, rm, rv: m.nn.functional.layer_norm(x, (4,), w, b),
    "native_layer_norm": lambda m, x, w, b, rm, rv: m.native_layer_norm(x, [4], w, b, 1e-5)[0],
    "F.group_norm": lambda m, x, w, b, rm, rv: m.nn.functional.group_norm(x, 2, w, b),
    "native_group_norm": lambda m, x, w, b, rm, rv: m.native_group_norm(x, w, b, 2, 4, 4, 2, 1e-5)[0],
    "F.batch_norm train": lambda m, x, w, b, rm, rv: m.nn.functional.batch_norm(x, rm, rv, w, b, training=True),
    "F.batch_norm eval": lambda m, x, w, b, rm, rv: m.nn.functional.batch_norm(x, rm, rv, w, b, training=False),
    "native_batch_norm": lambda m, x, w, b, rm, rv: m.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)[0],
    "_native_batch_norm_legit": lambda m, x, w, b, rm, rv: m._native_batch_norm_legit(x, w, b, rm, rv, False, 0.1,
                                                                                      1e-5)[0],
    "F.instance_norm": lambda m, x, w, b, rm, rv: m.nn.functional.instance_norm(x, rm, rv, w, b),
}
# (input, weight, bias, running_mean, running_var) dtypes; None: not given
NORM_DTYPES = [("float32", "float16", "float16", "float32", "float32"),
               ("float32", "float64", "float64", "float64", "float64"),
               ("float64", "float32", "float32", "float32", "float32"),
               ("float16", "float32", "float32", "float32", "float32"),
               ("bfloat16", "float32", None, "float32", "float32"),
               ("float16", "bfloat16", "bfloat16", "float32", "float32"),
               ("float32", "float32", "float16", "float32", "float32"),
               ("float32", None, "float16", "float32", "float32"),
               ("float16", "float16", "float32", "float16", "float16"),
               ("float32", "float32", "float32", "float16", "float16"),
               ("float16", None, None, "float32", "float32")]


@pytest.mark.parametrize("dtypes", NORM_DTYPES, ids=lambda d: "-".join(map(str, d)))
@pytest.mark.parametrize("entry", sorted(NORM_ENTRIES))
def test_parameter_dtypes_like_torch(entry, dtypes):
    """F.layer_norm(float32 x, float16 weight) computed a float32 result where torch's CPU kernel raises "mixed
    dtype (CPU): ..." (whisper's fp32 LayerNorm on a half model): the rule of aten's mixed_type.h, then the
    kernel's "expected scalar type" for a parameter that is not mixed, on every entry point."""
    fn = NORM_ENTRIES[entry]

    def call(m):
        x = m.arange(32, dtype=m.float32).reshape(2, 4, 4).sin().to(getattr(m, dtypes[0]))
        w, b, rm, rv = [None if d is None else m.full((4,), 0.5 + i, dtype=getattr(m, d))
                        for i, d in enumerate(dtypes[1:])]
        return fn(m, x, w, b, rm, rv)
    try:
        call(torch)
    except RuntimeError:
        raises_like_torch(call)
    else:  # (half inputs: torch rounds batch statistics to half first where no float32 parameter makes it
        # "mixed"; docs/differences.md)
        half = dtypes[0] in ("float16", "bfloat16")
        same_as_torch(call, grad=False, rtol=1e-2 if half else None, atol=1e-2 if half else None)


@pytest.mark.parametrize("shape,ns", [((48, 16), (16,)), ((4, 5, 16), (16,)), ((7, 33), (33,)), ((3, 100), (100,)),
                                      ((5, 6), (6,)), ((2, 3, 4, 8), (4, 8)), ((3, 128), (128,))])
def test_float32_layer_norm_rounds_as_torchs_cpu_kernel(shape, ns):
    """torch's float32 CPU layer norm takes Welford moments over 8-lane vectors (its AVX2 build, on AVX-512 CPUs
    too) and fuses the last multiply-add of (x - mean) * rstd * w + b: bit-equal for rows up to 128 values
    (XLA's two-pass mean and variance differed in a third of the rows; an MLP's loss under optimi differed)."""
    x = rng.standard_normal(shape).astype(np.float32) * 3 + 1
    w, b = (rng.standard_normal(ns).astype(np.float32) for _ in range(2))
    out = []
    for L in (torch, torchlike):
        f = L.nn.functional.layer_norm
        X, W, B = L.tensor(x), L.tensor(w), L.tensor(b)
        out.append([f(X, ns), f(X, ns, W), f(X, ns, W, B), f(X, ns, None, B),
                    *L.native_layer_norm(X, list(ns), W, B, 1e-5)])
    for theirs, ours in zip(*out):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
