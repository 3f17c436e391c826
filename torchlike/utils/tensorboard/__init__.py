"""torch.utils.tensorboard: ``SummaryWriter`` writes TensorBoard event files (scalars, histograms, images, text,
hparams, PR curves, embeddings, meshes) from torchlike tensors, as torch's does; the ``tensorboard`` package
is required, as with torch.

>>> import tempfile, torchlike
>>> from torchlike.utils.tensorboard import SummaryWriter
>>> with SummaryWriter(tempfile.mkdtemp()) as w:
...     w.add_scalar("loss", torchlike.tensor(0.5), 0)
"""
import tensorboard

if tuple(int(p) for p in getattr(tensorboard, "__version__", "0.0").split(".")[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
