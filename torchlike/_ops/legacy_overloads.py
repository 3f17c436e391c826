"""torch's deprecated positional-scalar overloads: ``add(input, Number alpha, other)`` and relatives.

Old training code (hand-written optimizers above all) calls ``p.data.add_(-lr, grad)``,
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``, ``p.addcdiv_(-step, m, denom)`` or
``torch.addmm(beta, input, alpha, mat1, mat2)``.  torch 2.x still accepts these with a UserWarning; the
op bodies call :func:`sort_scalar_args` only when extra positionals arrive, so the normal path is untouched.
As torch, the first such call in a process warns (with torch's text for the surface called: function, method
or in-place method) and later ones are silent.
"""
from __future__ import annotations

import numbers
import sys
import warnings

from ._util import Tensor
from .._errors import PACKAGE_DIR, called_op
from .registry import WRAPPER_FILE

__all__ = ["sort_scalar_args"]


def _tname(a):
    return "Tensor" if isinstance(a, Tensor) else type(a).__name__


_REGISTRY = WRAPPER_FILE  # the op table's generated wrappers' frames

# the tensor parameters after ``input`` of each op with a deprecated overload, and whether torch's function
# also offers an ``out_dtype`` overload (listed among the replacements)
_TENSORS = {"add": ("other",), "sub": ("other",), "addcmul": ("tensor1", "tensor2"),
            "addcdiv": ("tensor1", "tensor2"), "addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"),
            "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2"), "addr": ("vec1", "vec2")}
_OUT_DTYPE = ("addmm", "baddbmm")
_warned = []  # torch warns about a deprecated overload once per process, whichever op and line it is


def _caller():
    """(stacklevel of the first caller outside torchlike, the surface it called: "function", "method" or
    "inplace"), read from the frames of the op table's generated wrappers between it and the op body."""
    f, level, surface = sys._getframe(2), 2, "method"
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIR):
        if f.f_code.co_filename == _REGISTRY:
            name = f.f_code.co_name
            surface = "inplace" if name.startswith("inplace") else "function" if name == "wrapper" else surface
        # (the __torch_function__ dispatchers' frames are ones warnings' stacklevel does not count)
        f, level = f.f_back, level + (f.f_back is None or not warnings._is_internal_frame(f.f_back))
    return level, surface


def _message(op, args, names, surface, last_is_tensor=False):
    """torch's text for the deprecated call ``args`` (tensors and scalars in call order) of ``op``; with
    ``last_is_tensor`` the last argument (a number) stands in the Tensor ``other``."""
    tnames = _TENSORS[op]
    method = surface != "function"
    shown = op + "_" if surface == "inplace" else op
    tn, nn = iter(tnames if method else ("input",) + tnames), iter(names)
    shown_args = args[1:] if method else args
    called = ", ".join(f"Tensor {next(tn)}" if isinstance(a, Tensor) or (last_is_tensor and k == len(shown_args) - 1)
                       else f"Number {next(nn)}" for k, a in enumerate(shown_args))
    tail = "" if method else ", *, Tensor out = None"
    keywords = ", ".join(f"Number {n} = 1" for n in names)
    tensors = ", ".join(f"Tensor {n}" for n in (tnames if method else ("input",) + tnames))
    alternatives = [f"{shown}({tensors}, *, {keywords}{', Tensor out = None' if not method else ''})"]
    if not method and op in _OUT_DTYPE:
        alternatives.append(f"{shown}({tensors}, torch.dtype out_dtype, *, {keywords}, Tensor out = None)")
    return (f"This overload of {shown} is deprecated:\n\t{shown}({called}{tail})\nConsider using one of the "
            "following signatures instead:\n\t" + "\n\t".join(alternatives) +
            " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)")


def _in_place(op, args, last_is_tensor):
    """Whether the scalars of ``args`` stand where torch's deprecated signatures put them: ``beta`` before
    ``input`` (a method's: right after self) and ``alpha`` after it, before the tensors (``addmm(beta, input,
    alpha, mat1, mat2)``); add/sub/addcmul/addcdiv's one scalar right after ``input``.  Trailing scalars
    (``addmm(input, mat1, mat2, beta, alpha)``) are no overload of torch 2.x's."""
    kinds = "".join("T" if isinstance(a, Tensor) else "N" for a in args)
    if last_is_tensor:
        kinds = kinds[:-1] + "T"
    if op not in _BETA_OPS:
        return kinds in ("TNT", "TNTT")
    return kinds in (("NTTT", "NTNTT") if _caller()[1] == "function" else ("TNTT", "TNNTT"))


_BETA_OPS = ("addmm", "addmv", "baddbmm", "addbmm", "addr")


def sort_scalar_args(op, args, ntensors, names, number_other=False):
    """Split the positional ``args`` of a deprecated overload into its tensors and its named scalars.

    The scalars keep their order and take ``names`` in turn (``beta`` then ``alpha``); anything else is
    torch's TypeError for an argument combination no overload takes.

    >>> import torchlike as torch
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.ones(2).add_(2, torch.ones(2)).tolist()
    [3.0, 3.0]
    """
    tensors = [a for a in args if isinstance(a, Tensor)]
    if len(tensors) > ntensors:  # (torch's parser takes a 0-d tensor that requires no grad for a Number)
        at = (1,) if op not in _BETA_OPS else (0 if _caller()[1] == "function" else 1, 2)[:len(args) - 3]
        args = tuple(a.item() if k in at and isinstance(a, Tensor) and a.ndim == 0 and not a.requires_grad else a
                     for k, a in enumerate(args))
        tensors = [a for a in args if isinstance(a, Tensor)]
    nums = [a for a in args if not isinstance(a, Tensor)]
    last_is_tensor = number_other and len(tensors) == ntensors - 1 and len(nums) > 1 and \
        isinstance(args[-1], numbers.Number)
    if last_is_tensor:
        # (add/sub take a number where the deprecated form has its Tensor ``other``: torch's parser wraps numbers
        # as tensors for them, ``x.add(1, 2)`` is ``x + 1 * 2``)
        tensors, nums = tensors + [args[-1]], nums[:-1]
    if (len(tensors) != ntensors or not 1 <= len(nums) <= len(names)
            or not all(isinstance(n, numbers.Number) for n in nums) or not _in_place(op, args, last_is_tensor)):
        raise TypeError(f"{called_op(op)}() received an invalid combination of arguments - got "
                        f"({', '.join(_tname(a) for a in args)}), but expected one of the documented overloads")
    if not _warned:
        _warned.append(True)
        level, surface = _caller()
        warnings.warn(_message(op, args, names, surface, last_is_tensor), UserWarning, stacklevel=level)
    return tensors, dict(zip(names, nums))
