"""torch.typename and torch.serialization's public helpers (location registry, storage types, load/save
settings, skip_data), compared with torch 2.13."""
import io
import os
import types
import warnings

import pytest
import torch

import torchlike
from conftest import raises_like_torch, run_program, same_printed_lines

PROGRAM = os.path.join(os.path.dirname(__file__), "programs", "serialization_api.py")


def test_typename_and_serialization_helpers_under_the_runner_like_torch():
    """torch's names (``torch.nn.modules.linear.Linear``, ``torch.storage.UntypedStorage``) are the runner's
    module paths: typename of modules, classes, builtins, dtypes, storages; normalize_storage_type, location
    tags, meta restore, registry errors, StorageType, version checks, the load byte-order fallback, skip_data."""
    expected = run_program([PROGRAM], runner=False, timeout=300)
    ours = run_program([PROGRAM], runner=True, timeout=300)
    same_printed_lines(expected, ours, rtol=0)
    assert ours[0] == "typename torch.nn.modules.linear.Linear", ours[0]
    assert "skip save [tensor([0., 0., 0.]), tensor([0, 0])]" in ours, ours


@pytest.mark.parametrize("make", [lambda m: 3, lambda m: int, lambda m: None, lambda m: len,
                                  lambda m: m.zeros(2, dtype=m.float64), lambda m: m.tensor([True])])
def test_typename_of_builtins_and_tensors_like_torch(make):
    assert torchlike.typename(make(torchlike)) == torch.typename(make(torch))


def test_typename_qualifies_classes_and_instances_by_module():
    """A class answers its own ``module.qualname`` (torch: ``torch.nn.modules.linear.Linear``), never 'type'."""
    assert torchlike.typename(torchlike.nn.Linear) == "torchlike.nn.modules.linear.Linear"
    assert torchlike.typename(torchlike.nn.Linear(1, 1)) == "torchlike.nn.modules.linear.Linear"
    assert torch.typename(torch.nn.Linear) == "torch.nn.modules.linear.Linear"


def test_public_names_of_torch_serialization_exist():
    missing = [n for n in torch.serialization.__all__ if not hasattr(torchlike.serialization, n)]
    assert not missing, missing
    for n in ("MAGIC_NUMBER", "PROTOCOL_VERSION", "STORAGE_KEY_SEPARATOR", "LONG_SIZE", "INT_SIZE", "SHORT_SIZE",
              "MAP_SHARED", "MAP_PRIVATE", "IS_WINDOWS"):
        assert getattr(torchlike.serialization, n) == getattr(torch.serialization, n), n
    assert [e.name for e in torchlike.serialization.LoadEndianness] == \
        [e.name for e in torch.serialization.LoadEndianness]


def test_location_tags_and_restores_like_torch():
    for m in (torch, torchlike):
        s = m.zeros(3).untyped_storage()
        assert m.serialization.location_tag(s) == "cpu"
        assert m.serialization.default_restore_location(s, "cpu") is s
        r = m.serialization.default_restore_location(s, "meta")
        assert (r.device.type, r.nbytes()) == ("meta", 12)
    raises_like_torch(lambda m: m.serialization.default_restore_location(m.zeros(1).untyped_storage(), "foo"),
                      match=r"^don't know how to restore data location of \w+\.storage\.UntypedStorage \(tagged with foo\)$")
    raises_like_torch(lambda m: m.serialization.default_restore_location(m.zeros(1).untyped_storage(), "hpu"))
    raises_like_torch(lambda m: m.serialization.location_tag(object()))
    raises_like_torch(lambda m: m.serialization.validate_hpu_device("hpu:0"))
    raises_like_torch(lambda m: m.serialization.validate_cuda_device("hpu"))
    if not torchlike.cuda.is_available():  # (torch here is the CPU build)
        raises_like_torch(lambda m: m.serialization.validate_cuda_device("cuda:0"))
        raises_like_torch(lambda m: m.serialization.default_restore_location(m.zeros(1).untyped_storage(), "cuda"))
        raises_like_torch(lambda m: m.serialization.default_restore_location(m.zeros(1).untyped_storage(), "xpu"))


def test_register_package_takes_priority_like_torch():
    for m in (torch, torchlike):
        seen = []
        reg = list(m.serialization._package_registry)
        try:
            m.serialization.register_package(5, lambda s: "mine", lambda s, loc: seen.append(loc) or s)
            s = m.zeros(1).untyped_storage()
            assert m.serialization.location_tag(s) == "mine"
            assert m.serialization.default_restore_location(s, "cpu") is s and seen == ["cpu"]
        finally:
            m.serialization._package_registry[:] = reg


