"""The archive ``torch.jit.save`` writes here: an exported program (``torchlike.export``, batch dim symbolic,
backward included) where the module carries example inputs from ``trace``, else the pickled module, plus the
extra files; written atomically to a path.  ``jit.load`` reads it (``MARK`` names its index record)."""
from __future__ import annotations

import io
import json
import os
import zipfile

from .. import export as _export
from .. import serialization
from ..nn.modules.module import Module

__all__ = ["MARK", "write", "write_to_buffer"]

MARK = "torchlike_jit.json"


def _export_bytes(m):
    inputs = getattr(m, "_torchlike_example_inputs", None)
    if inputs is None or not isinstance(m, Module):
        return None
    try:    # the batch dimension symbolic, as a traced TorchScript graph accepts other batch sizes
        dyn = [{0: "batch"} if getattr(a, "ndim", 0) else None for a in inputs]
        ep = _export.export(m, inputs, dynamic_shapes=dyn)
    except Exception:  # shape-dependent Python in forward: a fixed-shape program
        ep = _export.export(m, inputs)
    return ep.serialize(vjp_order=1)  # the backward too: a loaded module trains, as torch's does


def write(m, f, _extra_files=None):
    """Write module ``m``'s archive to ``f`` (a path, atomically, or a binary file object)."""
    program = _export_bytes(m)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        if program is not None:
            zf.writestr(MARK, json.dumps({"kind": "exported", "params": [n for n, _ in m.named_parameters()],
                                        "training": m.training}))
            zf.writestr("program.zip", program)
        else:
            pickled = io.BytesIO()
            serialization.save(m, pickled)
            zf.writestr(MARK, json.dumps({"kind": "module"}))
            zf.writestr("module.pt", pickled.getvalue())
        for name, data in (_extra_files or {}).items():
            zf.writestr(f"extra/{name}", data if isinstance(data, bytes) else str(data).encode())
    data = buf.getvalue()
    if isinstance(f, (str, os.PathLike)):
        serialization.write_atomically(os.fspath(f), lambda fh: fh.write(data))
    else:
        f.write(data)


def write_to_buffer(m, _extra_files=None):
    """``write`` into bytes (``ScriptModule.save_to_buffer``)."""
    buf = io.BytesIO()
    write(m, buf, _extra_files)
    return buf.getvalue()
