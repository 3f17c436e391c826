"""``torch.save`` of a storage (``t.storage()``, ``t.untyped_storage()``, alone or in a container) writes torch's
storage record and loads back as torch's ``TypedStorage``, in every direction with real torch 2.13 and under
both ``weights_only`` settings; a storage saved beside its tensor still shares memory with it after loading."""
import io
import warnings

import pytest
import torch

import torchlike as tl

MAKERS = {
    "typed": lambda L: L.arange(6.0).storage(),
    "typed of a view": lambda L: L.arange(6.0)[2:].storage(),
    "untyped": lambda L: L.arange(6.0).untyped_storage(),
    "beside its tensor": lambda L: (lambda x: [x, x.storage()])(L.arange(4.0)),
    "in a dict": lambda L: {"s": L.arange(3, dtype=L.int64).storage()},
}


def _describe(obj):
    if isinstance(obj, dict):
        return {k: _describe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_describe(v) for v in obj]
    return type(obj).__name__, str(obj.dtype), obj.tolist()


def _round_trip(save_lib, load_lib, make, weights_only):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation warning, in both libraries
        save_lib.save(make(save_lib), buf)
        buf.seek(0)
        return _describe(load_lib.load(buf, weights_only=weights_only))


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("what", list(MAKERS))
@pytest.mark.parametrize("direction", ["torchlike->torchlike", "torchlike->torch", "torch->torchlike"])
def test_saved_storages_load_like_torch(direction, what, weights_only):
    save_lib, load_lib = [tl if n == "torchlike" else torch for n in direction.split("->")]
    want = _round_trip(torch, torch, MAKERS[what], weights_only)
    assert _round_trip(save_lib, load_lib, MAKERS[what], weights_only) == want


def test_a_loaded_storage_shares_memory_with_its_tensor():
    def run(lib):
        buf = io.BytesIO()
        x = lib.arange(4.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.save([x, x.storage()], buf)
            buf.seek(0)
            t, st = lib.load(buf)
            t[1] = 100.0
            return st[1]
    assert run(tl) == run(torch) == 100.0
