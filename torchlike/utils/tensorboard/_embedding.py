"""The embedding projector's files (torch.utils.tensorboard._embedding): tensors.tsv, metadata.tsv, sprite.png
and projector_config.pbtxt."""
import math
import os

import numpy as np
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from ._convert_np import make_np
from ._utils import make_grid

__all__ = ["make_tsv", "make_sprite", "get_embedding_info", "write_pbtxt", "make_mat"]


def _write(path, text):
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode("utf-8"))


def make_tsv(metadata, save_path, metadata_header=None):
    """metadata.tsv: one label per line, or a header line and tab-separated columns."""
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header] + list(metadata)]
    _write(os.path.join(save_path, "metadata.tsv"), "\n".join(lines) + "\n")


def make_sprite(label_img, save_path):
    """sprite.png: the label images (NCHW, values in [0, 1]) tiled in a square."""
    from PIL import Image
    import io
    nrow = math.ceil(label_img.size(0) ** 0.5)
    chw = make_grid(make_np(label_img), ncols=nrow)
    square = np.zeros((chw.shape[2], chw.shape[2], 3))
    hwc = chw.transpose(1, 2, 0)
    square[:hwc.shape[0], :, :] = hwc
    with io.BytesIO() as buf:
        Image.fromarray(np.uint8((square * 255).clip(0, 255))).save(buf, format="PNG")
        _write(os.path.join(save_path, "sprite.png"), buf.getvalue())


def get_embedding_info(metadata, label_img, subdir, global_step, tag):
    """The projector's EmbeddingInfo for one ``add_embedding``."""
    info = EmbeddingInfo()
    info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
    info.tensor_path = os.path.join(subdir, "tensors.tsv")
    if metadata is not None:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.size(3), label_img.size(2)])
    return info


def write_pbtxt(save_path, contents):
    """projector_config.pbtxt in ``save_path``."""
    _write(os.path.join(save_path, "projector_config.pbtxt"), contents)


def make_mat(matlist, save_path):
    """tensors.tsv: a row of tab-separated values per data point (numpy's scalars printed by ``str``)."""
    with open(os.path.join(save_path, "tensors.tsv"), "wb") as f:
        for row in matlist:
            f.write(("\t".join(str(v.item()) for v in row) + "\n").encode("utf-8"))
