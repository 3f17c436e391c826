"""Image layout helpers of the SummaryWriter (torch.utils.tensorboard._utils): a batch tiled into one grid, any
of NCHW/CHW/HWC/HW made HWC, matplotlib figures rendered to arrays, videos tiled per frame."""
import numpy as np

__all__ = ["figure_to_image", "make_grid", "convert_to_HWC"]


def figure_to_image(figures, close=True):
    """A matplotlib figure (or a list of them) rendered to a CHW (NCHW) uint8 array."""
    import matplotlib.backends.backend_agg as agg
    import matplotlib.pyplot as plt

    def rgb(figure):
        canvas = agg.FigureCanvasAgg(figure)
        canvas.draw()
        w, h = figure.canvas.get_width_height()
        chw = np.moveaxis(np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(h, w, 4)[:, :, :3], 2, 0)
        if close:
            plt.close(figure)
        return chw

    return np.stack([rgb(f) for f in figures]) if isinstance(figures, list) else rgb(figures)


def _prepare_video(v):
    """A (B, T, C, H, W) video batch as (T, H', W', C) frames, the batch tiled in a grid of a power of 2 rows."""
    b, t, c, h, w = v.shape
    if v.dtype == np.uint8:
        v = np.float32(v) / 255.0
    if b & (b - 1):  # pad the batch to a power of two
        v = np.concatenate((v, np.zeros((2 ** b.bit_length() - b, t, c, h, w))), axis=0)
    rows = 2 ** ((b.bit_length() - 1) // 2)
    cols = v.shape[0] // rows
    v = v.reshape(rows, cols, t, c, h, w).transpose(2, 0, 4, 1, 5, 3)
    return v.reshape(t, rows * h, cols * w, c)


def make_grid(images, ncols=8):
    """An NCHW batch (1 or 3 channels) tiled into one CHW image, ``ncols`` per row.

    >>> make_grid(np.ones((3, 1, 2, 2)), ncols=2).shape
    (3, 4, 4)
    """
    if not isinstance(images, np.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = int(np.ceil(float(n) / ncols))
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor, input_format):  # noqa: N802 (torch's name)
    """Numpy image ``tensor`` in layout ``input_format`` (NCHW, CHW, HWC, HW, any order) as HWC, 3 channels."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shorthand twice.             input_format: "
                             f"{input_format}")
    if len(tensor.shape) != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different.         tensor shape: "
                             f"{tensor.shape}, input_format: {input_format}")
    fmt = input_format.upper()
    if len(fmt) == 4:
        return make_grid(tensor.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = tensor.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return np.stack([tensor.transpose([fmt.find(c) for c in "HW"])] * 3, 2)
