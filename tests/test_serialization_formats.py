"""torch.load's weights-only rules, the legacy (pre-1.6) format and storage sharing, against torch."""
import collections
import enum
import functools
import io
import pickle

import numpy as np
import pytest
import torch

import torchlike


class Color(enum.Enum):
    RED = 1
    BLUE = 2


class Point:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return type(other) is Point and other.x == self.x


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a=0):
        self.a = a

    def __eq__(self, other):
        return type(other) is Slotted and other.a == self.a


def _plain(x):
    """Compare values of either library (tensors by value, everything else as is)."""
    if isinstance(x, (torch.Tensor, torchlike.Tensor)):
        v = x.detach()
        v = v if (v.dtype.is_complex or v.dtype in (torch.bool, torchlike.bool)) else v.double()
        return ("T", str(x.dtype).replace("torchlike", "torch"), tuple(x.shape), v.numpy().tolist())
    if isinstance(x, (list, tuple)) and type(x) in (list, tuple):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return (type(x).__name__, [(k, _plain(v)) for k, v in x.items()])
    if isinstance(x, (torch.dtype, torchlike.dtype)):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, (torch.device, torchlike.device)):
        return ("device", str(x))
    if isinstance(x, functools.partial):
        return ("partial", x.func, x.args, x.keywords)
    if type(x).__name__ == "Size":
        return ("Size", tuple(x))
    return x


OBJECTS = {
    "set": {1, 2}, "frozenset": frozenset({3}), "complex": 1 + 2j, "slice": slice(1, 5, 2),
    "bytearray": bytearray(b"ab"), "bytes": b"xy", "range": range(3), "ordered_dict": collections.OrderedDict(a=1),
    "counter": collections.Counter("aab"), "deque": collections.deque([1]), "size": "SIZE", "dtype": "DTYPE",
    "device": "DEVICE", "enum": Color.BLUE, "partial": functools.partial(max, 1), "user_class": Point(3),
    "slots": Slotted(4), "big_int": 2 ** 70, "nested": {"a": [1, (2.5, None, True)], "b": {"c": "d"}},
}
ALLOW = {"frozenset": [frozenset], "slice": [slice], "range": [range], "deque": [collections.deque],
         "enum": [Color], "partial": [functools.partial, max], "user_class": [Point], "slots": [Slotted]}


def _obj(lib, name):
    o = OBJECTS[name]
    return {"SIZE": lib.Size([2, 3]), "DTYPE": lib.bfloat16, "DEVICE": lib.device("cpu")}.get(o, o) \
        if isinstance(o, str) else o


def _load(lib, data, allow):
    try:
        with lib.serialization.safe_globals(allow):
            return "ok", _plain(lib.load(io.BytesIO(data)))
    except Exception as e:  # compared with torch's exception below
        return type(e).__name__, str(e)


@pytest.mark.parametrize("allowlisted", [False, True], ids=["default", "safe_globals"])
@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_weights_only_matches_torch(name, allowlisted):
    allow = ALLOW.get(name, []) if allowlisted else []
    for writer in (torch, torchlike):
        buf = io.BytesIO()
        writer.save({"v": _obj(writer, name), "t": writer.ones(2)}, buf)
        theirs, ours = _load(torch, buf.getvalue(), allow), _load(torchlike, buf.getvalue(), allow)
        assert ours == theirs, (writer.__name__, name)


def test_safe_globals_api_matches_torch():
    for lib in (torch, torchlike):
        ser = lib.serialization
        ser.clear_safe_globals()
        ser.add_safe_globals([Point, (Color, "x.Color")])
        assert set(map(str, ser.get_safe_globals())) == {str(Point), str((Color, "x.Color"))}
        with ser.safe_globals([Point, Slotted]):
            assert Slotted in ser.get_safe_globals()
        assert Point not in ser.get_safe_globals()  # set semantics: the block removes what it added
        ser.clear_safe_globals()
        assert ser.get_safe_globals() == []


def _legacy_file(obj):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=False)
    return buf.getvalue()


def test_legacy_format_loads_with_torch_values_and_sharing():
    a = torch.arange(12.0).reshape(3, 4)
    obj = {"a": a, "row": a[1], "t": a.t(), "step": a.view(-1)[::3], "i16": torch.tensor([1, -2], dtype=torch.int16),
           "bf": torch.ones(2, dtype=torch.bfloat16), "b": torch.tensor([True]), "c": torch.tensor([1 + 1j]),
           "p": torch.nn.Parameter(torch.ones(2)), "meta": [1, "x"], "od": collections.OrderedDict(k=torch.zeros(1))}
    data = _legacy_file(obj)
    theirs = torch.load(io.BytesIO(data))
    ours = torchlike.load(io.BytesIO(data))
    assert _plain(ours) == _plain(theirs)
    assert ours["t"].stride() == theirs["t"].stride() and ours["step"].stride() == theirs["step"].stride()
    assert isinstance(ours["p"], torchlike.nn.Parameter) and ours["p"].requires_grad
    ours["a"][1, 0] = 100.0
    theirs["a"][1, 0] = 100.0
    assert ours["row"].tolist() == theirs["row"].tolist() and ours["t"].tolist() == theirs["t"].tolist()


