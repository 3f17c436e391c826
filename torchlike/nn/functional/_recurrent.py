"""Calling the recurrent kernels as torch's ATen entry points do: the dropout masks torch draws between
layers, and the autograd nodes its results carry.

nn.RNN/LSTM/GRU and the top-level ``torch.lstm``/``torch.gru_cell``... share these. torch builds a stack
from per-step ops, so its results' ``grad_fn`` names the last op it ran: the ``stack`` of the step outputs
(``StackBackward0``), the ``cat`` of the two directions or of the packed steps, oneDNN's LSTM layer where it
takes float32 LSTMs (``MkldnnRnnLayerBackward0``), the final ``add``/``mul``/``tanh`` of a cell. Here each is
one fused kernel, recorded under the name torch's last op carries (a result whose name differs from its
kernel's gets its own node: a copy, only where autograd records).

>>> import torchlike as torch
>>> out, h = torch.nn.GRU(2, 3)(torch.zeros(4, 1, 2))
>>> out.grad_fn.name(), h.grad_fn.name()
('StackBackward0', 'StackBackward0')
"""
from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from ... import _autocast, _dtype
from ..._dispatch import dispatch
from ..._tape import relabel
from ..._cpu_features import onednn_half as _onednn_half
from . import _rnn as K
from ._attention import _keep_mask

__all__: list = []

# torch's RNN kernels by mode (torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu: _toplevel_kernels fills it),
# which nn.RNN/LSTM/GRU call through __torch_function__ when a weight's type overrides it
KERNELS: dict = {}

# the op that makes each cell's result in ATen's decomposition (``hy = newgate + inputgate * (hx - newgate)``,
# ``hy = outgate * tanh(cy)`` and ``cy = forgetgate * cx + ingate * cellgate``)
_CELL_NODE = {"GRU": "AddBackward0", "RNN_TANH": "TanhBackward0", "RNN_RELU": "ReluBackward0", "LSTM": "MulBackward0"}
_WARNED_PROJ: list = []


def _pack_table(lengths):
    """Per packed row: the (t, b) it comes from (b in sorted order), and batch_sizes."""
    T = max(lengths) if lengths else 0
    bs = [sum(1 for L in lengths if L > t) for t in range(T)]
    rows = [(t, b) for t in range(T) for b in range(bs[t])]
    return rows, bs


def _pack_impl(x, idx):
    return jnp.take(x.reshape((-1,) + x.shape[2:]), idx, axis=0)


def padded_to_packed_data(padded, lengths_sorted):
    """Inverse of ``packed_to_padded(sorted_order=True)``: (T, B, *) -> packed data rows."""
    rows, _ = _pack_table(lengths_sorted)
    B = padded.shape[1]
    idx = np.asarray([t * B + b for t, b in rows], np.int64)
    return dispatch(_pack_impl, (padded, K.np_index(idx)), (), name="PackPaddedSequenceBackward0", saves=False)


def _named(t, name):
    """``t`` with a node of its own named ``name`` where autograd records it."""
    return relabel(t.clone(), name) if t.grad_fn is not None else t


def _onednn_lstm(dtype):
    """Whether torch gives an LSTM of this dtype to oneDNN (``use_mkldnn`` in ATen's RNN.cpp): float32
    always, bfloat16 where the CPU has oneDNN's bf16 support (float16 only without grad: no node then)."""
    return dtype is _dtype.float32 or (dtype is _dtype.bfloat16 and _onednn_half("bfloat16"))


def autocast_dtype(x):
    """The autocast dtype for ``x``'s device (None where autocast is off there): torch's recurrent modules and
    kernels are decompositions whose linear steps autocast casts."""
    st = _autocast.state
    return st.dtype[x._dev.type] if st.on and st.enabled.get(x._dev.type) else None


def check_mm_dtypes(a, w, bias):
    """The error of a linear step whose operand ``a`` has another dtype than the weight ``w``: addmm's with a
    bias, mm's without."""
    if a == w:
        return
    if bias:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype._CAP[a.name]} and "
                           f"{_dtype._CAP[w.name]}")
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_dtype.C_NAMES[a.name]} != "
                       f"{_dtype.C_NAMES[w.name]}")


_CASTABLE = frozenset({"float32", "float16", "bfloat16"})


def _autocast_operands(lower, w, bias, *operands):
    """Under autocast the linear steps cast float32/float16/bfloat16 operands and weights to ``lower``, never a
    float64 one: a float64 input or state then meets a ``lower`` weight (addmm's/mm's dtype error, as in torch)."""
    w = lower if w.name in _CASTABLE else w
    for a in operands:
        check_mm_dtypes(lower if a.name in _CASTABLE else a, w, bias)