def test_storage_types_like_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("UntypedStorage", "TypedStorage", "FloatStorage", "BoolStorage", "ComplexDoubleStorage"):
            ours = torchlike.serialization.normalize_storage_type(getattr(torchlike, name))
            assert ours is getattr(torchlike, name) and torch.serialization.normalize_storage_type(
                getattr(torch, name)) is getattr(torch, name)
        for name in ("HalfStorage", "LongStorage", "BFloat16Storage"):
            assert str(torchlike.serialization.StorageType(name)) == str(torch.serialization.StorageType(name))
    for m in (torch, torchlike):  # (torch's AttributeError names the storage class's module)
        with pytest.raises(AttributeError, match=r"storage' has no attribute 'UntypedTensor'"):
            m.serialization.storage_to_tensor_type(m.zeros(1).untyped_storage())


@pytest.mark.parametrize("version,req,ok", [("2.1.0", (2, 0), True), ("1.9", (1, 10), False), ("3", (2, 9, 9), None),
                                            ("2.x", (2, 1), None)])
def test_check_module_version_greater_or_equal_like_torch(version, req, ok):
    mod = types.SimpleNamespace(__version__=version, __name__="fake")
    if ok is None:
        raises_like_torch(lambda m: m.serialization.check_module_version_greater_or_equal(mod, req))
        with pytest.warns(UserWarning, match="malformed"):
            assert torchlike.serialization.check_module_version_greater_or_equal(mod, req, error_if_malformed=False)
    else:
        assert torchlike.serialization.check_module_version_greater_or_equal(mod, req) is ok
        assert torch.serialization.check_module_version_greater_or_equal(mod, req) is ok


def test_settings_getters_setters_and_their_errors_like_torch():
    for m in (torch, torchlike):
        ser = m.serialization
        assert ser.get_crc32_options() is True and ser.get_default_load_endianness() is None
        assert ser.get_default_mmap_options() == ser.MAP_PRIVATE
        with ser.set_default_mmap_options(ser.MAP_SHARED):
            assert ser.get_default_mmap_options() == ser.MAP_SHARED
        assert ser.get_default_mmap_options() == ser.MAP_PRIVATE
        ser.set_crc32_options(False)
        assert ser.get_crc32_options() is False
        ser.set_crc32_options(True)
    raises_like_torch(lambda m: m.serialization.set_default_load_endianness("big"))
    raises_like_torch(lambda m: m.serialization.set_default_mmap_options(12345))


def test_config_load_mmap_is_torch_load_default_like_torch():
    """``torch.utils.serialization.config.load.mmap`` is ``torch.load``'s ``mmap=None``: a file object then fails."""
    def load(m):
        buf = io.BytesIO()
        m.save(m.ones(2), buf)
        with m.utils.serialization.config.patch({"load.mmap": True}):
            return m.load(io.BytesIO(buf.getvalue()))
    raises_like_torch(load)


def test_storage_alignment_setting_aligns_records_like_torch(tmp_path):
    """``config.save.storage_alignment`` is written to ``.storage_alignment`` and aligns each data record."""
    import zipfile
    for m in (torch, torchlike):
        path = tmp_path / f"{m.__name__}.pt"
        with m.utils.serialization.config.patch({"save.storage_alignment": 256}):
            m.save([m.ones(3), m.arange(5)], path)
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if "/data/" in n]
            assert zf.read(f"{path.stem}/.storage_alignment") == b"256"
            offsets = []
            for n in names:  # where the record's bytes start: after its local header (name and extra field)
                with open(path, "rb") as fh:
                    fh.seek(zf.getinfo(n).header_offset)
                    hdr = fh.read(30)
                offsets.append(zf.getinfo(n).header_offset + 30 + int.from_bytes(hdr[26:28], "little")
                               + int.from_bytes(hdr[28:30], "little"))
        assert all(o % 256 == 0 for o in offsets), (m.__name__, offsets)
        assert torchlike.load(path)[1].tolist() == [0, 1, 2, 3, 4]


def test_saving_unpicklable_functions_raises_the_c_picklers_error_like_torch():
    """torch.save pickles with the C pickler: a local function or class is its AttributeError "Can't pickle local
    object '...'" (torchlike's pure-Python pickler said PicklingError); a module-level lambda stays a PicklingError."""
    import io

    from conftest import raises_like_torch

    def local():
        pass

    class Local:
        pass

    for obj in (local, Local, Local(), {"f": [local]}):
        raises_like_torch(lambda m: m.save(obj, io.BytesIO()))
    e = raises_like_torch(lambda m: m.save(_MODULE_LAMBDA, io.BytesIO()), match="Can't pickle <function <lambda>")
    assert type(e).__name__ == "PicklingError"


_MODULE_LAMBDA = lambda x: x  # noqa: E731
