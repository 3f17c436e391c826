"""Regressions found by running Opacus (tests/programs/lib_opacus_dp.py) through the drop-in runner, each checked
against real torch: import paths and typing aliases libraries reach for, generic data classes."""
import importlib

import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

DATA_CLASSES = ["DataLoader", "Dataset", "IterableDataset", "Sampler", "Subset", "ConcatDataset", "StackDataset",
                "DistributedSampler", "TensorDataset", "BatchSampler", "RandomSampler", "SequentialSampler"]


def _subscript(lib, name):
    try:
        getattr(lib.utils.data, name)[int]
        return "ok"
    except TypeError:
        return "TypeError"


@pytest.mark.parametrize("name", DATA_CLASSES)
def test_data_classes_are_generic_where_torchs_are(name):
    """``DataLoader[int]``, ``Subset[int]``, ... subscript as in torch (annotations evaluated at import time);
    TensorDataset and the int samplers are not generic in torch either."""
    assert _subscript(torchlike, name) == _subscript(torch, name)


@pytest.mark.parametrize("module, names", [
    ("utils.data.dataloader", ["_T", "_T_co", "_collate_fn_t", "_worker_init_fn_t"]),
    ("utils.data.dataset", ["_T", "_T_co", "_T_dict", "_T_tuple", "_T_stack"]),
    ("utils.data.distributed", ["_T_co"]),
])
def test_data_typing_aliases_exist(module, names):
    """opacus does ``from torch.utils.data.dataloader import _collate_fn_t``."""
    ours = importlib.import_module("torchlike." + module)
    theirs = importlib.import_module("torch." + module)
    for n in names:
        assert type(getattr(ours, n)) is type(getattr(theirs, n)), n


def test_distributed_old_tensor_path_aliases_the_new_one():
    """``torch.distributed._tensor`` (and its ``experimental``/``device_mesh``) are the modules of
    ``torch.distributed.tensor``; opacus imports ``implicit_replication`` from the old path."""
    for lib in (torch, torchlike):
        old = importlib.import_module(lib.__name__ + ".distributed._tensor")
        new = importlib.import_module(lib.__name__ + ".distributed.tensor")
        exp = importlib.import_module(lib.__name__ + ".distributed._tensor.experimental")
        assert old.DTensor is new.DTensor and old.Shard is new.Shard
        assert exp is importlib.import_module(lib.__name__ + ".distributed.tensor.experimental")
        with exp.implicit_replication():
            pass
