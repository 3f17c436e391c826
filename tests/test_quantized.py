"""Quantized tensors and dynamic quantization, compared with torch (x86/fbgemm CPU): the quantized dtypes, the
per-tensor/per-channel quantizers bit for bit (with exact halfway values), dequantize, repr, the errors, and
``quantize_dynamic`` of Linear layers (outputs bit-equal, repr, state_dict keys, save/load across both)."""
import io
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import lib_program_vs_torch, raises_like_torch, same_as_torch

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
rng = np.random.default_rng(0)


def _halfway(n, scale):
    """Random floats, a third of them exactly halfway between two quantization steps."""
    x = (rng.standard_normal(n) * 20).astype(np.float32)
    x[: n // 3] = ((rng.integers(-300, 300, n // 3) + 0.5) * np.float32(scale)).astype(np.float32)
    return x


def _qparts(q):
    return q.int_repr(), q.dequantize(), q.dtype, q.qscheme() is not None, repr(q)


@pytest.mark.parametrize("dt,zp", [("quint8", 100), ("qint8", -3), ("qint32", 1000)])
def test_quantize_per_tensor_bit_exact(dt, zp):
    x = _halfway(999, 0.37)
    same_as_torch(lambda m, x: _qparts(m.quantize_per_tensor(x, 0.37, zp, getattr(m, dt))), x, grad=False,
                  rtol=0, atol=0)


def test_quantize_per_channel_bit_exact():
    x = _halfway(5 * 7 * 3, 0.1).reshape(5, 7, 3)
    for axis, n in ((0, 5), (2, 3)):
        scales, zps = rng.uniform(0.01, 0.5, n), rng.integers(-20, 20, n)
        same_as_torch(lambda m, x, s, z: (*_qparts(m.quantize_per_channel(x, s, z, axis, m.qint8)),
                                          m.quantize_per_channel(x, s, z, axis, m.qint8).q_per_channel_scales(),
                                          m.quantize_per_channel(x, s, z, axis, m.qint8).q_per_channel_axis()),
                      x, scales, zps, grad=False, rtol=0, atol=0)


def test_quantized_tensor_metadata_and_shape_ops():
    def fn(m, x):
        q = m.quantize_per_tensor(x, 0.1, 10, m.quint8)
        return (q.q_scale(), q.q_zero_point(), str(q.qscheme()), q.is_quantized, x.is_quantized, q.element_size(),
                q.is_floating_point(), repr(q.view(2, 3)), repr(q.reshape(3, 2)[1]), repr(q.t()), q[0, 1].item(),
                repr(q.clone()), repr(m.quantize_per_tensor(x, m.tensor(0.1), m.tensor(10), m.quint8)),
                [repr(row) for row in q],
                m.dequantize(x), repr(m.quantize_per_tensor([x, x], m.tensor([0.1, 0.2]), m.tensor([1, 2]),
                                                            m.qint8)))
    same_as_torch(fn, rng.standard_normal((2, 3)).astype(np.float32), grad=False)


def test_quantized_dtypes():
    def fn(m):
        out = []
        for d in (m.qint8, m.quint8, m.qint32, m.quint4x2, m.quint2x4):
            out += [repr(d), str(d), d.itemsize, d.is_floating_point, d.is_complex, d.to_real() is d]
        return out + [m.promote_types(m.qint8, m.qint8), repr(m.per_tensor_affine), repr(m.per_channel_symmetric)]
    same_as_torch(fn, grad=False)
    raises_like_torch(lambda m: m.qint8.is_signed)
    raises_like_torch(lambda m: m.quint8.to_complex())
    raises_like_torch(lambda m: m.promote_types(m.qint8, m.float32))
    raises_like_torch(lambda m: m.finfo(m.qint8))


def test_quantize_errors():
    x = np.float32([0.5, -1.0])
    raises_like_torch(lambda m, x: m.quantize_per_tensor(x, 0.1, 300, m.quint8), x)
    raises_like_torch(lambda m, x: m.quantize_per_tensor(x, 0.1, 0, m.float32), x)
    raises_like_torch(lambda m, x: m.quantize_per_tensor(x.double(), 0.1, 0, m.qint8), x)
    raises_like_torch(lambda m, x: m.quantize_per_tensor(x, 0.1, 0, m.qint8).q_per_channel_scales(), x)
    raises_like_torch(lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([0, 0]), 0,
                                                          m.qint8).q_scale(), x)
    raises_like_torch(lambda m, x: m.quantize_per_tensor(x, 0.1, 0, m.qint8).requires_grad_(), x)
    for name in ("int_repr", "q_scale", "q_zero_point", "qscheme"):
        raises_like_torch(lambda m, x: getattr(x, name)(), x, match=r"^Could not run 'aten::\w+' with arguments "
                          r"from the 'CPU' backend")
    # an op without a quantized kernel: torch's QuantizedCPU NotImplementedError (not a JAX error)
    raises_like_torch(lambda m, x: m.exp(m.quantize_per_tensor(x, 0.1, 0, m.qint8)), x,
                      match=r"^Could not run .+ with arguments from the 'QuantizedCPU' backend")


