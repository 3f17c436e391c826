"""``torch.distributed.checkpoint.format_utils``: convert between a dcp checkpoint directory and one
``torch.save`` file (in one process).

>>> import os, tempfile, torchlike
>>> import torchlike.distributed.checkpoint as dcp
>>> d = tempfile.mkdtemp()
>>> _ = dcp.save({"m": {"w": torchlike.ones(2)}, "step": 3}, checkpoint_id=os.path.join(d, "ck"), no_dist=True)
>>> dcp_to_torch_save(os.path.join(d, "ck"), os.path.join(d, "full.pt"))
>>> torchlike.load(os.path.join(d, "full.pt"))
{'m': {'w': tensor([1., 1.])}, 'step': 3}
"""
from __future__ import annotations

from ...tensor import Tensor
from .filesystem import FileSystemReader
from .metadata import TensorStorageMetadata
from .state_dict_loader import _assemble, _deserialize
from .state_dict_saver import save as _dcp_save
from ...serialization import save
from ...serialization import load

__all__ = ["dcp_to_torch_save", "torch_save_to_dcp"]


def _set_path(root, path, value):
    """Put ``value`` at ``path`` in ``root``, creating dicts (str keys) and lists (int keys) on the way."""
    def extend(lst, i):
        while len(lst) <= i:
            lst.append(None)

    cur = root
    for prev, key in zip(path[:-1], path[1:]):
        default = {} if isinstance(key, str) else []
        if isinstance(cur, dict):
            cur = cur.setdefault(prev, default)
        else:
            extend(cur, prev)
            if cur[prev] is None:
                cur[prev] = default
            cur = cur[prev]
    if isinstance(path[-1], int):
        extend(cur, path[-1])
    cur[path[-1]] = value


def dcp_to_torch_save(dcp_checkpoint_dir, torch_save_path):
    """Read the whole dcp checkpoint (every chunk of every tensor) and ``torch.save`` it as one nested dict."""
    reader = FileSystemReader(dcp_checkpoint_dir)
    md = reader.read_metadata()
    paths = md.planner_data or {}
    sd = {}
    for fqn, m in md.state_dict_metadata.items():
        if isinstance(m, TensorStorageMetadata):
            size = tuple(m.size)
            value = Tensor._wrap(_assemble(fqn, m, reader, (0,) * len(size), size, m.properties.dtype))
        else:
            value = _deserialize(reader._read(fqn, None), weights_only=False)
        _set_path(sd, tuple(paths.get(fqn, (fqn,))), value)
    save(sd, torch_save_path)


def torch_save_to_dcp(torch_save_path, dcp_checkpoint_dir):
    """``torch.load`` a file and write it as a dcp checkpoint directory (one process)."""
    _dcp_save(load(torch_save_path, weights_only=False), checkpoint_id=dcp_checkpoint_dir, no_dist=True)
