"""torch's deprecated positional-scalar overloads: ``add(input, Number alpha, other)`` and relatives.

Old training code (hand-written optimizers above all) calls ``p.data.add_(-lr, grad)``,
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``, ``p.addcdiv_(-step, m, denom)`` or
``torch.addmm(beta, input, alpha, mat1, mat2)``.  torch 2.x still accepts these with a UserWarning; the
op bodies call :func:`sort_scalar_args` only when extra positionals arrive, so the normal path is untouched.
"""
from __future__ import annotations

import numbers
import os
import sys
import warnings

from ._util import Tensor

__all__ = ["sort_scalar_args"]


def _tname(a):
    return "Tensor" if isinstance(a, Tensor) else type(a).__name__


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_stacklevel():
    """The stacklevel of the first caller outside torchlike, so the warning names the user's line as torch's does."""
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f, level = f.f_back, level + 1
    return level


def sort_scalar_args(op, args, ntensors, names):
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
    nums = [a for a in args if not isinstance(a, Tensor)]
    if (len(tensors) != ntensors or not 1 <= len(nums) <= len(names)
            or not all(isinstance(n, numbers.Number) for n in nums)):
        raise TypeError(f"{op}() received an invalid combination of arguments - got "
                        f"({', '.join(_tname(a) for a in args)}), but expected one of the documented overloads")
    warnings.warn(f"This overload of {op} is deprecated:\n\t{op}({', '.join('Number ' + n for n in names[:len(nums)])}"
                  f", Tensor ...)\nConsider using the signature with keyword arguments "
                  f"({', '.join(n + '=' for n in names[:len(nums)])}) instead.", UserWarning,
                  stacklevel=_user_stacklevel())
    return tensors, dict(zip(names, nums))
