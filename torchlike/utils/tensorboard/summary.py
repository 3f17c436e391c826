"""Summary protocol buffers from tensors (torch.utils.tensorboard.summary): each function returns the
``Summary`` a ``SummaryWriter.add_*`` writes, with the values torch writes (histogram buckets, PNG images,
hparams plugin data, PR-curve tables).

>>> import torchlike
>>> scalar("loss", torchlike.tensor(0.25)).value[0].simple_value
0.25
"""
import io
import json
import logging
import struct

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ... import _dtype as dt
from ...tensor import Tensor
from ._convert_np import make_np
from ._utils import _prepare_video, convert_to_HWC

__all__ = ["half_to_int", "int_to_half", "hparams", "scalar", "histogram_raw", "histogram", "make_histogram",
           "image", "image_boxes", "draw_boxes", "make_image", "video", "make_video", "audio", "custom_scalars",
           "text", "tensor_proto", "pr_curve_raw", "pr_curve", "compute_curve", "mesh"]

logger = logging.getLogger(__name__)


def half_to_int(f):
    """The bits of ``f`` as a float32, read as an int32 (the ``half_val`` torch writes)."""
    return struct.unpack("i", struct.pack("f", f))[0]


def int_to_half(i):
    """The inverse of ``half_to_int``."""
    return struct.unpack("f", struct.pack("i", i))[0]


def _flat(a):
    return a.reshape(-1).tolist()


def _halves(a):
    return [half_to_int(x) for x in a.reshape(-1).tolist()]


def _complex(a):
    return np.stack([a.real, a.imag], -1).reshape(-1).tolist()


# torch dtype -> (TensorProto dtype, field, conversion of the numpy array)
_TENSOR_TYPES = {
    dt.float16: ("DT_HALF", "half_val", _halves), dt.bfloat16: ("DT_BFLOAT16", "half_val", _halves),
    dt.float32: ("DT_FLOAT", "float_val", _flat), dt.float64: ("DT_DOUBLE", "double_val", _flat),
    dt.int8: ("DT_INT8", "int_val", _flat), dt.uint8: ("DT_UINT8", "uint32_val", _flat),
    dt.int16: ("DT_INT16", "int_val", _flat), dt.int32: ("DT_INT32", "int_val", _flat),
    dt.int64: ("DT_INT64", "int64_val", _flat), dt.complex32: ("DT_COMPLEX32", "scomplex_val", _complex),
    dt.complex64: ("DT_COMPLEX64", "scomplex_val", _complex),
    dt.complex128: ("DT_COMPLEX128", "dcomplex_val", _complex), dt.bool: ("DT_BOOL", "bool_val", _flat),
}


def _plugin(name, content=b""):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name, content=content))


def _shape(dims):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in dims])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The hparams plugin's three summaries: the experiment (hparam and metric names), the session start
    (the hparam values) and the session end (success)."""
    from tensorboard.plugins.hparams import metadata as hp_meta
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData, SessionEndInfo, SessionStartInfo
    for arg, what in ((hparam_dict, "hparam_dict"), (metric_dict, "metric_dict")):
        if not isinstance(arg, dict):
            logger.warning(f"parameter: {what} should be a dictionary, nothing logged.")
            raise TypeError(f"parameter: {what} should be a dictionary, nothing logged.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    infos = []
    ssi = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # (bool is an int: like torch, True is recorded as the number 1.0)
        for kinds, field, type_name in (((int, float), "number_value", "DATA_TYPE_FLOAT64"),
                                        ((str,), "string_value", "DATA_TYPE_STRING"),
                                        ((bool,), "bool_value", "DATA_TYPE_BOOL")):
            if isinstance(v, kinds):
                setattr(ssi.hparams[k], field, v)
                domain = None
                if k in hparam_domain_discrete:
                    domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d})
                                                          for d in hparam_domain_discrete[k]])
                infos.append(HParamInfo(name=k, type=DataType.Value(type_name), domain_discrete=domain))
                break
        else:
            if not isinstance(v, Tensor):
                raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
            ssi.hparams[k].number_value = make_np(v)[0]
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))

    def summary(tag, **data):
        content = HParamsPluginData(version=hp_meta.PLUGIN_DATA_VERSION, **data).SerializeToString()
        return Summary(value=[Summary.Value(tag=tag, metadata=_plugin(hp_meta.PLUGIN_NAME, content))])

    exp = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (summary(hp_meta.EXPERIMENT_TAG, experiment=exp),
            summary(hp_meta.SESSION_START_INFO_TAG, session_start_info=ssi),
            summary(hp_meta.SESSION_END_INFO_TAG,
                    session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))


def scalar(name, tensor, collections=None, new_style=False, double_precision=False):
    """A scalar summary (``simple_value``; with ``new_style`` a one-element tensor of the scalars plugin)."""
    tensor = make_np(tensor).squeeze()
    if tensor.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions).             Was given size: "
                             f"{tensor.size} and {tensor.ndim} dimensions.")
    value = float(tensor)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=_plugin("scalars"))])


def tensor_proto(tag, tensor):
    """A tensor summary of the tensor plugin holding ``tensor``'s values."""
    if tensor.numel() * tensor.itemsize >= (1 << 31):
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if tensor.dtype not in _TENSOR_TYPES:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dtype, field, convert = _TENSOR_TYPES[tensor.dtype]
    values = tensor.detach().cpu()
    arr = (values.to(dt.float32) if tensor.dtype in (dt.float16, dt.bfloat16) else values).numpy()
    proto = TensorProto(**{"dtype": dtype, "tensor_shape": _shape(tensor.shape), field: convert(arr)})
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("tensor"), tensor=proto)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002
    """A histogram summary from its statistics and buckets."""
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None):
    """A histogram summary of ``values`` (``bins`` as numpy.histogram's)."""
    return Summary(value=[Summary.Value(tag=name, histo=make_histogram(make_np(values).astype(float), bins,
                                                                       max_bins))])


