"""torch.utils.tensorboard.SummaryWriter backed by the ``tensorboard`` package when installed."""
from __future__ import annotations

import os
import time
from ...tensor import Tensor

__all__ = ["SummaryWriter"]


def _num(v):
    if isinstance(v, Tensor):
        return float(v.detach().item())
    return float(v)


class SummaryWriter:
    """Writes TensorBoard event files; accepts torchlike tensors as values.

    Without the tensorboard package, scalars are appended to ``<log_dir>/scalars.csv`` instead.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        self.log_dir = log_dir or os.path.join("runs", time.strftime("%b%d_%H-%M-%S") + comment)
        os.makedirs(self.log_dir, exist_ok=True)
        self._writer = None
        try:
            from tensorboard.summary.writer.event_file_writer import EventFileWriter
            self._writer = EventFileWriter(self.log_dir, max_queue, flush_secs, filename_suffix)
        except ImportError:
            self._csv = open(os.path.join(self.log_dir, "scalars.csv"), "a")

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, **kw):
        value = _num(scalar_value)
        if self._writer is not None:
            from tensorboard.compat.proto.event_pb2 import Event
            from tensorboard.compat.proto.summary_pb2 import Summary
            ev = Event(wall_time=walltime or time.time(), step=global_step or 0,
                       summary=Summary(value=[Summary.Value(tag=tag, simple_value=value)]))
            self._writer.add_event(ev)
        else:
            self._csv.write(f"{tag},{global_step},{value}\n")

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        for k, v in tag_scalar_dict.items():
            self.add_scalar(f"{main_tag}/{k}", v, global_step, walltime)

    def add_histogram(self, *a, **k):
        pass

    def add_image(self, *a, **k):
        pass

    def add_text(self, *a, **k):
        pass

    def add_graph(self, *a, **k):
        pass

    def add_hparams(self, *a, **k):
        pass

    def flush(self):
        if self._writer is not None:
            self._writer.flush()
        else:
            self._csv.flush()

    def close(self):
        if self._writer is not None:
            self._writer.close()
        else:
            self._csv.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()
