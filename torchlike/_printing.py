"""torch-style tensor repr: ``tensor([1., 2.])``, with dtype/grad_fn/device suffixes."""
from __future__ import annotations

import numpy as np

from ._tape import FORWARD_AD
from . import _dtype
from ._errors import to_host
from ._ops.registry import register

__all__ = ["tensor_repr", "set_printoptions"]

# the packages whose Tensor classes print as ``tensor(...)`` (torchlike's, or torch's names under the runner)
_OWN = ("torchlike", "torch")

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
    """torch's element formatter: width, integer and scientific modes are decided from the nonzero finite
    values (of the summarized data when the tensor is summarized); zeros, nan and inf are then padded to
    that width (or overflow it, as ``-0.`` and ``-inf`` do in torch)."""

    def __init__(self, values, dt):
        self.floating = dt.is_floating_point
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        vals = np.asarray(values).reshape(-1)
        if not self.floating:
            self.max_width = max([1] + [len(self._plain(v)) for v in vals])
            return
        f = vals.astype(np.float64)
        nz = f[np.isfinite(f) & (f != 0)]
        if nz.size == 0:
            return
        absv = np.abs(nz)
        lo, hi = absv.min(), absv.max()
        self.int_mode = bool(np.all(np.ceil(nz) == nz))
        with np.errstate(over="ignore"):  # 1e300 / 1e-300 is inf, and > 1000 as in torch, silently
            auto = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        self.sci_mode = auto if _opts["sci_mode"] is None else bool(_opts["sci_mode"])
        p = _opts["precision"]
        if self.sci_mode:
            widths = [len(f"{v:.{p}e}") for v in nz]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in nz]
        else:
            widths = [len(f"{v:.{p}f}") for v in nz]
        self.max_width = max(widths)

    @staticmethod
    def _plain(v):
        if isinstance(v, (np.bool_, bool)):
            return "True" if v else "False"
        return str(v)

    def format(self, v):
        if not self.floating:
            ret = self._plain(v)
        else:
            v = float(v)
            if self.sci_mode:
                ret = f"{v:.{_opts['precision']}e}" if np.isfinite(v) else f"{v}"
            elif self.int_mode:
                ret = f"{v:.0f}" + ("." if np.isfinite(v) else "")
            else:
                ret = f"{v:.{_opts['precision']}f}"
        return ret.rjust(self.max_width)


def _summarized(a):
    """The values torch's formatter sees when a tensor is summarized: the edge items of every dimension."""
    ei = _opts["edgeitems"]
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:ei], a[-ei:]]) if a.shape[0] > 2 * ei else a
    if not ei:
        return a[:0]
    rows = list(range(ei)) + list(range(a.shape[0] - ei, a.shape[0])) if a.shape[0] > 2 * ei else range(a.shape[0])
    return np.stack([_summarized(a[i]) for i in rows])


def _body(a, fmt, indent, summarize, width):
    """torch's layout of ``a``'s values (``fmt``: one element's string; ``width``: the element width that
    decides how many fit on a line)."""
    if a.ndim == 0:
        return fmt(a[()])
    ei = _opts["edgeitems"]
    if a.ndim == 1:
        if summarize and not ei:
            items = ["..."]
        elif summarize and a.shape[0] > 2 * ei:
            items = [fmt(v) for v in a[:ei]] + [" ..."] + [fmt(v) for v in a[-ei:]]
        else:
            items = [fmt(v) for v in a]
        per_line = max(1, (_opts["linewidth"] - indent) // width)
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = a.shape[0]
    if summarize and n > 2 * ei:
        parts = [_body(a[i], fmt, indent + 1, summarize, width) for i in range(ei)] + ["..."] + \
                [_body(a[i], fmt, indent + 1, summarize, width) for i in range(n - ei, n)]
    else:
        parts = [_body(a[i], fmt, indent + 1, summarize, width) for i in range(n)]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


@register("__repr__", namespaces=())
def _tensor_repr_method(self, *, tensor_contents=None):
    """``repr(t)``: torch's format, ``tensor([...], dtype=..., requires_grad=True)`` (a user's subclass's name in
    place of ``tensor``, as torch prints ``Plain([...])``)."""
    cls = type(self)
    if cls.__module__.partition(".")[0] in _OWN:  # Tensor, Parameter and torchlike's own subclasses
        return tensor_repr(self)
    text = tensor_repr(self, f"{cls.__name__}(")
    if self.__dict__.get("_is_param"):  # nn.Parameter(subclass instance): torch wraps it
        return f"Parameter({text})"
    return text


_tensor_repr_method.__name__, _tensor_repr_method.__qualname__ = "__repr__", "Tensor.__repr__"


def tensor_repr(t, prefix="tensor("):
    import jax
    x = t._host_array(True)  # a host tensor is printed from its numpy array, without a transfer
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
        suffix.append(f"grad_fn=<{t.grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    if FORWARD_AD[0] is not None:  # a dual level is entered: a dual tensor shows its tangent
        tangent = FORWARD_AD[0].tangent_of(t)
        if tangent is not None:
            suffix.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffix, len(prefix))


def _add_suffixes(text, suffixes, indent):
    """``text`` with ``, suffix`` appended for each suffix, a suffix that would pass the line width going on a
    line of its own (torch's rule)."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > _opts["linewidth"]:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    return "".join(parts) + ")"


def tensor_body(t, indent):
    """The values part of a tensor's repr (``[[1., 2.], ...]``, lines indented by ``indent``) and the suffixes
    its size and dtype call for (``size=(0, 3)``, ``dtype=torch.int32``)."""
    dt = t.dtype
    x = t._host_array(True)  # a host tensor is printed from its numpy array, without a transfer
    a = to_host(t._value if x is None else x)
    suffix = []
    if dt is _dtype.bfloat16:
        a = a.astype(np.float32)
    default_dtypes = (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool, _dtype.default_complex())
    if a.size == 0:
        body = "[]"
        if a.shape != (0,):
            suffix.append(f"size={tuple(a.shape)}")
        if dt is not _dtype.get_default_dtype():
            suffix.append(f"dtype={dt}")
        return body, suffix
    if not _opts["edgeitems"]:
        suffix.append(f"size={tuple(a.shape)}")
    summarize = a.size > _opts["threshold"]
    seen = _summarized(a) if summarize else a
    if dt.is_complex:
        # torch formats the real and imaginary parts each with its own float formatter
        real_dt = dt.to_real()
        fr, fi = _Formatter(seen.real, real_dt), _Formatter(seen.imag, real_dt)

        def fmtc(v):
            im = (fi.format(v.imag) + "j").lstrip()
            return fr.format(v.real) + (im if im[0] in "+-" else "+" + im)
        body = _body(a, fmtc, indent, summarize, fr.max_width + fi.max_width + 3)
    else:
        f = _Formatter(seen, dt)
        body = _body(a, f.format, indent, summarize, f.max_width + 2)
    if dt not in default_dtypes:
        suffix.append(f"dtype={dt}")
    return body, suffix
