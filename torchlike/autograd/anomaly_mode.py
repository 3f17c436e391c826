"""detect_anomaly / set_detect_anomaly: check backward results for NaN."""
from __future__ import annotations

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]

_enabled = [False]


def is_anomaly_enabled():
    return _enabled[0]


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = _enabled[0]
        _enabled[0] = True

    def __exit__(self, *a):
        _enabled[0] = self.prev

    def __call__(self, fn):
        def wrapper(*a, **k):
            with self.__class__(self.check_nan):
                return fn(*a, **k)
        return wrapper


class set_detect_anomaly(detect_anomaly):
    def __init__(self, mode, check_nan=True):
        self.prev = _enabled[0]
        _enabled[0] = bool(mode)
        self.mode = bool(mode)

    def __enter__(self):
        _enabled[0] = self.mode

    def __exit__(self, *a):
        _enabled[0] = self.prev
