"""Mistakes users make every day, fed to torch and to torchlike: the same exception type and message (found by
sweeping ~220 such calls next to torch; the ones here had JAX's words, another message, or no error)."""
import pytest

from conftest import raises_like_torch

PAD_CASES = [((1, 3, 4), p, m) for p in [(-5, 0), (-4, 0), (-2, -2), (0, -5), (-5, 1), (1, -6), (0, 0, -4, 1)]
             for m in ("constant", "reflect", "replicate", "circular")] + [
    ((1, 1, 3, 4), (-4, 0, -3, 0), "reflect"), ((1, 1, 3, 4), (-4, 0, -3, 0), "replicate"),
    ((1, 1, 2, 3, 4), (-4, 0, -3, 0, -2, 0), "reflect"), ((1, 1, 2, 3, 4), (0, 0, 0, 0, -3, 0), "replicate"),
    ((1, 1, 2, 3, 4), (-5, 0, -4, 0, -3, 0), "circular"), ((1, 3, 0), (1, 1), "reflect"),
    ((1, 3, 0), (1, 1), "replicate")]


def _pad_call(shape, p, mode):
    def fn(m):
        x = m.arange(float(m.Size(shape).numel())).reshape(shape)
        return m.nn.functional.pad(x, p, mode=mode)
    return fn


@pytest.mark.parametrize("shape,p,mode", PAD_CASES)
def test_negative_and_empty_padding_like_torch(shape, p, mode):
    """Negative pads crop: cropping past a dim is narrow()'s error (constant, was JAX's ValueError), the kernels'
    'too small' (reflect/replicate) or 'empty dimension' (circular) error; an empty result is an empty tensor."""
    try:
        _pad_call(shape, p, mode)(__import__("torch"))
    except RuntimeError:
        raises_like_torch(_pad_call(shape, p, mode))
    else:
        from conftest import same_as_torch
        same_as_torch(lambda m: _pad_call(shape, p, mode)(m), grad=False)


MISTAKES = {
    "unflatten sizes that do not multiply up": lambda m: m.ones(3, 4).unflatten(1, (3, 3)),
    "unflatten with two -1": lambda m: m.ones(3, 4).unflatten(1, (-1, -1)),
    "unflatten with no sizes": lambda m: m.ones(3, 4).unflatten(1, ()),
    "unflatten a zero size": lambda m: m.ones(3, 4).unflatten(0, (3, 0)),
    "histc with no bins": lambda m: m.histc(m.ones(5), bins=-1),
    "histogramdd with zero bins": lambda m: m.histogramdd(m.ones(5, 2), bins=[0, 2]),
    "histogramdd with negative bins": lambda m: m.histogramdd(m.ones(5, 2), bins=[2, -1]),
    "cosine_embedding_loss target of another batch": lambda m: m.nn.functional.cosine_embedding_loss(
        m.ones(3, 2), m.ones(3, 2), m.ones(2)),
    "cosine_embedding_loss 2-D target": lambda m: m.nn.functional.cosine_embedding_loss(
        m.ones(3, 2), m.ones(3, 2), m.ones(3, 1)),
    "cosine_embedding_loss 0-D target on a batch": lambda m: m.nn.functional.cosine_embedding_loss(
        m.ones(3, 2), m.ones(3, 2), m.tensor(1.)),
    "cosine_embedding_loss 1-D target on vectors": lambda m: m.nn.functional.cosine_embedding_loss(
        m.ones(2), m.ones(2), m.ones(1)),
    "linear bias of another size": lambda m: m.nn.functional.linear(m.ones(3, 4), m.ones(2, 4), m.ones(3)),
    "linear 2-D bias": lambda m: m.nn.functional.linear(m.ones(3, 4), m.ones(2, 4), m.ones(2, 2)),
    "linear bias, 1-D input": lambda m: m.nn.functional.linear(m.ones(4), m.ones(2, 4), m.ones(3)),
    "linear bias, 3-D input": lambda m: m.nn.functional.linear(m.ones(2, 3, 4), m.ones(2, 4), m.ones(5)),
    "numpy() of bfloat16": lambda m: m.ones(2, dtype=m.bfloat16).numpy(),
    "np.asarray of bfloat16": lambda m: __import__("numpy").asarray(m.ones(2, dtype=m.bfloat16)),
    "numpy(force=True) of float8": lambda m: m.ones(2, dtype=m.float8_e4m3fn).numpy(force=True),
}


