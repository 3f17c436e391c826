"""Recurrent layers: RNN, LSTM (with proj_size), GRU and their cells, torch's parameter names and init.

The whole stack (all layers and directions, dropout between layers) is one jitted ``lax.scan``
function; PackedSequence inputs run as a padded batch with per-sequence lengths.

>>> import torchlike as torch
>>> lstm = torch.nn.LSTM(3, 4, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(torch.zeros(2, 5, 3))
>>> out.shape, h.shape
(torch.Size([2, 5, 4]), torch.Size([2, 2, 4]))
"""
from __future__ import annotations

import itertools
import math
import warnings
import weakref
from numbers import Number

from ... import _autocast, _creation
from ..._class_parts import own_copies
from .. import init
from ..functional import _rnn as K
from ..._torch_function import handle_torch_function, has_torch_function
from ..functional._recurrent import KERNELS, autocast_dtype, check_mm_dtypes as _check_mm_dtypes, run_cell, run_stack
from ..parameter import Parameter
from ...tensor import Tensor
from ..utils.rnn import PackedSequence, packed_to_padded
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _check_rnn_args(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    # same checks, in the same order, as torch's RNNBase
    if isinstance(dropout, bool) or not isinstance(dropout, Number) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                         "element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=3)
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if mode not in K.GATES:
        raise ValueError("Unrecognized RNN mode: " + mode)




def _layer_param_specs(tag, gate_rows, in_features, hidden_size, proj_size, bias):
    """``(name, shape)`` of one layer and direction's parameters, in torch's order (which is also the
    order of the flat weight list the kernel receives)."""
    h_out = proj_size if proj_size > 0 else hidden_size
    specs = [("weight_ih" + tag, (gate_rows, in_features)), ("weight_hh" + tag, (gate_rows, h_out))]
    if bias:
        specs += [("bias_ih" + tag, (gate_rows,)), ("bias_hh" + tag, (gate_rows,))]
    if proj_size > 0:
        specs.append(("weight_hr" + tag, (proj_size, hidden_size)))
    return specs


def _uniform_reset(module):
    # torch's recurrent init: every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


class RNNBase(Module):
    """Base class of RNN/LSTM/GRU: parameters ``weight_ih_l{k}[_reverse]`` etc. in torch's order."""
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout = float(dropout)  # before validation, like torch (a non-number fails here first)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        self._flat_weight_refs = []
        _check_rnn_args(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)

        directions = ("", "_reverse") if bidirectional else ("",)
        gate_rows = K.GATES[mode] * hidden_size
        # layers above the first read the (projected) hidden states of every direction, concatenated
        upper_in = (proj_size if proj_size > 0 else hidden_size) * len(directions)
        self._flat_weights_names, self._all_weights = [], []
        for layer, suffix in itertools.product(range(num_layers), directions):
            specs = _layer_param_specs(f"_l{layer}{suffix}", gate_rows, input_size if layer == 0 else upper_in,
                                       hidden_size, proj_size, bias)
            for name, shape in specs:
                setattr(self, name, Parameter(_creation.empty(shape, device=device, dtype=dtype)))
            self._all_weights.append([name for name, _ in specs])
            self._flat_weights_names += self._all_weights[-1]
        self._init_flat_weights()
        self.reset_parameters()

    # torch's bookkeeping of the weights forward reads: a plain list attribute ``_flat_weights`` kept up to date
    # by attribute assignment and ``_apply``; libraries assign the list themselves (higher's patched RNNs).
    # Where a weight object was swapped since (weak references tell: functional_call) forward reads the module's
    # weights of the moment; torch then also stores that list, torchlike does not (_forward_weights), so a call
    # traced by a func transform or compile leaves no traced tensor in the module
    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def _forward_weights(self):
        if self._weights_have_changed():
            return [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        return self._flat_weights

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        replica._flat_weights = replica._flat_weights[:]  # (its own list: __setattr__ writes into it)
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in group] for group in self._all_weights]

    def __getstate__(self):
        # torch's pickles carry the flat weight list, not its weak references
        self._update_flat_weights()
        state = super().__getstate__()
        state.pop("_flat_weight_refs", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "all_weights" in state:
            self._all_weights = state["all_weights"]
        if "proj_size" not in state:
            self.proj_size = 0
        if "_flat_weights" not in state:  # (a pickle without the list)
            self._flat_weights = [getattr(self, wn, None) for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]

    def flatten_parameters(self):
        pass  # no cuDNN weight buffer to compact here

    def reset_parameters(self):
        _uniform_reset(self)

    def extra_repr(self):
        # only settings that differ from their defaults are shown, like torch's repr
        optional = (("proj_size", self.proj_size != 0), ("num_layers", self.num_layers != 1),
                    ("bias", self.bias is not True), ("batch_first", self.batch_first is not False),
                    ("dropout", self.dropout != 0), ("bidirectional", self.bidirectional is not False))
        return f"{self.input_size}, {self.hidden_size}" + "".join(
            f", {name}={getattr(self, name)}" for name, show in optional if show)

    def _run(self, input, hx):
        """Shared forward: returns (output, h_n[, c_n]) in the caller's layout."""
        lstm = self.mode == "LSTM"
        D = 2 if self.bidirectional else 1
        Hout = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        lengths = None
        if packed:
            x, lengths = packed_to_padded(input, sorted_order=True)
            batched, B = True, x.shape[1]
            if hx is not None and input.sorted_indices is not None:
                idx = input.sorted_indices
                hx = tuple(h.index_select(1, idx) for h in hx) if lstm else hx.index_select(1, idx)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"{self.mode.split('_')[0]}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"instead")
            batched = input.dim() == 3
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            B = x.shape[1]
        flat = self._forward_weights()
        w_dtype = flat[0].dtype
        if x.dtype != w_dtype and not any(_autocast.state.enabled.values()):  # (torch's _is_any_autocast_enabled)
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({w_dtype}). Convert input: "
                             f"input.to({w_dtype}), or convert model: model.to({x.dtype})")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{x.shape[-1]}")
        if hx is None:
            h0 = _creation.zeros((self.num_layers * D, B, Hout), dtype=x.dtype, device=x.device)
            c0 = _creation.zeros((self.num_layers * D, B, self.hidden_size), dtype=x.dtype,
                                 device=x.device) if lstm else None
        else:
            h0, c0 = (hx[0], hx[1]) if lstm else (hx, None)  # (torch indexes: a Tensor hx is IndexError)
            if not batched and not packed:
                want = 2
                for h in (h0,) + ((c0,) if lstm else ()):
                    if h.dim() != want:
                        raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({h0.dim()}-D, {c0.dim() if lstm else h0.dim()}-D) tensors" if lstm
                                           else f"For unbatched 2-D input, hx should also be 2-D but got "
                                           f"{h0.dim()}-D tensor")
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if lstm else None
            elif h0.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got ({h0.dim()}-D, "
                                   f"{c0.dim() if lstm else h0.dim()}-D) tensors" if lstm else
                                   f"For batched 3-D input, hx should also be 3-D but got {h0.dim()}-D tensor")
            exp_h = (self.num_layers * D, B, Hout)
            if tuple(h0.shape) != exp_h:
                raise RuntimeError(f"Expected hidden{'[0]' if lstm else ''} size {exp_h}, got {list(h0.shape)}")
            if lstm and tuple(c0.shape) != (self.num_layers * D, B, self.hidden_size):
                raise RuntimeError(f"Expected hidden[1] size {(self.num_layers * D, B, self.hidden_size)}, got "
                                   f"{list(c0.shape)}")
            if autocast_dtype(x) is not None:
                pass  # autocast casts the states with the weights (oneDNN's LSTM layer) or in the linear steps
            elif lstm and (h0.dtype != w_dtype or c0.dtype != w_dtype):  # (torch's oneDNN LSTM kernel)
                raise RuntimeError("get_mkldnn_dtype: unsupported data type")
            elif h0.dtype != w_dtype:  # the hidden state's first linear step
                _check_mm_dtypes(h0.dtype, w_dtype, self.bias)
        flat = list(flat)
        if not packed and has_torch_function(flat):
            # a weight whose type overrides __torch_function__ sees torch's kernel call (torch.lstm, ...), as the
            # _VF call of torch's modules gives it (ExpandedWeight raises there)
            r = handle_torch_function(KERNELS[self.mode], flat, x, (h0, c0) if lstm else h0, flat, bool(self.bias),
                                      self.num_layers, float(self.dropout), self.training, bool(self.bidirectional),
                                      False)
        else:
            r = run_stack(self.mode, x, h0, c0, lengths, flat, num_layers=self.num_layers,
                          dropout=self.dropout, train=self.training, bidirectional=bool(self.bidirectional),
                          has_bias=bool(self.bias), proj=self.proj_size > 0,
                          batch_first=batched and not packed and self.batch_first)
        out, hs = r[0], r[1:]
        if packed:
            out = PackedSequence(out, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
            if input.unsorted_indices is not None:
                hs = tuple(h.index_select(1, input.unsorted_indices) for h in hs)
        elif not batched:
            out = out.squeeze(1)
            hs = tuple(h.squeeze(1) for h in hs)
        return out, (hs if lstm else hs[0])

    def forward(self, input, hx=None):
        return self._run(input, hx)


@own_copies("forward")
class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu).

    >>> import torchlike as torch
    >>> torch.nn.RNN(3, 4, nonlinearity='relu')(torch.zeros(5, 2, 3))[0].shape
    torch.Size([5, 2, 4])
    """

    def __init__(self, *args, **kwargs):
        _reject_proj_size(kwargs)
        # nonlinearity is RNN's 4th positional parameter, between num_layers and bias
        args = list(args)
        self.nonlinearity = args.pop(3) if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


def _reject_proj_size(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


@own_copies("forward")
class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o), optional ``proj_size`` projection of h.

    >>> import torchlike as torch
    >>> torch.nn.LSTM(3, 4, proj_size=2)
    LSTM(3, 4, proj_size=2)
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


@own_copies("forward")
class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n).

    >>> import torchlike as torch
    >>> torch.nn.GRU(3, 4, bidirectional=True)(torch.zeros(5, 3))[1].shape
    torch.Size([2, 4])
    """

    def __init__(self, *args, **kwargs):
        _reject_proj_size(kwargs)
        super().__init__("GRU", *args, **kwargs)


