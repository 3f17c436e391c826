"""``torch.distributed.checkpoint``: distributed checkpoints in torch's directory format (``save``/``load``,
file-system storage, metadata classes) and the state-dict helpers (``state_dict`` submodule).

``save`` has every rank write its own pieces (``__<rank>_0.distcp``) and rank 0 the ``.metadata``; ``load``
re-shards into the target's layout, so a checkpoint saved by 2 ranks loads on 1 or on 2, and directories
written by torch load here (and the reverse). The planner objects are accepted but not consulted (the default
planning is built in; ``DefaultLoadPlanner(allow_partial_load=True)`` is honoured).

>>> import tempfile, torchlike
>>> import torchlike.distributed.checkpoint as dcp
>>> d = tempfile.mkdtemp()
>>> m = torchlike.nn.Linear(2, 1)
>>> _ = dcp.save({"model": m}, checkpoint_id=d, no_dist=True)
>>> fresh = torchlike.nn.Linear(2, 1)
>>> dcp.load({"model": fresh}, checkpoint_id=d, no_dist=True)
>>> bool((fresh.weight == m.weight).all())
True
"""
from __future__ import annotations

from ..._missing import module_getattr
from . import api, filesystem, format_utils, metadata, state_dict, state_dict_loader, state_dict_saver, stateful
from . import default_planner, planner, storage  # noqa: F401
from .api import CheckpointException
from ._planners import DefaultLoadPlanner, DefaultSavePlanner, LoadPlanner, SavePlanner
from .filesystem import FileSystemReader, FileSystemWriter
from .metadata import BytesStorageMetadata, ChunkStorageMetadata, Metadata, TensorStorageMetadata
from .state_dict_loader import load, load_state_dict
from .state_dict_saver import async_save, save, save_state_dict
from .storage import StorageReader, StorageWriter

__all__ = ["BytesStorageMetadata", "CheckpointException", "ChunkStorageMetadata", "DefaultLoadPlanner", "DefaultSavePlanner",
           "FileSystemReader", "FileSystemWriter", "LoadPlanner", "Metadata", "SavePlanner",
           "TensorStorageMetadata", "async_save", "filesystem", "format_utils", "load", "load_state_dict", "metadata", "save",
           "save_state_dict", "state_dict", "state_dict_loader", "state_dict_saver", "stateful", "StorageReader",
           "StorageWriter", "default_planner", "planner", "storage"]

__getattr__ = module_getattr("torch.distributed.checkpoint")
