"""``torch.distributed.checkpoint.metadata``: what a checkpoint's ``.metadata`` file holds, with torch's class
names and fields, so the pickle is the one torch writes and reads (these classes pickle under
``torch.distributed.checkpoint.metadata``).

>>> import torchlike
>>> from torchlike.distributed.checkpoint.metadata import ChunkStorageMetadata, MetadataIndex
>>> MetadataIndex("w", [2, 0]).offset, ChunkStorageMetadata(torchlike.Size([0]), torchlike.Size([3])).sizes
(torch.Size([2, 0]), torch.Size([3]))
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional, Union

from ... import _layout
from ..._layout import strided
from ...tensor import Size
from ..._dtype import get_default_dtype
from ..._memory_format import contiguous_format

__all__ = ["BytesStorageMetadata", "ChunkStorageMetadata", "Metadata", "MetadataIndex", "StorageMeta",
           "TensorProperties", "TensorStorageMetadata"]


@dataclass
class ChunkStorageMetadata:
    """One saved piece of a tensor: where it starts (``offsets``) and its extent (``sizes``)."""
    offsets: Size
    sizes: Size


class _MEM_FORMAT_ENCODING(Enum):
    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2


def _default_dtype():
    return get_default_dtype()


def _contiguous():
    return contiguous_format


@dataclass
class TensorProperties:
    """A saved tensor's dtype (the other fields are kept for torch's pickle; torch deprecates them)."""
    dtype: Any = field(default_factory=_default_dtype)
    layout: Any = field(default=strided)
    requires_grad: bool = False
    memory_format: Any = field(default_factory=_contiguous)
    pin_memory: bool = False

    def __getstate__(self):  # torch's pickled state: memory_format as an enum (formats do not pickle)
        return (self.dtype, self.layout, self.requires_grad, _MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT,
                self.pin_memory)

    def __setstate__(self, state):
        self.dtype, self.layout, self.requires_grad, _enc, self.pin_memory = state
        if isinstance(self.layout, str):  # torchlike's unpickler gives torch.serialization._get_layout's name
            self.layout = getattr(_layout, self.layout.rsplit(".", 1)[-1], self.layout)
        self.memory_format = _contiguous()

    @staticmethod
    def create_from_tensor(tensor):
        return TensorProperties(dtype=tensor.dtype, layout=strided, requires_grad=tensor.requires_grad)


@dataclass
class TensorStorageMetadata:
    """A saved tensor: its properties, global size and the chunks it was written in."""
    properties: TensorProperties
    size: Size
    chunks: list


@dataclass
class BytesStorageMetadata:
    """A saved non-tensor value (``torch.save``'d bytes)."""


@dataclass
class StorageMeta:
    checkpoint_id: Union[str, os.PathLike, None] = None
    save_id: Optional[str] = None
    load_id: Optional[str] = None
    modules: list = field(default_factory=list)


@dataclass
class Metadata:
    """The checkpoint's table of contents: ``state_dict_metadata`` (flattened key -> storage metadata),
    ``planner_data`` (key -> path in the nested state dict), ``storage_data`` (MetadataIndex -> file slice)."""
    state_dict_metadata: dict
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: Optional[StorageMeta] = None
    version: Optional[str] = None


@dataclass(frozen=True)
class MetadataIndex:
    """Names one saved item: ``fqn`` and, for a tensor chunk, its ``offset``."""
    fqn: str
    offset: Optional[Size] = None
    index: Optional[int] = field(hash=False, compare=False, default=None)

    def __init__(self, fqn, offset=None, index=None):
        object.__setattr__(self, "fqn", fqn)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "offset", None if offset is None else Size(offset))


for _c in (ChunkStorageMetadata, TensorProperties, TensorStorageMetadata, BytesStorageMetadata, StorageMeta,
           Metadata, MetadataIndex, _MEM_FORMAT_ENCODING):
    _c.__module__ = __name__
del _c