def make_histogram(values, bins, max_bins=None):
    """The HistogramProto of ``values``: numpy's histogram, at most ``max_bins`` buckets (merged), trimmed to
    the buckets from the one before the first nonempty to the last nonempty."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    n = len(counts)
    if max_bins is not None and n > max_bins:
        sub = n // max_bins
        if n % sub:
            counts = np.pad(counts, pad_width=[[0, sub - n % sub]], mode="constant", constant_values=0)
        counts = counts.reshape(-1, sub).sum(axis=-1)
        merged = np.empty((counts.size + 1,), limits.dtype)
        merged[:-1] = limits[:-1:sub]
        merged[-1] = limits[-1]
        limits = merged
    cum = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum, [0, cum[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())


def _to_uint8_hwc(tensor, dataformats):
    tensor = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if tensor.dtype == np.uint8 else 255  # floats are in [0, 1]
    return (tensor.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def image(tag, tensor, rescale=1, dataformats="NCHW"):
    """An image summary (PNG) of ``tensor`` in layout ``dataformats`` (floats in [0, 1] or uint8)."""
    return Summary(value=[Summary.Value(tag=tag, image=make_image(_to_uint8_hwc(tensor, dataformats),
                                                                  rescale=rescale))])


def image_boxes(tag, tensor_image, tensor_boxes, rescale=1, dataformats="CHW", labels=None):
    """An image summary with boxes (rows of xmin, ymin, xmax, ymax) drawn on it."""
    return Summary(value=[Summary.Value(tag=tag, image=make_image(
        _to_uint8_hwc(tensor_image, dataformats), rescale=rescale, rois=make_np(tensor_boxes), labels=labels))])


def draw_boxes(disp_image, boxes, labels=None):
    """``disp_image`` (a PIL image) with each box drawn in red, labelled."""
    from PIL import ImageDraw, ImageFont
    font = ImageFont.load_default()
    for i in range(boxes.shape[0]):
        xmin, ymin, xmax, ymax = (boxes[i, j] for j in range(4))
        label = None if labels is None else labels[i]
        draw = ImageDraw.Draw(disp_image)
        draw.line([(xmin, ymin), (xmin, ymax), (xmax, ymax), (xmax, ymin), (xmin, ymin)], width=2, fill="Red")
        if label:
            left, top, right, bottom = font.getbbox(label)
            w, h = right - left, bottom - top
            margin = np.ceil(0.05 * h)
            draw.rectangle([(xmin, ymax - h - 2 * margin), (xmin + w, ymax)], fill="Red")
            draw.text((xmin + margin, ymax - h - margin), label, fill="white", font=font)
    return disp_image


def make_image(tensor, rescale=1, rois=None, labels=None):
    """A ``Summary.Image`` (PNG) of an HWC uint8 array, resized by ``rescale`` (LANCZOS)."""
    from PIL import Image
    height, width, channel = tensor.shape
    img = Image.fromarray(tensor)
    if rois is not None:
        img = draw_boxes(img, rois, labels=labels)
    img = img.resize((int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS)
    with io.BytesIO() as out:
        img.save(out, format="PNG")
        data = out.getvalue()
    return Summary.Image(height=height, width=width, colorspace=channel, encoded_image_string=data)


def video(tag, tensor, fps=4):
    """A video summary (an animated GIF, through moviepy) of a (B, T, C, H, W) tensor."""
    tensor = _prepare_video(make_np(tensor))
    scale = 1 if tensor.dtype == np.uint8 else 255
    tensor = (tensor.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_video(tensor, fps))])


def make_video(tensor, fps):
    """A ``Summary.Image`` holding a GIF of (T, H, W, C) uint8 frames (needs moviepy, as torch's)."""
    try:
        import moviepy  # noqa: F401
    except ImportError:
        print("add_video needs package moviepy")
        return
    from moviepy.editor import ImageSequenceClip
    import os
    import tempfile
    t, h, w, c = tensor.shape
    clip = ImageSequenceClip(list(tensor), fps=fps)
    filename = tempfile.NamedTemporaryFile(suffix=".gif", delete=False).name
    clip.write_gif(filename, verbose=False, logger=None)
    with open(filename, "rb") as f:
        data = f.read()
    os.remove(filename)
    return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=data)


