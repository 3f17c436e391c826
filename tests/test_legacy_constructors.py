"""The legacy constructors ``torch.Tensor(...)``, ``torch.FloatTensor(...)`` & co. read their arguments as torch does:
integers or one ``torch.Size`` are a shape (uninitialised values), any other sequence is data, nothing at all is an
empty 1-d tensor. captum's default perturbation in ``sensitivity_max`` builds ``torch.FloatTensor(x.size())``."""
import numpy as np
import pytest
import torch

import torchlike

CASES = [
    ("Tensor", lambda lib: (lib.Size([2, 3]),)),
    ("FloatTensor", lambda lib: (lib.Size([6, 1, 4]),)),
    ("LongTensor", lambda lib: (lib.Size([4]),)),
    ("DoubleTensor", lambda lib: (lib.Size([]),)),
    ("FloatTensor", lambda lib: ()),
    ("Tensor", lambda lib: ()),
    ("FloatTensor", lambda lib: (2, 3)),
    ("FloatTensor", lambda lib: ([2, 3],)),
    ("Tensor", lambda lib: ((2, 3),)),
    ("DoubleTensor", lambda lib: ((2, 3),)),
    ("LongTensor", lambda lib: ([[1, 2], [3, 4]],)),
]


@pytest.mark.parametrize("name,args", CASES)
def test_legacy_constructor_shape_and_dtype_match_torch(name, args):
    theirs = getattr(torch, name)(*args(torch))
    ours = getattr(torchlike, name)(*args(torchlike))
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))
    if not (args(torch) and isinstance(args(torch)[0], (int, torch.Size))):  # data, not uninitialised memory
        assert ours.tolist() == theirs.tolist()


def test_uniform_on_a_legacy_tensor_of_a_size_draws_torch_numbers():
    for lib in (torch, torchlike):
        lib.manual_seed(0)
        t = lib.FloatTensor(lib.Size([2, 3])).uniform_(-0.02, 0.02).flatten()
        if lib is torch:
            expected = t.tolist()
    assert t.tolist() == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("arg", [lambda lib: lib.Tensor, lambda lib: "torch.Tensor", lambda lib: lib.DoubleTensor,
                                 lambda lib: "torch.IntTensor", lambda lib: lib.float64])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_tensor_type_of_the_tensor_class_is_the_default_dtype_like_torch(arg, default):
    """``t.type(torch.Tensor)`` (nflows' LeakyReLU: ``(x < 0).type(torch.Tensor)``) and ``t.type("torch.Tensor")``
    cast to the default dtype; the legacy classes and names to theirs."""
    got = []
    for lib in (torch, torchlike):
        lib.set_default_dtype(getattr(lib, default))
        try:
            out = lib.tensor([-1, 2]).lt(0).type(arg(lib))
            got.append((str(out.dtype), out.tolist()))
        finally:
            lib.set_default_dtype(lib.float32)
    assert got[1] == got[0]


@pytest.mark.parametrize("arg", [lambda lib: lib.nn.Parameter, lambda lib: "Tensor", lambda lib: "torch.float32"])
def test_tensor_type_rejects_other_names_and_classes_like_torch(arg):
    msgs = []
    for lib in (torch, torchlike):
        with pytest.raises(ValueError) as info:
            lib.tensor([1]).type(arg(lib))
        msgs.append(str(info.value))
    assert msgs[1] == msgs[0]


@pytest.mark.parametrize("call", [
    lambda L: L.LongTensor(L.ones(2)),
    lambda L: L.DoubleTensor(L.ones(2)),
    lambda L: L.FloatTensor(L.ones(2, dtype=L.float64)),
    lambda L: L.FloatTensor(L.ones(2, dtype=L.bool)),
    lambda L: L.HalfTensor(L.ones(2)),
    lambda L: L.ones(2).new(L.ones(2, dtype=L.int64)),
], ids=["long_of_float", "double_of_float", "float_of_double", "float_of_bool", "half_of_float", "new_of_long"])
def test_typed_constructor_of_a_tensor_of_another_dtype_raises_like_torch(call):
    """A typed legacy constructor (and ``x.new``) given a tensor checks its TensorOptions; torchlike returned the
    tensor unchanged, of the other dtype."""
    from conftest import raises_like_torch
    raises_like_torch(call)


@pytest.mark.parametrize("name", ["Tensor", "FloatTensor", "new"])
def test_legacy_constructor_of_a_tensor_is_an_alias_like_torch(name):
    """``torch.Tensor(t)`` / ``torch.FloatTensor(t)`` / ``t.new(t)``: a view of ``t`` (writes reach it, ``_base`` is
    ``t``, ``AliasBackward0`` while it requires grad), not ``t`` itself; ``torch.Tensor`` takes any dtype."""
    for L in (torch, torchlike):
        make = (lambda t: t.new(t)) if name == "new" else getattr(L, name)
        x = L.ones(2)
        y = make(x)
        y[0] = 5
        assert (y is x, y._base is x, x.tolist()) == (False, True, [5.0, 1.0])
        g = make(L.ones(2, requires_grad=True))
        assert (type(g.grad_fn).__name__, g.is_leaf, g.requires_grad) == ("AliasBackward0", False, True)
    assert torchlike.Tensor(torchlike.ones(2, dtype=torchlike.float64)).dtype is torchlike.float64


@pytest.mark.parametrize("args", [
    lambda L, x: (x.shape,), lambda L, x: (L.Size([]),), lambda L, x: (x.shape[1:],), lambda L, x: ((4, 5),),
    lambda L, x: ([4, 5],), lambda L, x: (4, 5), lambda L, x: (), lambda L, x: (np.int64(3),),
    lambda L, x: (np.int64(2), np.int64(3)),
], ids=["size", "empty_size", "size_slice", "tuple_data", "list_data", "ints", "nothing", "numpy_int",
        "numpy_ints"])
def test_new_reads_a_size_as_a_shape_and_other_sequences_as_data_like_torch(args):
    """``x.new(x.shape)`` (eriklindernoren/PyTorch-YOLOv3's ``xywh2xyxy``: ``y = x.new(x.shape)``) is an
    uninitialised tensor of that shape and ``x``'s dtype, as ``torch.FloatTensor(size)``; torchlike read the
    ``torch.Size`` as data (a 1-d tensor of the sizes), and numpy integers as data too (a 0-dim tensor)."""
    got = []
    for L in (torch, torchlike):
        x = L.zeros(3, 4, 2, dtype=L.float64)
        out = x.new(*args(L, x))
        data = None if args(L, x) and isinstance(args(L, x)[0], (int, np.integer, L.Size)) else out.tolist()
        got.append((tuple(out.shape), str(out.dtype), data))
    assert got[1] == got[0]


@pytest.mark.parametrize("args", [(True,), (2.5,), (1j,)], ids=["bool", "float", "complex"])
def test_new_of_a_lone_number_that_is_not_an_int_is_torchs_type_error(args):
    """``x.new(True)``: a bool is neither a size nor data for torch's parser (torchlike took it as size 1)."""
    from conftest import raises_like_torch
    raises_like_torch(lambda L: L.zeros(2).new(*args))