# torch's message carries its C++ stack after these words
MATCH = {"unflatten with two -1": r"^unflatten got an unexpected error:\nonly one dimension can be inferred"}


@pytest.mark.parametrize("case", list(MISTAKES))
def test_common_mistakes_raise_like_torch(case):
    raises_like_torch(MISTAKES[case], match=MATCH.get(case))


def _hook_case(hook, leaf):
    def fn(m):
        x = m.ones(2, requires_grad=True)
        y = x if leaf else x * 2
        y.register_hook(hook(m))
        (y * 2).sum().backward()
    return fn


HOOKS = {"another size": lambda m: lambda g: m.ones(3), "another dtype": lambda m: lambda g: g.double(),
         "an int dtype": lambda m: lambda g: g.int(), "not a tensor": lambda m: lambda g: 5,
         "another shape": lambda m: lambda g: g.reshape(2, 1)}


@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("case", list(HOOKS))
def test_tensor_hook_returning_a_gradient_that_does_not_fit_like_torch(case, leaf):
    """torch checks a hook's result (type first, then size); JAX's VJP error leaked here, or the leaf's .grad took
    the wrong shape or dtype."""
    raises_like_torch(_hook_case(HOOKS[case], leaf))


def test_save_to_a_bad_path_and_load_to_an_unknown_location_like_torch(tmp_path):
    import io
    for path in ("/nonexistent_dir/x.pt", str(tmp_path / "no_sub" / "x.pt"), str(tmp_path), ""):
        raises_like_torch(lambda m: m.save({"a": 1}, path))

    def load_to(m):
        b = io.BytesIO()
        m.save(m.ones(2), b)
        b.seek(0)
        return m.load(b, map_location="gpu")
    raises_like_torch(load_to)


MORE = {
    "weight_norm dim out of range": lambda m: m.nn.utils.weight_norm(m.nn.Linear(2, 2), dim=5),
    "max_unpool2d output_size out of range": lambda m: m.nn.functional.max_unpool2d(
        m.ones(1, 1, 2, 2), m.zeros(1, 1, 2, 2, dtype=m.long), 2, output_size=(4, 9)),
    "max_unpool2d batched output_size": lambda m: m.nn.functional.max_unpool2d(
        m.ones(1, 1, 2, 2), m.zeros(1, 1, 2, 2, dtype=m.long), 2, output_size=[1, 1, 9, 9]),
    "fold channels": lambda m: m.nn.functional.fold(m.ones(1, 5, 4), (3, 3), 2),
    "affine_grid theta shape": lambda m: m.nn.functional.affine_grid(m.ones(1, 3, 3), (1, 1, 4, 4),
                                                                     align_corners=False),
    "sdpa mask of another size": lambda m: m.nn.functional.scaled_dot_product_attention(
        m.ones(2, 3, 4), m.ones(2, 5, 4), m.ones(2, 5, 4), attn_mask=m.ones(3, 4, dtype=m.bool)),
    "sdpa float mask of another batch": lambda m: m.nn.functional.scaled_dot_product_attention(
        m.ones(2, 3, 4), m.ones(2, 5, 4), m.ones(2, 5, 4), attn_mask=m.ones(4, 3, 5)),
}


@pytest.mark.parametrize("case", list(MORE))
def test_more_mistakes_raise_like_torch(case):
    raises_like_torch(MORE[case])


