"""torch.distributed.checkpoint.storage: the bases of the storage layers ``dcp.save`` / ``dcp.load`` take
(FileSystemWriter / FileSystemReader derive from them, as torch's)."""
from ..._missing import module_getattr

__all__ = ["StorageWriter", "StorageReader"]
__getattr__ = module_getattr("torch.distributed.checkpoint.storage")


class StorageWriter:
    """Base of the checkpoint writers."""


class StorageReader:
    """Base of the checkpoint readers."""
