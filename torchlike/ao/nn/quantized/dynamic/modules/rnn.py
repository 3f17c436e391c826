"""torch.ao.nn.quantized.dynamic.LSTM (``DynamicQuantizedLSTM``): each layer's two weight matrices quantized to
qint8 per tensor; every step multiplies as the dynamic Linear does (the input projection once for the whole
sequence, the hidden one per step), the gates in float32, as torch's ``quantized_lstm`` computes them.

>>> import torchlike
>>> from torchlike import nn
>>> torchlike.ao.quantization.quantize_dynamic(nn.Sequential(nn.LSTM(2, 3)), {nn.LSTM})[0]
DynamicQuantizedLSTM(2, 3)
"""
from __future__ import annotations

import numbers
import warnings

import jax
import jax.numpy as jnp

from ...... import _dtype
from ......_creation import zeros
from ......_dispatch import dispatch
from ......_quantized import linear_dynamic, quantize_per_tensor
from ......nn.modules.container import ModuleList
from ......nn.modules.module import Module
from ......nn.modules.rnn import LSTM as _FloatLSTM
from .linear import weight_qparams

__all__ = ["PackedParameter", "LSTM"]


class PackedParameter(Module):
    """One layer-direction's cell parameters; torch holds a packed ScriptObject as ``param``, torchlike the
    tuple ``(weight_ih, weight_hh, bias_ih, bias_hh)`` (qint8 weights, float biases)."""

    def __init__(self, param):
        super().__init__()
        self.param = param

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "param"] = self.param

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        self.param = state_dict.pop(prefix + "param")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)


def _exact_f32(a, b, c, d):
    """``a * b + c * d`` rounded to float32 after each operation, as torch's separate kernels round: each product
    formed exactly in float64 and rounded to float32 precision by ``reduce_precision`` (LLVM would contract
    float32 multiply-adds, and folds plain float64->float32->float64 round trips), the sum exact, then rounded."""
    f64 = jnp.float64
    p = jax.lax.reduce_precision(a.astype(f64) * b.astype(f64), exponent_bits=8, mantissa_bits=23)
    q = jax.lax.reduce_precision(c.astype(f64) * d.astype(f64), exponent_bits=8, mantissa_bits=23)
    return (p + q).astype(jnp.float32)


def _tanh(x):
    """tanh rounded from float64: torch's float32 tanh is correctly rounded on 99% of inputs, XLA's on ~40%."""
    return jnp.tanh(x.astype(jnp.float64)).astype(jnp.float32)


def _sigmoid(x):
    """``1 / (1 + exp(-x))`` in float32 with a correctly rounded exp: torch's scalar loop over a gate chunk."""
    e = jnp.exp(-x.astype(jnp.float64)).astype(jnp.float32)
    return jnp.float32(1) / (jnp.float32(1) + e)


def _lstm_gates(hh, ih, c):
    gates = hh + ih
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    i, f, g, o = _sigmoid(i), _sigmoid(f), _tanh(g), _sigmoid(o)
    cy = _exact_f32(f, c, i, g)
    return o * _tanh(cy), cy


class LSTM(Module):
    """A dynamically quantized LSTM (made by ``quantize_dynamic`` from ``nn.LSTM``; inference only)."""

    _version = 2

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=_dtype.qint8):
        super().__init__()
        self.mode = "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.dtype, self.version, self.training = bidirectional, dtype, 2, False
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if dtype is not _dtype.qint8:
            raise NotImplementedError(f"torchlike's dynamic quantized LSTM supports qint8 weights only, not {dtype} "
                                      "(see docs/differences.md)")
        gate = 4 * hidden_size
        cells = []
        for layer in range(num_layers):
            for _ in range(2 if bidirectional else 1):
                n_in = input_size if layer == 0 else hidden_size * (2 if bidirectional else 1)
                cells.append(PackedParameter(tuple(
                    quantize_per_tensor(zeros(gate, n), 0.1, 0, _dtype.qint8) for n in (n_in, hidden_size))
                    + (zeros(gate), zeros(gate))))
        self._all_weight_values = ModuleList(cells)

    def _get_name(self):
        return "DynamicQuantizedLSTM"

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        for name, default in (("num_layers", 1), ("bias", True), ("batch_first", False), ("dropout", 0),
                              ("bidirectional", False)):
            if getattr(self, name) != default or (name != "dropout" and getattr(self, name) is not default):
                s += f", {name}={getattr(self, name)}"
        return s

    def __repr__(self):
        extra = self.extra_repr()
        children = ["(" + k + "): " + repr(m).replace("\n", "\n  ") for k, m in self._modules.items()
                    if not isinstance(m, (PackedParameter, ModuleList))]
        if not children:
            return f"{self._get_name()}({extra})"
        return f"{self._get_name()}(\n  " + "\n  ".join([extra] + children) + "\n)"

    def forward(self, input, hx=None):
        if not hasattr(input, "ndim"):
            raise NotImplementedError("torchlike's dynamic quantized LSTM takes a Tensor, not a PackedSequence "
                                      "(see docs/differences.md)")
        if input.ndim != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.ndim}")
        x = input.transpose(0, 1) if self.batch_first else input  # (T, B, I)
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            h0 = zeros(self.num_layers * dirs, x.shape[1], self.hidden_size, dtype=input.dtype)
            hx = (h0, h0)
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                w_ih, w_hh, b_ih, b_hh = self._all_weight_values[k].param
                seq = x.flip(0) if d else x
                pre = linear_dynamic(seq, w_ih, b_ih)  # (torch projects the whole sequence at once)
                h, c, steps = hx[0][k], hx[1][k], []
                for t in range(seq.shape[0]):
                    h, c = dispatch(_lstm_gates, (linear_dynamic(h, w_hh, b_hh), pre[t], c), diff=False)
                    steps.append(h)
                out = _stack(steps)
                outs.append(out.flip(0) if d else out)
                hs.append(h)
                cs.append(c)
            x = outs[0] if dirs == 1 else dispatch(lambda a, b: jnp.concatenate([a, b], -1), tuple(outs),
                                                   diff=False)
        out = x.transpose(0, 1) if self.batch_first else x
        return out, (_stack(hs), _stack(cs))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The dynamic quantized version of float LSTM ``mod`` (qint8 weights, per tensor symmetric)."""
        if type(mod) is not _FloatLSTM:
            raise AssertionError("nn.quantized.dynamic.RNNBase.from_float only works for ['LSTM', 'GRU']")
        if mod.proj_size:
            raise NotImplementedError("torchlike's dynamic quantized LSTM has no proj_size (see docs/differences.md)")
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        qconfig = getattr(mod, "qconfig", None)
        dtype = qconfig.weight().dtype if qconfig is not None else _dtype.qint8
        q = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first, mod.dropout,
                mod.bidirectional, dtype)
        for layer in range(mod.num_layers):
            for d in range(2 if mod.bidirectional else 1):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                ws = [getattr(mod, f"weight_{n}{sfx}").detach() for n in ("ih", "hh")]
                qs = tuple(quantize_per_tensor(w.float(), *weight_qparams(w), _dtype.qint8) for w in ws)
                q._all_weight_values[layer * (2 if mod.bidirectional else 1) + d].param = \
                    qs + (getattr(mod, f"bias_ih{sfx}"), getattr(mod, f"bias_hh{sfx}"))
        return q


def _stack(ts):
    return dispatch(lambda *a: jnp.stack(a), tuple(ts), diff=False)
