"""torch.cuda.streams: the module ``torch.cuda.Stream`` / ``Event`` / ``ExternalStream`` live in (libraries annotate
with ``torch.cuda.streams.Stream``)."""
from . import Event, Stream


class ExternalStream(Stream):
    """A stream allocated outside torch (``stream_ptr``): on JAX's GPU it, too, only selects the device."""

    def __init__(self, stream_ptr, device=None, **kwargs):
        super().__init__(device)
        self.stream_ptr = stream_ptr


__all__ = ["Stream", "Event", "ExternalStream"]
