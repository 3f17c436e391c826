"""torch.distributed.checkpoint._fsspec_filesystem: FsspecWriter / FsspecReader. torchlike's are the file-system
writer and reader on local paths (a plain path or ``file://``); another fsspec protocol is not implemented."""
from .filesystem import FileSystemReader, FileSystemWriter

__all__ = ["FsspecWriter", "FsspecReader"]


def _local(path):
    path = str(path)
    if path.startswith("file://"):
        return path[len("file://"):]
    if "://" in path:
        raise NotImplementedError(f"torchlike's FsspecWriter/FsspecReader read and write local paths only, not {path!r}")
    return path


class FsspecWriter(FileSystemWriter):
    """Writes a checkpoint directory through fsspec (torchlike: a local one)."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, overwrite=True, _extensions=None, serialization_format=None,
                 **kwargs):
        extra = {} if serialization_format is None else {"serialization_format": serialization_format}
        super().__init__(_local(path), single_file_per_rank=single_file_per_rank, sync_files=sync_files,
                         thread_count=thread_count, per_thread_copy_ahead=per_thread_copy_ahead, overwrite=overwrite,
                         _extensions=_extensions, **extra)


class FsspecReader(FileSystemReader):
    """Reads a checkpoint directory through fsspec (torchlike: a local one)."""

    def __init__(self, path, **kwargs):
        super().__init__(_local(path))
