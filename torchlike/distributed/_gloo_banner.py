"""Keep gloo's connection banner off the user's stdout.

XLA's CPU collectives (gloo, compiled into jaxlib) print "[Gloo] Rank R is connected to N peer ranks ..." to
file descriptor 1 when a program first connects its ranks; torch's gloo prints nothing. While such a
program runs for the first time, fd 1 goes through a pipe that drops those lines and passes everything else
on unchanged, so nothing the user prints meanwhile is lost.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["dropping_banner"]

_BANNER = b"[Gloo] Rank "


def _flush():
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed or replaced stdout
        pass


def _pump(r, out_fd):
    buf = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        buf += chunk
        *lines, buf = buf.split(b"\n")
        keep = b"".join(line + b"\n" for line in lines if not line.startswith(_BANNER))
        if keep:
            os.write(out_fd, keep)
    if buf and not buf.startswith(_BANNER):
        os.write(out_fd, buf)
    os.close(r)


@contextlib.contextmanager
def dropping_banner():
    """Inside: fd 1 drops gloo's banner lines (and only those)."""
    _flush()
    try:
        saved = os.dup(1)
        r, w = os.pipe()
    except OSError:  # no fd 1 or no descriptors left: print as is
        yield
        return
    os.dup2(w, 1)
    os.close(w)
    t = threading.Thread(target=_pump, args=(r, saved), name="torchlike-gloo-banner", daemon=True)
    t.start()
    try:
        yield
    finally:
        _flush()
        os.dup2(saved, 1)  # closes the pipe's last write end: the pump drains and stops
        t.join(10)
        if not t.is_alive():  # (a child started meanwhile may hold the pipe open: then the pump keeps it)
            os.close(saved)
