"""torchlike.save/load speak torch's zip format in both directions."""
import io
import pickle

import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, raises_like_torch, same_as_torch


def test_torchlike_file_loads_in_torch_with_shared_storage(tmp_path):
    a = torchlike.arange(12.0).reshape(3, 4)
    obj = {"a": a, "row": a.select(0, 1), "colT": a.t().narrow(0, 1, 2), "i": torchlike.tensor([1, 2]),
           "bf": torchlike.ones(3, dtype=torchlike.bfloat16), "c": torchlike.tensor([1 + 2j]),
           "b": torchlike.tensor([True, False]), "h": torchlike.ones(2, dtype=torchlike.float16),
           "meta": [1, "x", (2.5, None)], "dt": torchlike.float64, "size": torchlike.Size([2, 3])}
    path = tmp_path / "ours.pt"
    torchlike.save(obj, path)
    t = torch.load(path)
    for k in ("a", "row", "colT", "i", "bf", "c", "b", "h"):
        assert_same(obj[k], t[k])
    assert t["row"].untyped_storage().data_ptr() == t["a"].untyped_storage().data_ptr()
    assert t["colT"].stride() == obj["colT"].stride()
    assert t["meta"] == [1, "x", (2.5, None)]
    assert t["dt"] is torch.float64 and t["size"] == torch.Size([2, 3])


def test_torch_file_loads_here_with_views_aliasing(tmp_path):
    base = torch.arange(10.0)
    sd = {"w": torch.randn(3, 4, dtype=torch.float64), "v": base[2:6], "base": base,
          "bf": torch.ones(2, dtype=torch.bfloat16), "n": torch.tensor(7), "lst": [torch.zeros(1)]}
    path = tmp_path / "theirs.pt"
    torch.save(sd, path)
    o = torchlike.load(path)
    for k in ("w", "v", "base", "bf", "n"):
        assert_same(o[k], sd[k])
    o["v"].fill_(-1)
    assert o["base"][2:6].tolist() == [-1.0] * 4  # same storage as in torch


def test_module_state_dict_and_parameter_roundtrip(tmp_path):
    lin = torch.nn.Linear(3, 2)
    torch.save(lin.state_dict(), tmp_path / "sd.pt")
    sd = torchlike.load(tmp_path / "sd.pt")
    assert list(sd) == ["weight", "bias"]
    assert_same(sd["weight"], lin.weight)
    p = torchlike.nn.Parameter(torchlike.ones(2))
    torchlike.save(p, tmp_path / "p.pt")
    tp = torch.load(tmp_path / "p.pt")
    assert isinstance(tp, torch.nn.Parameter) and tp.requires_grad


def test_weights_only_refuses_unknown_globals_and_safe_globals_allow(tmp_path):
    import fractions
    torch.save({"x": torch.ones(1), "cls": fractions.Fraction(1, 3)}, tmp_path / "bad.pt")
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(tmp_path / "bad.pt")
    with pytest.raises(pickle.UnpicklingError) as ours:
        torchlike.load(tmp_path / "bad.pt")
    assert str(ours.value) == str(theirs.value)
    with torch.serialization.safe_globals([fractions.Fraction]):
        assert torch.load(tmp_path / "bad.pt")["cls"] == fractions.Fraction(1, 3)
    with torchlike.serialization.safe_globals([fractions.Fraction]):
        out = torchlike.load(tmp_path / "bad.pt")
    assert out["cls"] == fractions.Fraction(1, 3)
    assert torchlike.serialization.get_safe_globals() == []
    assert torchlike.load(tmp_path / "bad.pt", weights_only=False)["cls"] == fractions.Fraction(1, 3)


def test_failed_save_keeps_existing_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    torchlike.save({"a": torchlike.ones(2)}, path)
    before = path.read_bytes()
    with pytest.raises(Exception):
        torchlike.save({"a": torchlike.zeros(2), "bad": lambda: 0}, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.pt"]


def test_file_objects_mmap_and_map_location(tmp_path):
    buf = io.BytesIO()
    torchlike.save([torchlike.arange(4)], buf)
    buf.seek(0)
    assert torch.load(buf)[0].tolist() == [0, 1, 2, 3]
    torch.save({"w": torch.arange(5.0)}, tmp_path / "m.pt")
    assert torchlike.load(tmp_path / "m.pt", mmap=True)["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert torchlike.load(tmp_path / "m.pt", map_location="cpu")["w"].device == torchlike.device("cpu")
    with pytest.raises(FileNotFoundError):
        torchlike.load(tmp_path / "missing.pt")



@pytest.mark.parametrize("map_location", [None, "cpu", "device", "dict", "callable"])
def test_state_dict_metadata_survives_every_map_location_like_torch(map_location):
    """A saved ``state_dict`` loads with its ``_metadata`` (the modules' versions) whatever ``map_location``
    is, a callable (``lambda storage, loc: storage``, common in training scripts) included, as in torch."""
    def run(T):
        ml = {"device": T.device("cpu"), "dict": {"cpu": "cpu"},
              "callable": lambda storage, loc: storage}.get(map_location, map_location)
        buf = io.BytesIO()
        T.save({"model": T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3)).state_dict(), "epoch": 2}, buf)
        buf.seek(0)
        ck = T.load(buf, map_location=ml)
        sd = ck["model"]
        return type(sd).__name__, list(sd), getattr(sd, "_metadata", None), ck["epoch"], sd["1.running_var"].tolist()
    assert run(torchlike) == run(torch)

