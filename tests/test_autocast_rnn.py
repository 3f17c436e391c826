"""nn.RNN/LSTM/GRU and their cells under CPU autocast, against torch: the dtypes of every result (torch's
modules are decompositions whose linear steps autocast casts, and oneDNN's LSTM layer is itself an autocast
op, so an LSTM without projections gives all-``L`` results where a projected or packed one keeps ``c`` in
float32, a GRU's state promotes and an Elman RNN's is ``L``), the values at bfloat16 tolerance, the gradients'
dtypes and values, dropout between layers, and oneDNN's refusal of a float16 LSTM layer on a CPU without
AVX512-FP16."""
import warnings

import numpy as np
import pytest

import torchlike
from conftest import to_tl, torch
from torchlike._cpu_features import onednn_half

T, B, I, H = 5, 3, 4, 6
_x = np.random.default_rng(0).standard_normal((T, B, I)).astype(np.float32)


def _pair(lib_t, lib_l, make):
    """The same module in both libraries (torchlike's gets torch's parameters)."""
    mt = make(lib_t)
    ml = make(lib_l)
    ml.load_state_dict({k: to_tl(v) for k, v in mt.state_dict().items()})
    return mt, ml


def _flat(o):
    if o is None:
        return []
    if isinstance(o, (tuple, list)):
        return [y for a in o for y in _flat(a)]
    if hasattr(o, "batch_sizes"):
        return [o.data]
    return [o]


def _name(dt):
    return str(dt).replace("torch.", "").replace("torchlike.", "")


def _compare(ot, ol, tol):
    ft, fl = _flat(ot), _flat(ol)
    assert [_name(a.dtype) for a in fl] == [_name(a.dtype) for a in ft]
    for a, b in zip(ft, fl):
        np.testing.assert_allclose(b.detach().float().numpy(), a.detach().float().numpy(), rtol=tol, atol=tol)


def _run(lib, m, args, dtype):
    with lib.autocast("cpu", dtype=dtype), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m(*args)


STACKS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("RNN", {"batch_first": True}), ("RNN", {"bidirectional": True}),
    ("RNN", {"num_layers": 2}), ("GRU", {}), ("GRU", {"bidirectional": True, "num_layers": 2}),
    ("GRU", {"batch_first": True, "bias": False}), ("LSTM", {}), ("LSTM", {"batch_first": True}),
    ("LSTM", {"bidirectional": True, "num_layers": 2}), ("LSTM", {"bias": False}), ("LSTM", {"proj_size": 2}),
    ("LSTM", {"proj_size": 2, "bidirectional": True, "num_layers": 2}),
]


def _id(p):
    return p[0] + "-" + ",".join(f"{k}={v}" for k, v in p[1].items())


@pytest.mark.parametrize("kind,kw", STACKS, ids=[_id(p) for p in STACKS])
@pytest.mark.parametrize("form", ["batched", "unbatched", "packed", "hx", "half_input"])
def test_stack_bf16(kind, kw, form):
    torch.manual_seed(0)
    mt, ml = _pair(torch, torchlike, lambda L: getattr(L.nn, kind)(I, H, **kw))
    xt = torch.from_numpy(_x.copy()).requires_grad_(form != "packed")
    if kw.get("batch_first"):
        xt = xt.detach().transpose(0, 1).contiguous().requires_grad_()
    xl = to_tl(xt, requires_grad=xt.requires_grad)
    if form == "unbatched":
        xt, xl = xt[:, 0], xl[:, 0]
    if form == "half_input":
        xt, xl = xt.bfloat16(), xl.to(torchlike.bfloat16)
    args_t, args_l = (xt,), (xl,)
    if form == "packed":
        bf = bool(kw.get("batch_first"))
        args_t = (torch.nn.utils.rnn.pack_padded_sequence(xt, [2, 5, 4], bf, enforce_sorted=False),)
        args_l = (torchlike.nn.utils.rnn.pack_padded_sequence(xl, [2, 5, 4], bf, enforce_sorted=False),)
    if form == "hx":
        D = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
        h = torch.randn(D, B, kw.get("proj_size") or H)
        hx_t = (h, torch.randn(D, B, H)) if kind == "LSTM" else h
        hx_l = (to_tl(hx_t[0]), to_tl(hx_t[1])) if kind == "LSTM" else to_tl(hx_t)
        args_t, args_l = args_t + (hx_t,), args_l + (hx_l,)
    ot = _run(torch, mt, args_t, torch.bfloat16)
    ol = _run(torchlike, ml, args_l, torchlike.bfloat16)
    _compare(ot, ol, 4e-2)
    if form == "packed":
        return
    ft, fl = _flat(ot), _flat(ol)
    sum(a.float().sum() for a in ft).backward()
    sum(a.float().sum() for a in fl).backward()
    leaf_t, leaf_l = (xt if xt.is_leaf else None), (xl if xl.is_leaf else None)
    for (n, pt), pl in zip(mt.named_parameters(), ml.parameters()):
        assert _name(pl.grad.dtype) == _name(pt.grad.dtype), n
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), rtol=6e-2, atol=6e-2 * max(1, pt.grad.abs().max()))
    if leaf_t is not None:
        assert _name(leaf_l.grad.dtype) == _name(leaf_t.grad.dtype)
        np.testing.assert_allclose(leaf_l.grad.float().numpy(), leaf_t.grad.float().numpy(), rtol=6e-2, atol=6e-2)


