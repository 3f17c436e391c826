"""detect_anomaly / set_detect_anomaly: record each op's forward stack and check backward results for NaN.

While anomaly detection is on, every recorded node keeps the Python stack of the call that made it
(``node.metadata["traceback_"]``, as torch), backward runs node by node, a node whose gradients hold NaN
raises ``RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.`` (unless
``check_nan=False``), and an error in a node's backward is preceded by a warning naming the node and the
forward call that made it.

>>> import torchlike as torch
>>> x = torch.zeros(1, requires_grad=True)
>>> with torch.autograd.detect_anomaly(check_nan=True):  # doctest: +SKIP
...     torch.sqrt(x).mul(0).sum().backward()
Traceback (most recent call last):
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
"""
from __future__ import annotations

from .._errors import warn_at_caller
from .._tape import ANOMALY

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    return ANOMALY[0]


def is_anomaly_check_nan_enabled():
    return ANOMALY[1]


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warn_at_caller("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                       "enabled for debugging.")

    def __enter__(self):
        self.prev = tuple(ANOMALY)
        ANOMALY[:] = [True, bool(self.check_nan)]

    def __exit__(self, *a):
        ANOMALY[:] = list(self.prev)

    def __call__(self, fn):
        def wrapper(*a, **k):
            with self.__class__(self.check_nan):
                return fn(*a, **k)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off: at once, or for a ``with`` block."""

    def __init__(self, mode, check_nan=True):
        self.prev = tuple(ANOMALY)
        ANOMALY[:] = [bool(mode), bool(check_nan)]

    def __enter__(self):
        pass

    def __exit__(self, *a):
        ANOMALY[:] = list(self.prev)