def test_plain_pickle_of_tensors():
    t = torchlike.tensor([1.0, 2.0], requires_grad=True)
    u = pickle.loads(pickle.dumps(t))
    assert u.tolist() == [1.0, 2.0] and u.requires_grad


def test_pickle_of_a_non_leaf_and_forking_pickler_like_torch():
    """A pickled non-leaf that requires grad loads as a leaf that requires grad (torch's rebuild passes
    requires_grad); multiprocessing's ForkingPickler refuses it with torch's 'Cowardly refusing' error."""
    from multiprocessing.reduction import ForkingPickler

    def run(T):
        import torchlike.multiprocessing  # noqa: F401  (torch's reductions are registered on import)
        import torch.multiprocessing  # noqa: F401
        out = []
        for t in (T.ones(2, requires_grad=True) * 2, T.ones(2, requires_grad=True), T.ones(2)):
            r = pickle.loads(pickle.dumps(t))
            try:
                ForkingPickler(io.BytesIO(), 2).dump(t)
                forked = "ok"
            except RuntimeError as e:
                forked = str(e)
            out.append((r.tolist(), r.is_leaf, r.requires_grad, forked))
        return out
    assert run(torchlike) == run(torch)


def test_safetensors_roundtrip(tmp_path):
    from safetensors.numpy import load_file
    sd = {"a": torchlike.arange(6.0).reshape(2, 3), "b": torchlike.ones(2, dtype=torchlike.bfloat16)}
    torchlike.safetensors.save_file(sd, str(tmp_path / "w.safetensors"))
    raw = load_file(str(tmp_path / "w.safetensors"))
    np.testing.assert_array_equal(raw["a"], np.arange(6.0, dtype=np.float32).reshape(2, 3))
    back = torchlike.safetensors.load_file(str(tmp_path / "w.safetensors"))
    assert back["b"].dtype is torchlike.bfloat16 and back["a"].tolist() == sd["a"].tolist()


def test_safetensors_keeps_0d_shapes_like_torch(tmp_path):
    """A 0-d tensor (a step counter, a scalar buffer) is saved with shape [] as torch's save_file writes it,
    and torch's load_file reads it back 0-d."""
    from safetensors.torch import load_file, save_file
    sd = {"step": torchlike.tensor(3.0), "n": torchlike.tensor(7), "w": torchlike.ones(2)}
    torchlike.safetensors.save_file(sd, str(tmp_path / "ours.safetensors"))
    save_file({k: torch.tensor(v.tolist()) for k, v in sd.items()}, str(tmp_path / "theirs.safetensors"))
    theirs = load_file(str(tmp_path / "theirs.safetensors"))
    for back in (load_file(str(tmp_path / "ours.safetensors")),
                 torchlike.safetensors.load_file(str(tmp_path / "ours.safetensors"))):
        assert {k: tuple(v.shape) for k, v in back.items()} == {k: tuple(v.shape) for k, v in theirs.items()}
        assert {k: v.tolist() for k, v in back.items()} == {k: v.tolist() for k, v in theirs.items()}


def test_non_leaf_tensor_saves_its_requires_grad_like_torch():
    """torch.save keeps requires_grad of a non-leaf (a checkpoint's ``'loss': loss``): it loads as a leaf that
    requires grad, in torch and here, either way across the two."""
    def saved(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        buf = io.BytesIO()
        lib.save({"loss": (x * 3).sum(), "plain": x.detach()}, buf)
        return buf.getvalue()
    for data in (saved(torchlike), saved(torch)):
        for lib in (torchlike, torch):
            d = lib.load(io.BytesIO(data))
            assert d["loss"].requires_grad is True and d["loss"].is_leaf and d["loss"].item() == 9.0
            assert d["plain"].requires_grad is False


def test_batchnorm_state_dict_without_version_keeps_num_batches_tracked_like_torch():
    def load(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        sd = {k: v for k, v in m.state_dict().items() if k != "1.num_batches_tracked"}  # a plain dict: no _metadata
        r = m.load_state_dict(sd)
        with pytest.raises(RuntimeError) as e:
            m.load_state_dict({"0.weight": lib.zeros(3, 2)})
        return list(r.missing_keys), list(r.unexpected_keys), str(e.value)
    assert load(torchlike) == load(torch)


_SAME_DATA_OTHER_TYPE = ["[x, x.real]", "[x, m.view_as_real(x)]", "[x, x.view(m.float32)]",
                         "{'a': m.view_as_real(x)[0], 'b': x[1]}", "[f, m.view_as_complex(f)]", "[f, f.view(m.complex64)]"]


@pytest.mark.parametrize("objs", _SAME_DATA_OTHER_TYPE)
def test_save_refuses_one_storage_as_two_dtypes(objs):
    """torch.save of a complex tensor with a real view of its data (or the reverse) raises torch's error."""
    def fn(m, x, f):
        m.save(eval(objs), io.BytesIO())
    raises_like_torch(fn, np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64), np.arange(8, dtype=np.float32).reshape(2, 4))


def _save_same_type_views(m, x):
    buf = io.BytesIO()
    m.save([x.real, x.imag, m.view_as_real(x)[0]], buf)
    buf.seek(0)
    return tuple(m.load(buf))


def test_save_allows_views_of_one_type_and_view_dtype_between_complex_and_real_is_a_view():
    same_as_torch(_save_same_type_views, np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64), grad=False)

    def write_through(m, x, f):
        v = x.view(m.float32)
        v[0, 0] = 100.0
        z = f.view(m.complex64)
        z.mul_(1j)
        return x, v.stride(), f, z.stride()
    same_as_torch(write_through, np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64),
                  np.arange(8, dtype=np.float32).reshape(2, 4), grad=False)