def _onednn_failure(lower):
    """oneDNN's refusal of an LSTM layer in a half dtype this CPU has no kernels for (torch's autocast casts the
    float32 LSTM oneDNN took to the autocast dtype; bfloat16 needs AVX-512 BW/VL/DQ, float16 AVX512-FP16)."""
    if lower is not None and not _onednn_half(lower.name):
        raise RuntimeError("could not create a primitive descriptor for the LSTM forward propagation primitive. "
                           "Run workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic "
                           "information.")


def dropout_masks(num_layers, dropout, train, x, lengths, width, dt=None):
    """The keep masks between layers (``(num_layers - 1, T, B, width)``) or None. torch drops each layer's
    output with one ``bernoulli_`` draw over its rows: the (T, B) steps, or for a packed sequence the packed
    rows only (drawn in packed order, then laid out padded here)."""
    if not (train and dropout > 0 and num_layers > 1):
        return None
    dt = np.dtype(x.dtype.np) if dt is None else dt
    if lengths is None:
        return _keep_mask((num_layers - 1, x.shape[0], x.shape[1], width), dropout, dt)
    rows, _ = _pack_table(lengths)
    where = np.zeros((x.shape[0], x.shape[1]), np.int64)
    for k, (t, b) in enumerate(rows):
        where[t, b] = k
    return _keep_mask((num_layers - 1, len(rows), width), dropout, dt)[:, where]


def run_stack(mode, x, h0, c0, lengths, params, *, num_layers, dropout, train, bidirectional, has_bias, proj,
              batch_first):
    """The whole stack on the time-major padded ``x`` (``lengths``: the packed sequence's, sorted; else
    None). Returns ``(out, h_n[, c_n])``: ``out`` as packed data when ``lengths`` is given, batch-first when
    ``batch_first``; each result under the node name torch gives it."""
    if x.shape[0] == 0:  # ATen's RNN, before any layer (a batch of 0 sequences is fine)
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    lstm = mode == "LSTM"
    if lstm and proj and lengths is None and _onednn_lstm(x.dtype) and not _WARNED_PROJ:
        # ATen's lstm: oneDNN takes float32 padded input whatever batch_first/bidirectional say, but not with
        # projections (TORCH_WARN_ONCE: once per process; the packed overload has no oneDNN path)
        _WARNED_PROJ.append(True)
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default implementation. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)",
                      UserWarning, stacklevel=2)
    D = 2 if bidirectional else 1
    lower = autocast_dtype(x)
    fused = lstm and not proj and lengths is None and _onednn_lstm(x.dtype)  # (oneDNN's layer, an autocast op)
    statics = ()
    out_dt = None
    if lower is not None:
        _autocast_operands(lower, params[0].dtype, has_bias, x.dtype, h0.dtype)
        if fused:
            _onednn_failure(lower)
        out_dt = K.autocast_states(mode, proj, fused, lower.np, h0.dtype.np, c0.dtype.np if lstm else None)[0]
        statics = (("lower", lower.name), ("fused", fused))
    drop = dropout_masks(num_layers, dropout, train, x, lengths, D * h0.shape[-1], out_dt)
    if lengths is not None or batch_first:
        name = "StackBackward0"  # out gets the pack/transpose node; the hidden states keep the stack's
    elif bidirectional:
        name = "CatBackward0"
    elif lstm and _onednn_lstm(x.dtype):
        name = "StackBackward0" if proj else "MkldnnRnnLayerBackward0"
    else:
        name = "StackBackward0"
    lens = None if lengths is None else K.np_index(lengths)
    outs = dispatch(K.rnn_impl, (x, h0, c0, lens, drop) + tuple(params),
                    (("mode", mode), ("num_layers", int(num_layers)), ("bidirectional", bool(bidirectional)),
                     ("has_bias", bool(has_bias)), ("proj", bool(proj))) + statics, name=name)
    out, hs = outs[0], tuple(outs[1:])
    if name != "StackBackward0":
        hs = tuple(_named(h, "StackBackward0") for h in hs)
    if lengths is not None:
        out = relabel(padded_to_packed_data(out, lengths), "CatBackward0")
    elif batch_first:  # torch transposes an RNN/GRU result in place (transpose_), an LSTM's out of place
        out = out.transpose(0, 1)
        if not lstm:
            relabel(out, "TransposeBackward1")
    return (out,) + hs


def run_cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One step of a cell: ``h'``, or ``(h', c')`` for an LSTM."""
    lower = autocast_dtype(x)
    if lower is not None:
        _autocast_operands(lower, w_ih.dtype, b_ih is not None, x.dtype, h.dtype)
    statics = (("mode", mode),) + ((("lower", lower.name),) if lower is not None else ())
    r = dispatch(K.cell_impl, (x, h, c, w_ih, w_hh, b_ih, b_hh), statics, name=_CELL_NODE[mode])
    return (r[0], _named(r[1], "AddBackward0")) if mode == "LSTM" else r
