"""The recurrent kernels behind nn.RNN/LSTM/GRU and their cells.

A whole multi-layer, (bi)directional stack runs as ONE jitted function: the input projection of
every timestep is one matmul, the recurrence is a ``lax.scan``.  Variable lengths (packed sequences)
are a per-step mask: finished sequences keep their state, and the reverse direction walks each
sequence backwards within its own length.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__: list = []

_HI = lax.Precision.HIGHEST
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _mm(x, w):
    # (a state of another dtype than the weight reaches a matmul only under autocast, whose linear casts it)
    return jnp.matmul(x.astype(w.dtype), w.T, precision=_HI)


_CASTABLE = (jnp.dtype(jnp.float32), jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16))


def _ac(a, L):
    """Autocast's cast of one operand to ``L`` (float32/float16/bfloat16 ones; float64 stays)."""
    return a.astype(L) if a is not None and a.dtype in _CASTABLE else a


def autocast_states(mode, proj, fused, L, h_dt, c_dt):
    """The dtypes the hidden (and cell) state carry under autocast to ``L``, as torch's decomposition gives them:
    oneDNN's LSTM layer (``fused``: an autocast op) casts everything to ``L``; elsewhere only the linear steps
    are cast, so a state that an elementwise step mixes with the previous one promotes (the GRU's ``h``, the
    LSTM's ``c`` and, without a projection, its ``h = o * tanh(c)``) and the others come out of a linear step
    or an activation of one, in ``L`` (the Elman RNN's ``h``, a projected LSTM ``h``)."""
    L = jnp.dtype(L)
    if fused:
        return L, (L if mode == "LSTM" else None)
    if mode == "GRU":
        return jnp.promote_types(h_dt, L), None
    if mode == "LSTM":
        c = jnp.promote_types(c_dt, L)
        return (L if proj else c), c
    return L, None


def cell_step(mode, xp, h, c, w_hh, b_hh, w_hr):
    """One recurrence step given the input projection ``xp = x W_ih^T + b_ih``."""
    gh = _mm(h, w_hh)
    if b_hh is not None:
        gh = gh + b_hh
    if mode == "LSTM":
        i, f, g, o = jnp.split(xp + gh, 4, axis=-1)
        c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h2 = jax.nn.sigmoid(o) * jnp.tanh(c2)
        if w_hr is not None:
            h2 = _mm(h2, w_hr)
        return h2, c2
    if mode == "GRU":
        xr, xz, xn = jnp.split(xp, 3, axis=-1)
        hr, hz, hn = jnp.split(gh, 3, axis=-1)
        r = jax.nn.sigmoid(xr + hr)
        z = jax.nn.sigmoid(xz + hz)
        n = jnp.tanh(xn + r * hn)
        return (1 - z) * n + z * h, c
    pre = xp + gh
    return (jnp.tanh(pre) if mode == "RNN_TANH" else jax.nn.relu(pre)), c


def _reverse_index(T, lengths):
    t = jnp.arange(T)[:, None]
    return jnp.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)  # (T, B), an involution


def _run_direction(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths, reverse):
    T = x.shape[0]
    xp = _mm(x, w_ih)
    if b_ih is not None:
        xp = xp + b_ih
    if reverse:
        if lengths is None:
            xp = jnp.flip(xp, 0)
        else:
            ridx = _reverse_index(T, lengths)
            xp = jnp.take_along_axis(xp, ridx[:, :, None], axis=0)
    mask = None if lengths is None else (jnp.arange(T)[:, None] < lengths[None, :])[:, :, None]

    def step(carry, inp):
        h, c = carry
        xt, mt = inp
        h2, c2 = cell_step(mode, xt, h, c, w_hh, b_hh, w_hr)
        h2, c2 = h2.astype(h.dtype), c2.astype(c.dtype)  # (a fused autocast LSTM keeps c in float32 between steps)
        if mt is not None:
            h2 = jnp.where(mt, h2, h)
            c2 = jnp.where(mt, c2, c) if mode == "LSTM" else c
            return (h2, c2), jnp.where(mt, h2, 0)
        return (h2, c2), h2

    (hT, cT), ys = lax.scan(step, (h0, c0), (xp, mask))
    if reverse:
        ys = jnp.flip(ys, 0) if lengths is None else jnp.take_along_axis(ys, ridx[:, :, None], axis=0)
    return ys, hT, cT


def rnn_impl(x, h0, c0, lengths, drop, *weights, mode, num_layers, bidirectional, has_bias, proj, lower=None,
             fused=False):
    """x: (T, B, I); h0: (L*D, B, Hout); c0: (L*D, B, H) or None; weights in torch's parameter order.
    ``lower``: the autocast dtype's name (None: autocast off); ``fused``: the LSTM is oneDNN's layer."""
    D = 2 if bidirectional else 1
    per = 2 + (2 if has_bias else 0) + (1 if proj else 0)
    lstm = mode == "LSTM"
    c_out = None
    if lower is not None:
        L = jnp.dtype(lower)
        x, weights = _ac(x, L), tuple(_ac(w, L) for w in weights)
        h_dt, c_dt = autocast_states(mode, proj, fused, L, h0.dtype, c0.dtype if lstm else None)
        h0 = _ac(h0, h_dt)
        if lstm:
            c0 = _ac(c0, c_dt)
            if fused:  # oneDNN takes cx in L and keeps the cell state in float32 between steps
                c0, c_out = c0.astype(jnp.float32), c_dt
    hs, cs = [], []
    inp = x
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            w = weights[k * per:(k + 1) * per]
            w_ih, w_hh = w[0], w[1]
            b_ih, b_hh = (w[2], w[3]) if has_bias else (None, None)
            w_hr = w[-1] if proj else None
            c_init = c0[k] if lstm else jnp.zeros((), x.dtype)
            ys, hT, cT = _run_direction(mode, inp, h0[k], c_init, w_ih, w_hh, b_ih, b_hh, w_hr, lengths, d == 1)
            outs.append(ys)
            hs.append(hT)
            cs.append(cT)
        inp = outs[0] if D == 1 else jnp.concatenate(outs, -1)
        if drop is not None and layer < num_layers - 1:
            inp = inp * drop[layer]
    h_n = jnp.stack(hs)
    if lstm:
        c_n = jnp.stack(cs)
        return inp, h_n, (c_n if c_out is None else c_n.astype(c_out))
    return inp, h_n


def cell_impl(x, h, c, w_ih, w_hh, b_ih, b_hh, mode, lower=None):
    if lower is not None:  # the cells' linear steps cast (torch's cells are decompositions, not autocast ops)
        L = jnp.dtype(lower)
        x, w_ih, w_hh, b_ih, b_hh = (_ac(a, L) for a in (x, w_ih, w_hh, b_ih, b_hh))
        if mode in ("RNN_TANH", "RNN_RELU"):
            h = _ac(h, L)
    xp = _mm(x, w_ih)
    if b_ih is not None:
        xp = xp + b_ih
    h2, c2 = cell_step(mode, xp, h, c if c is not None else jnp.zeros((), x.dtype), w_hh, b_hh, None)
    return (h2, c2) if mode == "LSTM" else h2


def gather_rows(x, idx, fill):
    """``x[idx]`` along dim 0 with ``fill`` where idx < 0 (packing/unpacking sequences)."""
    y = jnp.take(x, jnp.maximum(idx, 0), axis=0)
    ok = (idx >= 0).reshape(idx.shape + (1,) * (x.ndim - 1))
    return jnp.where(ok, y, jnp.asarray(fill, x.dtype))


def np_index(a):
    return jnp.asarray(np.asarray(a, np.int64))