CELLS = ["RNNCell", "GRUCell", "LSTMCell"]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("kind", CELLS)
@pytest.mark.parametrize("form", ["batched", "unbatched", "hx"])
def test_cells(kind, form, dtype):
    torch.manual_seed(0)
    mt, ml = _pair(torch, torchlike, lambda L: getattr(L.nn, kind)(I, H))
    xt = torch.from_numpy(_x[0].copy()).requires_grad_()
    xl = to_tl(xt, requires_grad=True)
    at, al = ((xt[0],), (xl[0],)) if form == "unbatched" else ((xt,), (xl,))
    if form == "hx":
        h = torch.randn(B, H)
        hx_t = (h, torch.randn(B, H)) if kind == "LSTMCell" else h
        at, al = (xt, hx_t), (xl, (to_tl(h), to_tl(hx_t[1])) if kind == "LSTMCell" else to_tl(h))
    ot = _run(torch, mt, at, getattr(torch, dtype))
    ol = _run(torchlike, ml, al, getattr(torchlike, dtype))
    _compare(ot, ol, 4e-2)
    sum(a.float().sum() for a in _flat(ot)).backward()
    sum(a.float().sum() for a in _flat(ol)).backward()
    for pt, pl in zip(mt.parameters(), ml.parameters()):
        assert _name(pl.grad.dtype) == _name(pt.grad.dtype)
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), rtol=6e-2, atol=6e-2)
    assert _name(xl.grad.dtype) == _name(xt.grad.dtype)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM", "LSTM-proj"])
def test_float16(kind):
    """float16 autocast on the CPU: the decompositions as for bfloat16; oneDNN's LSTM layer (no projection, not
    packed) raises where the CPU has no float16 kernels for it, as torch does."""
    torch.manual_seed(0)
    kw = {"proj_size": 2} if kind == "LSTM-proj" else {}
    name = kind.split("-")[0]
    mt, ml = _pair(torch, torchlike, lambda L: getattr(L.nn, name)(I, H, **kw))
    xt = torch.from_numpy(_x.copy())
    try:
        ot = _run(torch, mt, (xt,), torch.float16)
    except RuntimeError as e:
        assert kind == "LSTM" and not onednn_half("float16")
        with pytest.raises(RuntimeError) as info:
            _run(torchlike, ml, (to_tl(xt),), torchlike.float16)
        assert str(info.value) == str(e)
        return
    ol = _run(torchlike, ml, (to_tl(xt),), torchlike.float16)
    _compare(ot, ol, 1e-2)
    packed_t = torch.nn.utils.rnn.pack_padded_sequence(xt, [5, 4, 2])
    packed_l = torchlike.nn.utils.rnn.pack_padded_sequence(to_tl(xt), [5, 4, 2])
    _compare(_run(torch, mt, (packed_t,), torch.float16), _run(torchlike, ml, (packed_l,), torchlike.float16), 1e-2)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_dropout_between_layers(kind):
    """Dropout between layers draws its mask in the layer output's dtype, as torch's does."""
    mt, ml = _pair(torch, torchlike, lambda L: getattr(L.nn, kind)(I, H, num_layers=3, dropout=0.5))
    xt = torch.from_numpy(_x.copy())
    torch.manual_seed(3)
    ot = _run(torch, mt, (xt,), torch.bfloat16)
    torchlike.manual_seed(3)
    ol = _run(torchlike, ml, (to_tl(xt),), torchlike.bfloat16)
    _compare(ot, ol, 4e-2)