def audio(tag, tensor, sample_rate=44100):
    """An audio summary (16-bit mono WAV) of a 1-D tensor in [-1, 1] (clipped, with a warning, beyond)."""
    import wave
    array = make_np(tensor).squeeze()
    if abs(array).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        array = array.clip(-1, 1)
    if array.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    array = (array * np.iinfo(np.int16).max).astype("<i2")
    with io.BytesIO() as fio:
        with wave.open(fio, "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(sample_rate)
            wav.writeframes(array.data)
        data = fio.getvalue()
    snd = Summary.Audio(sample_rate=sample_rate, num_channels=1, length_frames=array.shape[-1],
                        encoded_audio_string=data, content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=tag, audio=snd)])


def custom_scalars(layout):
    """The custom-scalars plugin's layout: {category: {title: ["Multiline", tags] or ["Margin", 3 tags]}}."""
    categories = []
    for category, charts in layout.items():
        out = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                out.append(layout_pb2.Chart(title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                out.append(layout_pb2.Chart(title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=out))
    proto = TensorProto(dtype="DT_STRING", tensor_shape=TensorShapeProto(),
                        string_val=[layout_pb2.Layout(category=categories).SerializeToString()])
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=proto,
                                        metadata=_plugin("custom_scalars"))])


def text(tag, text):
    """A text summary (tag ``<tag>/text_summary``, markdown)."""
    proto = TensorProto(dtype="DT_STRING", string_val=[text.encode(encoding="utf_8")], tensor_shape=_shape([1]))
    meta = _plugin("text", TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def _pr_summary(tag, data, num_thresholds):
    meta = _plugin("pr_curves", PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString())
    proto = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(), tensor_shape=_shape(data.shape[:2]))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    """A PR-curve summary from its six rows of counts and rates (at most 127 thresholds)."""
    return _pr_summary(tag, np.stack((tp, fp, tn, fn, precision, recall)), min(num_thresholds, 127))


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    """A PR-curve summary of binary ``labels`` against ``predictions`` in [0, 1]."""
    num_thresholds = min(num_thresholds, 127)
    return _pr_summary(tag, compute_curve(labels, predictions, num_thresholds=num_thresholds, weights=weights),
                       num_thresholds)


def compute_curve(labels, predictions, num_thresholds=None, weights=None):
    """The (6, num_thresholds) table of true/false positive/negative counts, precision and recall."""
    weights = 1.0 if weights is None else weights
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    pos = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=pos * weights)
    fp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=(1.0 - pos) * weights)
    tp = np.cumsum(tp_b[::-1])[::-1]
    fp = np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def _mesh_value(name, display_name, description, array, content_type, components, json_config):
    from tensorboard.plugins.mesh import metadata
    array = np.asarray(array)
    meta = metadata.create_summary_metadata(name, display_name, content_type, components, array.shape,
                                            description, json_config=json_config)
    proto = TensorProto(dtype="DT_FLOAT", float_val=array.reshape(-1).tolist(), tensor_shape=_shape(array.shape[:3]))
    return Summary.Value(tag=metadata.get_instance_name(name, content_type), tensor=proto, metadata=meta)


def mesh(tag, vertices, colors, faces, config_dict, display_name=None, description=None):
    """The mesh plugin's summary: vertices (B, N, 3), optional colors and faces."""
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData
    json_config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(vertices, MeshPluginData.VERTEX), (faces, MeshPluginData.FACE), (colors, MeshPluginData.COLOR)]
    parts = [(make_np(t), kind) for t, kind in parts if t is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    return Summary(value=[_mesh_value(tag, display_name, description, t, kind, components, json_config)
                          for t, kind in parts])