FIFTH = {
    "gather without dim and index": lambda m: m.gather(m.ones(2)),
    "cumsum without dim": lambda m: m.cumsum(m.ones(2)),
    "Tensor.cumsum without dim": lambda m: m.ones(2).cumsum(),
    "index_select without dim and index": lambda m: m.index_select(m.ones(2)),
    "tril_indices with negative rows": lambda m: m.tril_indices(-1, 3),
    "triu_indices with negative cols": lambda m: m.triu_indices(2, -1),
    "gradient spacing list without dim": lambda m: m.gradient(m.ones(3), spacing=[1., 2.]),
    "rms_norm shape": lambda m: m.nn.functional.rms_norm(m.ones(2, 3), (2, 2)),
    "interpolate to a zero size": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), scale_factor=0.1),
    "interpolate 1-d to a zero size": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), scale_factor=0.1,
                                                                          mode="linear"),
    "interpolate size with a zero": lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), size=(0, 2)),
    "round of an int tensor with decimals=0": lambda m: m.round(m.tensor([1]), decimals=0),
    "round of an int tensor with decimals": lambda m: m.round(m.tensor([1], dtype=m.int32), decimals=2),
    "isclose of two dtypes": lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)),
    "local_response_norm of 2-d": lambda m: m.nn.functional.local_response_norm(m.ones(2, 2), 2),
    "scatter_add of another dtype": lambda m: m.zeros(3).scatter_add(0, m.tensor([0]), m.ones(1, dtype=m.float64)),
    "div with an unknown rounding_mode": lambda m: m.div(m.ones(2), 2, rounding_mode="round"),
    "embedding_bag mode": lambda m: m.nn.functional.embedding_bag(m.tensor([[1]]), m.ones(3, 2), mode="x"),
}


@pytest.mark.parametrize("case", list(FIFTH))
def test_fifth_sweep_mistakes_raise_like_torch(case):
    raises_like_torch(FIFTH[case])


def test_python_level_torch_functions_keep_pythons_missing_argument_words():
    """torch.split is Python in torch: its callers see Python's own message."""
    raises_like_torch(lambda m: m.split(m.ones(2)))


SIXTH = {
    "randint with one bound and no size": lambda m: m.randint(5),
    "nonzero with a str as_tuple": lambda m: m.ones(3).nonzero(as_tuple="x"),
    "torch.nonzero with as_tuple=None": lambda m: m.nonzero(m.ones(3), as_tuple=None),
    "as_strided with a negative stride": lambda m: m.arange(4.).as_strided((2, 2), (1, -1)),
    "resize_ to a negative size": lambda m: m.arange(4.).resize_(-1),
    "resize_ with a negative size among others": lambda m: m.arange(4.).resize_(2, -1),
    "set_grad_enabled of an int": lambda m: m.set_grad_enabled(1),
    "set_grad_enabled of a numpy bool": lambda m: m.set_grad_enabled(__import__("numpy").bool_(True)),
    "torch.fill with a 1-d value": lambda m: m.fill(m.ones(2), m.ones(1)),
    "nn.init.constant_ with a 1-d value": lambda m: m.nn.init.constant_(m.empty(2), m.ones(2)),
    "pad_sequence padding_side": lambda m: m.nn.utils.rnn.pad_sequence([m.ones(2), m.ones(3)], padding_side="mid"),
    "gumbel_softmax of integers": lambda m: m.nn.functional.gumbel_softmax(m.ones(2, dtype=m.long)),
    "autocast on an unknown device type": lambda m: m.autocast("foo"),
    "get_autocast_dtype of an unknown device type": lambda m: m.get_autocast_dtype("gpu"),
    "compile of a non-callable": lambda m: m.compile(3),
    "compile with an unknown mode": lambda m: m.compile(lambda x: x, mode="fastest"),
    "compile decorator with an unknown mode": lambda m: m.compile(mode="fast")(lambda x: x),
    "compile with mode and options": lambda m: m.compile(lambda x: x, mode="default", options={"a": 1}),
    "compile with an unknown backend": lambda m: m.compile(lambda x: x, backend="foo"),
    "vector_to_parameters of another size": lambda m: m.nn.utils.vector_to_parameters(
        m.ones(3), m.nn.Linear(2, 2).parameters()),
    "save to an int": lambda m: m.save(m.ones(2), 3),
    "load from an int": lambda m: m.load(3),
    "load from an object without seek": lambda m: m.load(object()),
}


@pytest.mark.parametrize("case", list(SIXTH))
def test_sixth_sweep_mistakes_raise_like_torch(case):
    """Sweeps of ~180 tensor-level wrong calls (indexing, views, creation, random, linear algebra) and ~130 of
    nn.init, nn.utils, distributions, amp, func, compile and functional misuse: these were accepted or said other
    words."""
    raises_like_torch(SIXTH[case])
