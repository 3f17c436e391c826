"""SummaryWriter and FileWriter (torch.utils.tensorboard.writer): event files for TensorBoard, written through
the ``tensorboard`` package's EventFileWriter."""
import os
import time

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ._convert_np import make_np
from ._embedding import get_embedding_info, make_mat, make_sprite, make_tsv, write_pbtxt
from ._utils import figure_to_image
from .summary import (audio, custom_scalars, histogram, histogram_raw, hparams, image, image_boxes, mesh, pr_curve,
                      pr_curve_raw, scalar, tensor_proto, text, video)

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes ``Event`` protocol buffers to an event file in ``log_dir`` (asynchronously, flushed every
    ``flush_secs`` seconds or ``max_queue`` events)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        """The directory the event file is written to."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Write ``event``, stamped with ``walltime`` (now by default) and ``step``."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Write a ``Summary`` as an event."""
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        """Write a (GraphDef, RunMetadata) pair."""
        graph, stepstats = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)
        trm = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=stepstats.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=trm), None, walltime)

    def add_onnx_graph(self, graph, walltime=None):
        """Write a GraphDef."""
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


def _default_bins():
    """Histogram bucket edges ``add_histogram(bins="tensorflow")`` uses: +-1e-12 * 1.1**k up to 1e20, and 0."""
    v, edges = 1e-12, []
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


class SummaryWriter:
    """Writes TensorBoard event files in ``log_dir`` (default ``runs/<date>_<host><comment>``) from tensors,
    numpy arrays and Python numbers.

    >>> import tempfile, torchlike
    >>> w = SummaryWriter(tempfile.mkdtemp())
    >>> w.add_scalar("loss", torchlike.tensor(0.5), global_step=0)
    >>> w.add_histogram("w", torchlike.randn(100), 0)
    >>> w.close()
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            import socket
            from datetime import datetime
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname()
                                   + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The FileWriter of ``log_dir`` (made again after ``close``)."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:  # TensorBoard drops the events logged after this step before
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def _add(self, summary, global_step=None, walltime=None):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def get_logdir(self):
        """The directory event files are written to."""
        return self.log_dir

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """Hyperparameters and their metrics, in the sub-run ``run_name`` (the time by default)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w_hp:
            for summary in (exp, ssi, sei):
                w_hp.file_writer.add_summary(summary, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One scalar (a one-element tensor, a numpy scalar or a number)."""
        self._add(scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision), global_step,
                  walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several scalars under ``main_tag``, each in its own sub-run ``<main_tag>_<key>``."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            fw_tag = root + "/" + main_tag.replace("/", "_") + "_" + tag
            if fw_tag not in self.all_writers:
                self.all_writers[fw_tag] = FileWriter(fw_tag, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers[fw_tag].add_summary(scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """A tensor's values (the tensor plugin)."""
        self._add(tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """A histogram of ``values`` (``bins``: "tensorflow" for TensorBoard's exponential buckets, or as
        numpy.histogram's)."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,  # noqa: A002
                          global_step=None, walltime=None):
        """A histogram from its statistics and buckets."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._add(histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts), global_step,
                  walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """An image (floats in [0, 1] or uint8), layout ``dataformats``."""
        self._add(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images tiled into one."""
        self._add(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(self, tag, img_tensor, box_tensor, global_step=None, walltime=None, rescale=1,
                             dataformats="CHW", labels=None):
        """An image with boxes drawn on it (``labels``: one per box, else none drawn)."""
        if labels is not None:
            labels = [labels] if isinstance(labels, str) else labels
            if len(labels) != box_tensor.shape[0]:
                labels = None
        self._add(image_boxes(tag, img_tensor, box_tensor, rescale=rescale, dataformats=dataformats,
                              labels=labels), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them) rendered as an image."""
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime,
                       dataformats="NCHW" if isinstance(figure, list) else "CHW")

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        """A (B, T, C, H, W) video (needs moviepy)."""
        self._add(video(tag, vid_tensor, fps), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """A 1-D sound in [-1, 1]."""
        self._add(audio(tag, snd_tensor, sample_rate=sample_rate), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """A text (markdown)."""
        self._add(text(tag, text_string), global_step, walltime)

    def add_onnx_graph(self, prototxt):
        """torch reads an ONNX file's graph with the onnx package; torchlike writes no ONNX graphs."""
        raise NotImplementedError("SummaryWriter.add_onnx_graph: torchlike does not read ONNX graphs "
                                  "(see docs/differences.md)")

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """torch traces ``model`` with TorchScript (``torch.jit.trace``) and logs that graph; torchlike has no
        TorchScript tracer, so this raises NotImplementedError (torch prints its own line first when tracing
        fails, as here)."""
        print("Error occurs, No graph saved")
        raise NotImplementedError(
            "SummaryWriter.add_graph: the graph is a TorchScript trace (torch.jit.trace) and torchlike has no "
            "TorchScript tracer, so no graph can be logged (see docs/differences.md)")

    @staticmethod
    def _encode(rawstr):
        return rawstr.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """Data points for the embedding projector: ``mat`` (N, D), a label (or row of columns, with
        ``metadata_header``) and an image (N, C, H, W) per point."""
        mat = make_np(mat)
        global_step = 0 if global_step is None else global_step
        subdir = f"{str(global_step).zfill(5)}/{self._encode(tag)}"
        save_path = os.path.join(self._get_file_writer().get_logdir(), subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            make_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            make_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        make_mat(mat, save_path)
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([get_embedding_info(metadata, label_img, subdir, global_step,
                                                                     tag)])
        from google.protobuf import text_format
        write_pbtxt(self._get_file_writer().get_logdir(), text_format.MessageToString(self._projector_config))

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None):
        """A precision-recall curve of binary ``labels`` against ``predictions`` in [0, 1]."""
        self._add(pr_curve(tag, make_np(labels), make_np(predictions), num_thresholds, weights), global_step,
                  walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds=127,
                         weights=None, walltime=None):
        """A precision-recall curve from its counts and rates."""
        self._add(pr_curve_raw(tag, true_positive_counts, false_positive_counts, true_negative_counts,
                               false_negative_counts, precision, recall, num_thresholds, weights),
                  global_step, walltime)

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart of several tags in one."""
        self._add(custom_scalars({category: {title: ["Multiline", tags]}}))

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart of a value and its lower and upper bounds (three tags)."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self._add(custom_scalars({category: {title: ["Margin", tags]}}))

    def add_custom_scalars(self, layout):
        """The custom-scalars layout: {category: {title: ["Multiline" or "Margin", tags]}}."""
        self._add(custom_scalars(layout))

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None, global_step=None, walltime=None):
        """A 3-D mesh or point cloud (vertices (B, N, 3), colors, faces)."""
        self._add(mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    def flush(self):
        """Write pending events of every writer to disk."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self):
        """Flush and close every writer (a second close does nothing)."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