def test_legacy_format_weights_only_rules_match_torch():
    data = _legacy_file({"m": torch.nn.Linear(2, 2)})  # modules are pickled with 'module' persistent ids
    with pytest.raises(pickle.UnpicklingError) as theirs:
        with torch.serialization.safe_globals([torch.nn.Linear]):
            torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as ours:
        with torchlike.serialization.safe_globals([torchlike.nn.Linear]):
            torchlike.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)
    m = torchlike.load(io.BytesIO(data), weights_only=False)["m"]
    assert type(m) is torchlike.nn.Linear and m.weight.shape == (2, 2)
    for bad in (b"not a checkpoint", b""):
        t_exc = o_exc = None
        try:
            torch.load(io.BytesIO(bad))
        except Exception as e:
            t_exc = e
        try:
            torchlike.load(io.BytesIO(bad))
        except Exception as e:
            o_exc = e
        assert type(o_exc) is type(t_exc) and str(o_exc) == str(t_exc)


@pytest.mark.parametrize("writer", ["torch", "torchlike"])
def test_storage_sharing_survives_a_round_trip(writer):
    lib = torch if writer == "torch" else torchlike
    a = lib.arange(6.0)
    buf = io.BytesIO()
    lib.save([a, a[2:4]], buf)
    for reader in (torch, torchlike):
        buf.seek(0)
        x, y = reader.load(buf)
        x[2] = 100
        assert y[0].item() == 100.0, (writer, reader.__name__)
        y[1] = -1
        assert x[3].item() == -1.0


@pytest.mark.parametrize("writer", ["torch", "torchlike"])
def test_views_with_offsets_and_strides_load_as_views(writer):
    lib = torch if writer == "torch" else torchlike
    a = lib.arange(12.0).reshape(3, 4)
    views = [a.t(), a[:, ::2], a[1:, 1:3], a[0].expand(2, 4), a.view(-1)[5:]]
    buf = io.BytesIO()
    lib.save([a] + views, buf)
    for reader in (torch, torchlike):
        buf.seek(0)
        loaded = reader.load(buf)
        for v, w in zip(views, loaded[1:]):
            assert w.tolist() == v.tolist() and tuple(w.shape) == tuple(v.shape)
            assert tuple(w.stride()) == tuple(v.stride()) and w.storage_offset() == v.storage_offset()
        loaded[0][1, 2] = -5.0
        assert loaded[1][2, 1].item() == -5.0 and loaded[3][0, 1].item() == -5.0


def test_failed_save_leaves_the_old_file_loadable(tmp_path):
    path = tmp_path / "ckpt.pt"
    torchlike.save({"w": torchlike.arange(3)}, path)
    with pytest.raises(Exception):
        torchlike.save({"w": torchlike.zeros(3), "f": lambda: 1}, path)
    assert torchlike.load(path)["w"].tolist() == [0, 1, 2]
    assert torch.load(path)["w"].tolist() == [0, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.pt"]


def test_loaded_values_are_numpy_exact_for_every_storage_dtype():
    for dt in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
               "complex64", "complex128"):
        t = (torch.arange(5) % 2 == 0) if dt == "bool" else torch.arange(5).to(getattr(torch, dt))
        buf = io.BytesIO()
        torch.save(t, buf, _use_new_zipfile_serialization=False)
        o = torchlike.load(io.BytesIO(buf.getvalue()))
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.float().numpy() if dt == "bfloat16" else o.numpy(),
                                      t.float().numpy() if dt == "bfloat16" else t.numpy())


@pytest.mark.parametrize("keep", [4, 21, 22, 0.5])
def test_truncated_checkpoint_raises_torchs_zip_reader_error(tmp_path, keep):
    # an interrupted download or copy: the file starts as a zip but its central directory is gone
    path = tmp_path / "full.pt"
    torch.save({"w": torch.arange(100.0)}, str(path))
    data = path.read_bytes()
    cut = tmp_path / "cut.pt"
    cut.write_bytes(data[:int(len(data) * keep) if isinstance(keep, float) else keep])
    errors = []
    for lib in (torch, torchlike):
        for load in (lib.load, lib.jit.load):
            with pytest.raises(Exception) as e:
                load(str(cut))
            errors.append((type(e.value).__name__, str(e.value)))
    assert errors[2:] == errors[:2]
    assert errors[0][0] == "RuntimeError" and "PytorchStreamReader failed reading zip archive" in errors[0][1]