del RNNBase.forward  # each of RNN, LSTM, GRU has its own, as in torch; RNNBase itself has none


class RNNCellBase(Module):
    """One recurrent step; ``num_chunks`` gate blocks are stacked in the rows of each weight."""
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = num_chunks * hidden_size

        def param(*shape):
            return Parameter(_creation.empty(shape, device=device, dtype=dtype))
        self.weight_ih = param(rows, input_size)
        self.weight_hh = param(rows, hidden_size)
        for name in ("bias_ih", "bias_hh"):
            self.register_parameter(name, param(rows) if bias else None)
        self.reset_parameters()

    def extra_repr(self):
        own = vars(self)  # RNNCell adds nonlinearity; the others have none to show
        text = f"{self.input_size}, {self.hidden_size}"
        if own.get("bias", True) is not True:
            text += f", bias={self.bias}"
        if own.get("nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self):
        _uniform_reset(self)

    def _cell(self, mode, input, hx):
        lstm = mode == "LSTM"
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for i, h in enumerate(hx if lstm else (hx,)):
                if h.dim() not in (1, 2):
                    what = f"hx[{i}]" if lstm else "hidden"
                    raise ValueError(f"{type(self).__name__}: Expected {what} to be 1D or 2D, got {h.dim()}D "
                                     f"instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            z = _creation.zeros((x.shape[0], self.hidden_size), dtype=x.dtype, device=x.device)
            h, c = z, (z if lstm else None)
        else:
            if lstm and isinstance(hx, Tensor) and batched:  # (torch hands hx to lstm_cell, whose parser refuses it)
                raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor")
            h, c = (hx[0], hx[1]) if lstm else (hx, None)
            if not batched:
                h = h.unsqueeze(0)
                c = c.unsqueeze(0) if lstm else None
        if x.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} expected {self.input_size}")
        for i, t in enumerate((h, c) if lstm else (h,)):  # ATen's check order: batch size, then hidden size
            if t.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden{i} batch size {t.shape[0]}")
            if t.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {t.shape[1]}, expected "
                                   f"{self.hidden_size}")
        # torch's cells run linear(input, w_ih, b_ih), then linear(hx, w_hh, b_hh) (which autocast casts)
        for t in (x, h) if autocast_dtype(x) is None else ():
            _check_mm_dtypes(t.dtype, self.weight_ih.dtype, self.bias)
        r = run_cell(mode, x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            r = tuple(t.squeeze(0) for t in r) if lstm else r.squeeze(0)
        return r


class RNNCell(RNNCellBase):
    """One Elman RNN step.

    >>> import torchlike as torch
    >>> torch.nn.RNNCell(3, 4)(torch.zeros(2, 3)).shape
    torch.Size([2, 4])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._cell("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, hx)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h, c)``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell("LSTM", input, hx)


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell("GRU", input, hx)


def apply_permutation(tensor, permutation, dim=1):
    """``tensor.index_select(dim, permutation)`` (torch's helper for packed-sequence state order).

    >>> import torchlike as torch, warnings
    >>> warnings.simplefilter("ignore", FutureWarning)
    >>> apply_permutation(torch.tensor([[1, 2], [3, 4]]), torch.tensor([1, 0]))
    tensor([[2, 1],
            [4, 3]])
    """
    warnings.warn("`apply_permutation` is deprecated, please use `tensor.index_select(dim, permutation)` instead",
                  FutureWarning, stacklevel=2)
    return tensor.index_select(dim, permutation)