def test_input_dtype_check_off_under_autocast():
    """torch skips the module's input/weight dtype check while any autocast is on (a bfloat16 input runs)."""
    mt, ml = _pair(torch, torchlike, lambda L: L.nn.GRU(I, H))
    xt = torch.from_numpy(_x.copy()).bfloat16()
    with pytest.raises(ValueError) as e:
        ml(to_tl(xt))
    with pytest.raises(ValueError) as et:
        mt(xt)
    assert str(e.value) == str(et.value)
    _compare(_run(torch, mt, (xt,), torch.bfloat16), _run(torchlike, ml, (to_tl(xt),), torchlike.bfloat16), 4e-2)


def test_toplevel_kernels():
    """torch.rnn_tanh / torch.gru_cell called directly cast as the modules do."""
    mt, ml = _pair(torch, torchlike, lambda L: L.nn.RNN(I, H))
    xt = torch.from_numpy(_x.copy())
    h = torch.zeros(1, B, H)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ot = torch.rnn_tanh(xt, h, list(mt.parameters()), True, 1, 0.0, False, False, False)
    with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
        ol = torchlike.rnn_tanh(to_tl(xt), to_tl(h), list(ml.parameters()), True, 1, 0.0, False, False, False)
    _compare(ot, ol, 4e-2)
    ct, cl = _pair(torch, torchlike, lambda L: L.nn.GRUCell(I, H))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ot = torch.gru_cell(xt[0], h[0], *ct.parameters())
    with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
        ol = torchlike.gru_cell(to_tl(xt[0]), to_tl(h[0]), *cl.parameters())
    _compare(ot, ol, 4e-2)


@pytest.mark.parametrize("case", ["rnn_f64_h", "gru_f64_x", "gru_f64_x_nobias", "cell_f64_h", "lstm_bf16_hx",
                                  "lstm_proj_bf16_c", "lstmcell_bf16_h"])
def test_mixed_state_dtypes(case):
    """A float64 input or state meets the autocast-cast weight in a linear step (addmm's or mm's dtype error); a
    half state is cast with the rest."""
    def run(L):
        x = L.ones(5, 3, 4)
        kind, kw = {"rnn_f64_h": ("RNN", {}), "gru_f64_x": ("GRU", {}), "gru_f64_x_nobias": ("GRU", {"bias": False}),
                    "cell_f64_h": ("RNNCell", {}), "lstm_bf16_hx": ("LSTM", {}),
                    "lstm_proj_bf16_c": ("LSTM", {"proj_size": 2}), "lstmcell_bf16_h": ("LSTMCell", {})}[case]
        L.manual_seed(0)
        m = getattr(L.nn, kind)(4, 6, **kw)
        args = {"rnn_f64_h": (x, L.zeros(1, 3, 6, dtype=L.float64)), "gru_f64_x": (x.double(),),
                "gru_f64_x_nobias": (x.double(),), "cell_f64_h": (x[0], L.zeros(3, 6, dtype=L.float64)),
                "lstm_bf16_hx": (x, (L.zeros(1, 3, 6, dtype=L.bfloat16), L.zeros(1, 3, 6))),
                "lstm_proj_bf16_c": (x, (L.zeros(1, 3, 2), L.zeros(1, 3, 6, dtype=L.bfloat16))),
                "lstmcell_bf16_h": (x[0], (L.zeros(3, 6, dtype=L.bfloat16), L.zeros(3, 6)))}[case]
        try:
            return [_name(t.dtype) for t in _flat(_run(L, m, args, L.bfloat16))]
        except RuntimeError as e:
            return str(e)
    assert run(torchlike) == run(torch)
