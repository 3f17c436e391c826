"""``torch.distributed.checkpoint.filesystem``: a checkpoint directory in torch's layout.

Each rank writes one file ``__<rank>_0.distcp``: its items one after another, each a self-contained
``torch.save`` archive (a tensor chunk, or a non-tensor value); rank 0 writes ``.metadata``, the pickled
:class:`~torchlike.distributed.checkpoint.metadata.Metadata` whose ``storage_data`` maps each item to
``_StorageInfo(relative_path, offset, length)``. torch reads these directories and torchlike reads torch's.

>>> FileSystemWriter("/tmp/ckpt").path.name, FileSystemReader("/tmp/ckpt").path.name
('ckpt', 'ckpt')
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Optional
from ...serialization import _Pickler
from ...serialization import _Unpickler
from .storage import StorageReader, StorageWriter

__all__ = ["FileSystem", "FileSystemBase", "FileSystemReader", "FileSystemWriter", "SerializationFormat"]

_METADATA_FN = ".metadata"


@dataclass
class _StorageInfo:
    """Where one item lies: a file of the checkpoint directory, a byte offset and a length."""
    relative_path: str
    offset: int
    length: int
    transform_descriptors: Optional[Any] = None


class SerializationFormat(Enum):
    TORCH_SAVE = "torch_save"
    SAFETENSORS = "safetensors"


class FileSystemBase:
    """Base of the local file-system access (kept for torch's names)."""


class FileSystem(FileSystemBase):
    """The local file system."""

    def init_path(self, path):
        return Path(path)


class FileSystemWriter(StorageWriter):
    """Writes a checkpoint directory (``single_file_per_rank``: one ``.distcp`` file per rank)."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, cache_staged_state_dict=False, overwrite=True,
                 _extensions=None, serialization_format=SerializationFormat.TORCH_SAVE):
        if serialization_format != SerializationFormat.TORCH_SAVE:
            raise NotImplementedError("torchlike's FileSystemWriter writes torch.save items only")
        self.fs = FileSystem()
        self.path = self.fs.init_path(path)
        self.single_file_per_rank, self.sync_files, self.overwrite = single_file_per_rank, sync_files, overwrite
        self.thread_count = thread_count
        self.save_id = None

    def reset(self, checkpoint_id=None):
        if checkpoint_id is not None:
            self.path = self.fs.init_path(checkpoint_id)

    # ---- used by dcp.save --------------------------------------------------------------------------------
    def _prepare(self):
        if not self.overwrite and (self.path / _METADATA_FN).exists():
            raise RuntimeError(f"Checkpoint already exists and self.overwrite={self.overwrite}.")
        self.path.mkdir(parents=True, exist_ok=True)

    def _write_items(self, rank, items):
        """Write ``items`` ((index, payload bytes)) into this rank's file; their ``_StorageInfo`` list."""
        name = f"__{rank}_0.distcp"
        infos, off = [], 0
        with open(self.path / (name + ".tmp"), "wb") as f:
            for index, data in items:
                f.write(data)
                infos.append((index, _StorageInfo(name, off, len(data))))
                off += len(data)
            if self.sync_files:
                f.flush()
                os.fsync(f.fileno())
        os.replace(self.path / (name + ".tmp"), self.path / name)
        return infos

    def _write_metadata(self, metadata):
        buf = io.BytesIO()
        _Pickler(buf, {}).dump(metadata)
        tmp = self.path / (_METADATA_FN + ".tmp")
        with open(tmp, "wb") as f:
            f.write(buf.getvalue())
            if self.sync_files:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, self.path / _METADATA_FN)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return True


class FileSystemReader(StorageReader):
    """Reads a checkpoint directory written by ``dcp.save`` (torch's or torchlike's)."""

    def __init__(self, path, _extension_registry=None):
        self.fs = FileSystem()
        self.path = self.fs.init_path(path)
        self.storage_data = {}

    def reset(self, checkpoint_id=None):
        self.storage_data = {}
        if checkpoint_id is not None:
            self.path = self.fs.init_path(checkpoint_id)

    def read_metadata(self):
        """The checkpoint's :class:`Metadata` (torch's pickle, its names mapped to torchlike's classes)."""
        with open(self.path / _METADATA_FN, "rb") as f:
            md = _Unpickler(f, None).load()
        self.storage_data = {(i.fqn, None if i.offset is None else tuple(i.offset)): s
                             for i, s in (md.storage_data or {}).items()}
        return md

    def _read(self, fqn, offset):
        """The bytes of item (``fqn``, chunk ``offset``)."""
        info = self.storage_data[(fqn, None if offset is None else tuple(offset))]
        if info.transform_descriptors:
            raise NotImplementedError(f"checkpoint item {fqn} was written with stream transforms "
                                      f"{info.transform_descriptors}")
        with open(self.path / info.relative_path, "rb") as f:
            f.seek(info.offset)
            return f.read(info.length)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return True


_StorageInfo.__module__ = __name__


def _storage(given, checkpoint_id, default):
    """The storage reader/writer ``dcp.save``/``dcp.load`` use: ``given`` (reset to ``checkpoint_id`` when
    one is named), else ``default(checkpoint_id)``, the file-system one."""
    if given is None:
        if checkpoint_id is None:
            raise RuntimeError("`checkpoint_id` must be specified if storage_reader/storage_writer is None.")
        return default(checkpoint_id)
    if checkpoint_id is not None:
        given.reset(checkpoint_id)
    return given