def _float_model(m, seed_sd=None):
    net = m.nn.Sequential(m.nn.Linear(16, 12), m.nn.ReLU(), m.nn.Linear(12, 5, bias=False))
    if seed_sd is not None:
        net.load_state_dict({k: m.tensor(v) for k, v in seed_sd.items()})
    return net


_SD = {k: v.detach().numpy() for k, v in _float_model(torch).state_dict().items()}


def test_quantize_dynamic_linear_matches_fbgemm():
    xs = [rng.standard_normal((4, 16)).astype(np.float32) * 3 + 1,
          np.abs(rng.standard_normal((2, 3, 16))).astype(np.float32),  # nonnegative input, 3-D
          np.zeros((1, 16), np.float32)]

    def fn(m, *xs):
        q = m.ao.quantization.quantize_dynamic(_float_model(m, _SD), {m.nn.Linear}, dtype=m.qint8)
        w = q[0].weight()
        return [q(x) for x in xs] + [repr(q), list(q.state_dict()), w.int_repr(), w.q_scale(), repr(q[0].bias()),
                                     q[2].bias(), repr(q.state_dict()["0._packed_params.dtype"])]
    same_as_torch(fn, *xs, grad=False, rtol=0, atol=0)


def test_quantize_dynamic_specs_and_paths():
    def fn(m):
        qd = m.ao.quantization.quantize_dynamic
        return [repr(qd(_float_model(m, _SD))), repr(qd(_float_model(m, _SD), {"2"})),
                repr(qd(m.nn.Linear(2, 3))),  # the top-level module itself is never swapped
                repr(qd(_float_model(m, _SD), {m.nn.Linear}, dtype=m.float16)),
                m.quantization.quantize_dynamic is qd,
                m.nn.quantized.dynamic.Linear is m.ao.nn.quantized.dynamic.Linear,
                type(qd(_float_model(m, _SD))[0]).__module__.split(".", 1)[1]]
    same_as_torch(fn, grad=False)
    raises_like_torch(lambda m: m.ao.quantization.quantize_dynamic(_float_model(m), {m.nn.Linear}, dtype=m.quint8))


_LSTM_SD = {k: v.detach().numpy() for k, v in torch.nn.LSTM(5, 6, num_layers=2, bidirectional=True,
                                                             batch_first=True).state_dict().items()}


def test_quantize_dynamic_lstm_matches_torch():
    """Word-language-model shape: {nn.LSTM, nn.Linear} quantized together.  The gates' float math differs from
    torch's in at most the last ulp (measured 6e-8 on outputs of magnitude < 1), hence the 1e-6 tolerance."""
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)

    def fn(m, x):
        lstm = m.nn.LSTM(5, 6, num_layers=2, bidirectional=True, batch_first=True)
        lstm.load_state_dict({k: m.tensor(v) for k, v in _LSTM_SD.items()})
        q = m.ao.quantization.quantize_dynamic(m.nn.Sequential(lstm, m.nn.Linear(12, 2)), {m.nn.LSTM, m.nn.Linear})
        out, (h, c) = q[0](x)
        out2, _ = q[0](x, (h, c))
        return [out, h, c, out2, repr(q), list(q.state_dict())]
    same_as_torch(fn, x, grad=False, rtol=0, atol=1e-6)


def test_unsupported_dynamic_modules_are_clear_errors():
    with pytest.raises(NotImplementedError, match=r"torch\.ao\.nn\.quantized\.dynamic\.GRU"):
        torchlike.ao.quantization.quantize_dynamic(torchlike.nn.Sequential(torchlike.nn.GRU(2, 3)))


def test_quantized_state_dict_crosses_save_load():
    x = rng.standard_normal((3, 16)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qt = torch.ao.quantization.quantize_dynamic(_float_model(torch, _SD), {torch.nn.Linear})
        ql = torchlike.ao.quantization.quantize_dynamic(_float_model(torchlike), {torchlike.nn.Linear})
    buf = io.BytesIO()
    torch.save(qt.state_dict(), buf)
    buf.seek(0)
    ql.load_state_dict(torchlike.load(buf, weights_only=True))  # torch's file -> torchlike
    ref = qt(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_array_equal(ql(torchlike.tensor(x)).numpy(), ref)
    buf = io.BytesIO()
    torchlike.save(ql.state_dict(), buf)
    buf.seek(0)
    qt2 = torch.ao.quantization.quantize_dynamic(_float_model(torch), {torch.nn.Linear})
    qt2.load_state_dict(torch.load(buf, weights_only=True))  # torchlike's file -> torch
    np.testing.assert_array_equal(qt2(torch.from_numpy(x)).detach().numpy(), ref)


def test_bert_tutorial_program():
    """tests/programs/quantize_dynamic_bert.py (the BERT dynamic-quantization tutorial in miniature, through
    ``torch.quantization``) prints the same under torch and under the runner."""
    lib_program_vs_torch("quantize_dynamic_bert.py", "transformers")
