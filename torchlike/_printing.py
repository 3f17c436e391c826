"""torch-style tensor repr: ``tensor([1., 2.])``, with dtype/grad_fn/device suffixes."""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._errors import to_host
from ._ops.registry import register

__all__ = ["tensor_repr", "set_printoptions"]

_opts = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """torch.set_printoptions."""
    if profile == "default":
        _opts.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    elif profile == "short":
        _opts.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        _opts.update(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80)
    for k, v in dict(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth).items():
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


class _Formatter:
    def __init__(self, values, dt):
        self.floating = dt.is_floating_point
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        vals = values.reshape(-1)
        if not self.floating:
            for v in vals:
                self.max_width = max(self.max_width, len(self._plain(v)))
            return
        finite = vals[np.isfinite(vals)].astype(np.float64)
        if finite.size == 0:
            for v in vals:
                self.max_width = max(self.max_width, len(str(v).replace("inf", "inf")))
            return
        absv = np.abs(finite)
        nonzero = absv[absv != 0]
        self.int_mode = bool(np.all(np.ceil(finite) == finite))
        if self.int_mode:
            if nonzero.size and (nonzero.max() / nonzero.min() > 1000.0 or nonzero.max() > 1e8):
                self.sci_mode = True
                self.int_mode = False
        else:
            if nonzero.size and (nonzero.max() / nonzero.min() > 1000.0 or nonzero.max() > 1e8 or
                                 nonzero.min() < 1e-4):
                self.sci_mode = True
        if _opts["sci_mode"] is not None:
            self.sci_mode = _opts["sci_mode"]
        for v in vals:
            self.max_width = max(self.max_width, len(self._fmt(v)))

    def _plain(self, v):
        if isinstance(v, (np.bool_, bool)):
            return "True" if v else "False"
        return str(v)

    def _fmt(self, v):
        p = _opts["precision"]
        if not self.floating:
            return self._plain(v)
        v = float(v)
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
        if self.sci_mode:
            return f"{v:.{p}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{p}f}"

    def format(self, v):
        return self._fmt(v).rjust(self.max_width)


def _body(a, fmt, indent, summarize):
    if a.ndim == 0:
        return fmt(a.item() if not isinstance(a, np.ndarray) else a.reshape(()).item()) if False else fmt(a[()])
    ei = _opts["edgeitems"]
    if a.ndim == 1:
        items = [fmt(v) for v in a]
        if summarize and a.shape[0] > 2 * ei:
            items = [fmt(v) for v in a[:ei]] + ["..."] + [fmt(v) for v in a[-ei:]]
        width = max((len(x) for x in items), default=1) + 2
        per_line = max(1, (_opts["linewidth"] - indent) // width)
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(a.shape[0])
    if summarize and a.shape[0] > 2 * ei:
        parts = [_body(a[i], fmt, indent + 1, summarize) for i in range(ei)] + ["..."] + \
                [_body(a[i], fmt, indent + 1, summarize) for i in range(a.shape[0] - ei, a.shape[0])]
    else:
        parts = [_body(a[i], fmt, indent + 1, summarize) for i in rows]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


@register("__repr__", namespaces=())
def _tensor_repr_method(self, *, tensor_contents=None):
    """``repr(t)``: torch's format, ``tensor([...], dtype=..., requires_grad=True)`` (a user's subclass's name in
    place of ``tensor``, as torch prints ``Plain([...])``)."""
    cls = type(self)
    if cls.__module__.startswith("torchlike"):  # Tensor, Parameter and torchlike's own subclasses
        return tensor_repr(self)
    return tensor_repr(self, f"{cls.__name__}(")


_tensor_repr_method.__name__, _tensor_repr_method.__qualname__ = "__repr__", "Tensor.__repr__"


def tensor_repr(t, prefix="tensor("):
    import jax
    x = t._host_array()  # a host tensor is printed from its numpy array, without a transfer
    if x is None and isinstance(t._value, jax.core.Tracer):
        return f"tensor(<traced {list(t.shape)} {t.dtype}>)"
    suffix = []
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    if t.device.type == "meta":  # no values to print: torch shows the size (and a non-default dtype)
        body, more = "...", [f"size={tuple(t.shape)}"]
        if t.dtype is not _dtype.get_default_dtype():
            more.append(f"dtype={t.dtype}")
    else:
        body, more = tensor_body(t, len(prefix))
    suffix += more
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    if suffix:
        body = body + ", " + ", ".join(suffix)
    return prefix + body + ")"


def tensor_body(t, indent):
    """The values part of a tensor's repr (``[[1., 2.], ...]``, lines indented by ``indent``) and the suffixes
    its size and dtype call for (``size=(0, 3)``, ``dtype=torch.int32``)."""
    dt = t.dtype
    x = t._host_array()  # a host tensor is printed from its numpy array, without a transfer
    a = to_host(t._value if x is None else x)
    suffix = []
    if dt is _dtype.bfloat16:
        a = a.astype(np.float32)
    default_dtypes = (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool, _dtype.default_complex())
    if a.size == 0:
        body = "[]"
        if a.shape != (0,):
            suffix.append(f"size={tuple(a.shape)}")
        if dt not in (_dtype.get_default_dtype(), _dtype.int64):
            suffix.append(f"dtype={dt}")
        return body, suffix
    summarize = a.size > _opts["threshold"]
    if dt.is_complex:
        # torch formats the real and imaginary parts each with its own float formatter
        real_dt = dt.to_real()
        fr, fi = _Formatter(a.real, real_dt), _Formatter(np.abs(a.imag), real_dt)

        def fmtc(v):
            im = fi.format(abs(v.imag)).strip() if not np.isnan(v.imag) else "nan"
            sign = "-" if (v.imag < 0 or (v.imag == 0 and np.signbit(v.imag))) else "+"
            return f"{fr.format(v.real)}{sign}{im}j"
        body = _body(a, fmtc, indent, summarize)
    else:
        sample = a
        if summarize:
            ei = _opts["edgeitems"]
            sample = np.concatenate([a.reshape(-1)[:ei], a.reshape(-1)[-ei:]]) if a.ndim <= 1 else a
        f = _Formatter(sample, dt)
        body = _body(a, f.format, indent, summarize)
    if dt not in default_dtypes:
        suffix.append(f"dtype={dt}")
    return body, suffix
