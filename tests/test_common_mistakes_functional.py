"""Wrong dtypes, shapes and arguments to nn.functional and the layers, fed to torch and to torchlike: the same
exception type and message (found by sweeping ~600 such calls next to torch; the ones here had JAX's words,
another message, or no error at all)."""
import pytest

from conftest import raises_like_torch


def F(m):
    return m.nn.functional


def _o(m, *shape, dt=None):
    return m.ones(*shape, dtype=getattr(m, dt) if dt else None)


CONV = {
    "conv2d weight not divisible by groups": lambda m: F(m).conv2d(_o(m, 1, 4, 5, 5), _o(m, 3, 2, 3, 3), groups=2),
    "conv1d weight not divisible by groups": lambda m: F(m).conv1d(_o(m, 1, 4, 5), _o(m, 3, 2, 3), groups=2),
    "conv3d weight not divisible by groups": lambda m: F(m).conv3d(_o(m, 1, 4, 5, 5, 5), _o(m, 3, 2, 3, 3, 3),
                                                                   groups=2),
    "conv_transpose2d weight not divisible by groups": lambda m: F(m).conv_transpose2d(
        _o(m, 1, 3, 5, 5), _o(m, 3, 2, 3, 3), groups=2),
    "conv_transpose2d padding='same'": lambda m: F(m).conv_transpose2d(_o(m, 1, 3, 5, 5), _o(m, 3, 2, 3, 3),
                                                                       padding="same"),
    "conv_transpose1d output_padding too large": lambda m: F(m).conv_transpose1d(
        _o(m, 1, 3, 5), _o(m, 3, 2, 3), stride=2, output_padding=3),
    "conv_transpose2d output_padding too large in one dim": lambda m: F(m).conv_transpose2d(
        _o(m, 1, 3, 5, 5), _o(m, 3, 2, 3, 3), stride=(2, 1), output_padding=(0, 1)),
    "conv_transpose3d output_padding too large": lambda m: F(m).conv_transpose3d(
        _o(m, 1, 3, 5, 5, 5), _o(m, 3, 2, 3, 3, 3), stride=(2, 1, 1), output_padding=(0, 0, 1)),
    "conv_transpose2d output too small": lambda m: F(m).conv_transpose2d(_o(m, 1, 3, 1, 1), _o(m, 3, 2, 1, 1),
                                                                         padding=2),
    "conv_transpose1d output too small": lambda m: F(m).conv_transpose1d(_o(m, 1, 3, 1), _o(m, 3, 2, 1), padding=2),
    "conv_transpose3d output too small": lambda m: F(m).conv_transpose3d(_o(m, 1, 3, 1, 1, 1),
                                                                         _o(m, 3, 2, 1, 1, 1), padding=2),
    "conv2d empty kernel": lambda m: F(m).conv2d(_o(m, 1, 3, 4, 4), _o(m, 2, 3, 0, 1)),
    "conv1d empty kernel": lambda m: F(m).conv1d(_o(m, 1, 3, 4), _o(m, 2, 3, 0)),
    "conv3d empty kernel": lambda m: F(m).conv3d(_o(m, 1, 3, 4, 4, 4), _o(m, 2, 3, 0, 1, 1)),
    "conv_transpose1d empty kernel": lambda m: F(m).conv_transpose1d(_o(m, 1, 3, 4), _o(m, 3, 2, 0)),
    "conv_transpose2d empty kernel before the output size": lambda m: F(m).conv_transpose2d(
        _o(m, 1, 3, 1, 1), _o(m, 3, 2, 0, 1), padding=2),
    "conv_transpose3d empty kernel": lambda m: F(m).conv_transpose3d(_o(m, 1, 3, 4, 4, 4), _o(m, 3, 2, 0, 1, 1)),
    "Conv2d(kernel_size=0)": lambda m: m.nn.Conv2d(3, 2, 0)(_o(m, 1, 3, 4, 4)),
}

LINEAR = {
    "linear double input, float weight": lambda m: F(m).linear(_o(m, 2, 3, dt="float64"), _o(m, 4, 3)),
    "linear long input, float weight": lambda m: F(m).linear(_o(m, 2, 3, dt="long"), _o(m, 4, 3)),
    "linear float input, long weight": lambda m: F(m).linear(_o(m, 2, 3), _o(m, 4, 3, dt="long")),
    "linear half input, float weight": lambda m: F(m).linear(_o(m, 2, 3, dt="half"), _o(m, 4, 3)),
    "linear 1-d double input": lambda m: F(m).linear(_o(m, 3, dt="float64"), _o(m, 4, 3)),
    "linear 3-d double input": lambda m: F(m).linear(_o(m, 5, 2, 3, dt="float64"), _o(m, 4, 3)),
    "linear double input with a bias": lambda m: F(m).linear(_o(m, 2, 3, dt="float64"), _o(m, 4, 3), _o(m, 4)),
    "linear double bias": lambda m: F(m).linear(_o(m, 2, 3), _o(m, 4, 3), _o(m, 4, dt="float64")),
    "linear float bias to double factors": lambda m: F(m).linear(_o(m, 2, 3, dt="float64"),
                                                                  _o(m, 4, 3, dt="float64"), _o(m, 4)),
    "linear vector weight of another dtype": lambda m: F(m).linear(_o(m, 3), _o(m, 3, dt="float64")),
    "linear 3-d weight": lambda m: F(m).linear(_o(m, 2, 3), _o(m, 1, 4, 3)),
    "linear 3-d weight with a bias": lambda m: F(m).linear(_o(m, 2, 3), _o(m, 1, 4, 3), _o(m, 4)),
    "bilinear double input1": lambda m: F(m).bilinear(_o(m, 2, 3, dt="float64"), _o(m, 2, 4), _o(m, 5, 3, 4)),
    "bilinear double weight": lambda m: F(m).bilinear(_o(m, 2, 3), _o(m, 2, 4), _o(m, 5, 3, 4, dt="float64")),
    "bilinear double bias": lambda m: F(m).bilinear(_o(m, 2, 3), _o(m, 2, 4), _o(m, 5, 3, 4), _o(m, 5, dt="float64")),
    "bilinear dtype before the shapes": lambda m: F(m).bilinear(_o(m, 2, 3, dt="float64"), _o(m, 2, 2, 4),
                                                                _o(m, 5, 3, 4)),
    "GRU hidden state double": lambda m: m.nn.GRU(3, 4)(_o(m, 5, 2, 3), m.zeros(1, 2, 4, dtype=m.float64)),
    "GRU(bias=False) hidden state double": lambda m: m.nn.GRU(3, 4, bias=False)(_o(m, 5, 2, 3),
                                                                              m.zeros(1, 2, 4, dtype=m.float64)),
    "RNN hidden state long": lambda m: m.nn.RNN(3, 4)(_o(m, 5, 2, 3), m.zeros(1, 2, 4, dtype=m.long)),
    "GRU unbatched hidden state double": lambda m: m.nn.GRU(3, 4)(_o(m, 5, 3), m.zeros(1, 4, dtype=m.float64)),
    "LSTM hidden state double": lambda m: m.nn.LSTM(3, 4)(_o(m, 5, 2, 3), (m.zeros(1, 2, 4, dtype=m.float64),
                                                                            m.zeros(1, 2, 4, dtype=m.float64))),
    "LSTM cell state double": lambda m: m.nn.LSTM(3, 4)(_o(m, 5, 2, 3), (m.zeros(1, 2, 4),
                                                                          m.zeros(1, 2, 4, dtype=m.float64))),
    "RNNCell double input": lambda m: m.nn.RNNCell(3, 4)(_o(m, 2, 3, dt="float64")),
    "RNNCell(bias=False) double input": lambda m: m.nn.RNNCell(3, 4, bias=False)(_o(m, 2, 3, dt="float64")),
    "LSTMCell double input": lambda m: m.nn.LSTMCell(3, 4)(_o(m, 2, 3, dt="float64")),
    "GRUCell double hidden state": lambda m: m.nn.GRUCell(3, 4)(_o(m, 2, 3), m.zeros(2, 4, dtype=m.float64)),
    "LSTMCell double hidden state": lambda m: m.nn.LSTMCell(3, 4)(_o(m, 2, 3), (m.zeros(2, 4, dtype=m.float64),
                                                                                 m.zeros(2, 4))),
}


def _mha(m, **kw):
    return m.nn.MultiheadAttention(8, 2, **kw)


ATTENTION = {
    "MultiheadAttention double inputs": lambda m: _mha(m)(_o(m, 3, 2, 8, dt="float64"), _o(m, 4, 2, 8, dt="float64"),
                                                         _o(m, 4, 2, 8, dt="float64")),
    "MultiheadAttention(bias=False) double inputs": lambda m: _mha(m, bias=False)(
        _o(m, 3, 2, 8, dt="float64"), _o(m, 4, 2, 8, dt="float64"), _o(m, 4, 2, 8, dt="float64")),
    "MultiheadAttention double keys": lambda m: _mha(m)(_o(m, 3, 2, 8), _o(m, 4, 2, 8, dt="float64"),
                                                       _o(m, 4, 2, 8, dt="float64")),
    "MultiheadAttention keys of another width": lambda m: _mha(m)(_o(m, 3, 2, 8), _o(m, 4, 2, 6), _o(m, 4, 2, 6)),
    "MultiheadAttention one memory of another width": lambda m: (lambda kv: _mha(m)(_o(m, 3, 2, 8), kv, kv))(
        _o(m, 4, 2, 6)),
    "TransformerDecoderLayer memory of another width": lambda m: m.nn.TransformerDecoderLayer(8, 2, 16, 0.0)(
        _o(m, 3, 2, 8), _o(m, 4, 2, 6)),
    "TransformerEncoderLayer double input": lambda m: m.nn.TransformerEncoderLayer(8, 2, 16, 0.0)(
        _o(m, 3, 2, 8, dt="float64")),
    "TransformerEncoderLayer long src_mask": lambda m: m.nn.TransformerEncoderLayer(8, 2, 16, 0.0)(
        _o(m, 3, 2, 8), src_mask=m.zeros(3, 3, dtype=m.long)),
    "TransformerEncoderLayer long src_key_padding_mask": lambda m: m.nn.TransformerEncoderLayer(8, 2, 16, 0.0)(
        _o(m, 3, 2, 8), src_key_padding_mask=m.zeros(2, 3, dtype=m.long)),
    "TransformerEncoder long mask": lambda m: m.nn.TransformerEncoder(
        m.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 1, enable_nested_tensor=False)(
        _o(m, 3, 2, 8), mask=m.zeros(3, 3, dtype=m.long)),
    "sdpa dtypes differ": lambda m: F(m).scaled_dot_product_attention(_o(m, 2, 3, 4, dt="half"), _o(m, 2, 3, 4),
                                                                      _o(m, 2, 3, 4, dt="bfloat16")),
    "sdpa long inputs": lambda m: F(m).scaled_dot_product_attention(*(_o(m, 2, 3, 4, dt="long"),) * 3),
    "sdpa bool inputs": lambda m: F(m).scaled_dot_product_attention(*(_o(m, 2, 3, 4, dt="bool"),) * 3),
    "sdpa long mask": lambda m: F(m).scaled_dot_product_attention(*(_o(m, 2, 3, 4),) * 3,
                                                                  attn_mask=m.zeros(3, 3, dtype=m.long)),
    "sdpa half mask to float inputs": lambda m: F(m).scaled_dot_product_attention(
        *(_o(m, 2, 3, 4),) * 3, attn_mask=m.zeros(3, 3, dtype=m.half)),
    "sdpa mask and is_causal": lambda m: F(m).scaled_dot_product_attention(
        *(_o(m, 2, 3, 4),) * 3, attn_mask=m.zeros(3, 3, dtype=m.bool), is_causal=True),
    "sdpa long inputs, mask and is_causal": lambda m: F(m).scaled_dot_product_attention(
        *(_o(m, 2, 3, 4, dt="long"),) * 3, attn_mask=m.zeros(3, 3), is_causal=True),
}

EMBEDDING = {
    "embedding bool indices": lambda m: F(m).embedding(m.tensor([True, False]), _o(m, 5, 3)),
    "embedding complex indices": lambda m: F(m).embedding(m.tensor([1, 2]).to(m.complex64), _o(m, 5, 3)),
    "embedding max_norm, float indices": lambda m: F(m).embedding(m.tensor([1.]), _o(m, 5, 3), max_norm=1.),
    "embedding max_norm, index out of range": lambda m: F(m).embedding(m.tensor([1, 7]), _o(m, 5, 3), max_norm=1.),
    "embedding max_norm, negative index out of range": lambda m: F(m).embedding(m.tensor([1, -7]), _o(m, 5, 3),
                                                                                max_norm=1.),
    "embedding max_norm, negative index in range": lambda m: F(m).embedding(m.tensor([1, -2]), _o(m, 5, 3),
                                                                            max_norm=1.),
    "Embedding(max_norm) index out of range": lambda m: m.nn.Embedding(5, 3, max_norm=1.)(m.tensor([7])),
    "embedding_bag float offsets": lambda m: F(m).embedding_bag(m.tensor([0, 1, 2]), _o(m, 5, 3),
                                                                m.tensor([0., 2.])),
    "embedding_bag index out of range": lambda m: F(m).embedding_bag(m.tensor([0, 1, 7]), _o(m, 5, 3),
                                                                     m.tensor([0, 2])),
    "embedding_bag negative index": lambda m: F(m).embedding_bag(m.tensor([0, -1, 2]), _o(m, 5, 3),
                                                                 m.tensor([0, 2])),
    "embedding_bag 2-D index out of range": lambda m: F(m).embedding_bag(m.tensor([[0, 1, 7]]), _o(m, 5, 3)),
    "EmbeddingBag index out of range": lambda m: m.nn.EmbeddingBag(5, 3, mode="sum")(m.tensor([[0, 5]])),
    "embedding_bag per_sample_weights of another shape": lambda m: F(m).embedding_bag(
        m.tensor([0, 1, 2]), _o(m, 5, 3), m.tensor([0, 2]), mode="sum", per_sample_weights=_o(m, 2)),
    "embedding_bag 2-D input, 1-D per_sample_weights": lambda m: F(m).embedding_bag(
        m.tensor([[0, 1, 2]]), _o(m, 5, 3), mode="sum", per_sample_weights=_o(m, 3)),
    "embedding_bag double per_sample_weights": lambda m: F(m).embedding_bag(
        m.tensor([0, 1, 2]), _o(m, 5, 3), m.tensor([0, 2]), mode="sum", per_sample_weights=_o(m, 3, dt="float64")),
}


def _x4(m):
    return m.arange(16.).reshape(1, 1, 4, 4)


VISION = {
    "interpolate bicubic of a 5-D input": lambda m: F(m).interpolate(_o(m, 1, 1, 2, 2, 2), scale_factor=2,
                                                                     mode="bicubic"),
    "interpolate bicubic of a 3-D input": lambda m: F(m).interpolate(_o(m, 1, 1, 2), scale_factor=2, mode="bicubic"),
    "interpolate antialias with nearest": lambda m: F(m).interpolate(_x4(m), scale_factor=0.5, antialias=True),
    "interpolate antialias with linear": lambda m: F(m).interpolate(_o(m, 1, 1, 4), scale_factor=0.5, mode="linear",
                                                                    antialias=True),
    "interpolate negative scale_factor": lambda m: F(m).interpolate(_x4(m), scale_factor=-1.),
    "interpolate negative scale_factor, 1-d": lambda m: F(m).interpolate(_o(m, 1, 1, 4), scale_factor=-1.),
    "interpolate negative scale_factor, bilinear": lambda m: F(m).interpolate(_x4(m), scale_factor=-1.,
                                                                              mode="bilinear"),
    "interpolate negative size": lambda m: F(m).interpolate(_x4(m), size=-2),
    "interpolate float in size": lambda m: F(m).interpolate(_x4(m), size=(2, 3.)),
    "interpolate size with recompute_scale_factor": lambda m: F(m).interpolate(_x4(m), size=8,
                                                                               recompute_scale_factor=True),
    "pad reflect, 2 pads of a 4-D input": lambda m: F(m).pad(_x4(m), (4, 4), mode="reflect"),
    "pad reflect of a 1-D input": lambda m: F(m).pad(_o(m, 4), (1, 1), mode="reflect"),
    "pad circular, 2 pads of a 4-D input": lambda m: F(m).pad(_x4(m), (5, 5), mode="circular"),
    "pad replicate of a 6-D input": lambda m: F(m).pad(_o(m, 2, 2, 2, 2, 2, 2), (1, 1), mode="replicate"),
    "pad reflect, 8 pads": lambda m: F(m).pad(_o(m, 1, 1, 2, 2, 2), (1,) * 8, mode="reflect"),
    "pad reflect, 4 pads of a 2-D input": lambda m: F(m).pad(_o(m, 2, 2), (1, 1, 1, 1), mode="reflect"),
    "pad float pads": lambda m: F(m).pad(_x4(m), (1., 1.)),
    "pad a float pad after an int": lambda m: F(m).pad(_x4(m), (1, 1.5)),
    "unfold 2-D input": lambda m: F(m).unfold(_o(m, 4, 4), 2),
    "unfold 1-D input": lambda m: F(m).unfold(_o(m, 4), 2),
    "unfold 5-D input": lambda m: F(m).unfold(_o(m, 1, 1, 1, 4, 4), 2),
    "unfold zero stride": lambda m: F(m).unfold(_x4(m), 2, stride=(0, 1)),
    "unfold zero dilation": lambda m: F(m).unfold(_x4(m), 2, dilation=0),
    "unfold zero kernel": lambda m: F(m).unfold(_x4(m), 0),
    "unfold negative padding": lambda m: F(m).unfold(_x4(m), 2, padding=-1),
    "unfold 3 kernel sizes": lambda m: F(m).unfold(_x4(m), (2, 2, 2)),
    "unfold 1 kernel size in a tuple": lambda m: F(m).unfold(_x4(m), (2,)),
    "unfold 3 strides": lambda m: F(m).unfold(_x4(m), 2, stride=(1, 1, 1)),
    "fold 4-D input": lambda m: F(m).fold(_o(m, 1, 4, 9, 1), (4, 4), 2),
    "fold 1-D input": lambda m: F(m).fold(_o(m, 4), (4, 4), 2),
    "fold 3 output sizes": lambda m: F(m).fold(_o(m, 1, 4, 9), (4, 4, 4), 2),
    "fold zero stride": lambda m: F(m).fold(_o(m, 1, 4, 9), (4, 4), 2, stride=0),
    "grid_sample double input, float grid": lambda m: F(m).grid_sample(_o(m, 1, 1, 4, 4, dt="float64"),
                                                                       m.zeros(1, 2, 2, 2), align_corners=False),
    "grid_sample float input, double grid (3-d)": lambda m: F(m).grid_sample(
        _o(m, 1, 1, 2, 4, 4), m.zeros(1, 2, 2, 2, 3, dtype=m.float64), align_corners=False),
    "grid_sample long input": lambda m: F(m).grid_sample(_o(m, 1, 1, 4, 4, dt="long"), m.zeros(1, 2, 2, 2),
                                                         align_corners=False),
    "grid_sample int input, 3-d": lambda m: F(m).grid_sample(_o(m, 1, 1, 2, 4, 4, dt="int32"),
                                                             m.zeros(1, 2, 2, 2, 3), align_corners=False),
    "affine_grid theta of another batch": lambda m: F(m).affine_grid(m.zeros(2, 2, 3), (1, 1, 4, 4),
                                                                     align_corners=False),
    "affine_grid 3-d theta of another batch": lambda m: F(m).affine_grid(m.zeros(2, 3, 4), (1, 1, 4, 4, 4),
                                                                         align_corners=False),
    "normalize into a long out": lambda m: F(m).normalize(_o(m, 2, 3), out=m.empty(2, 3, dtype=m.long)),
    "cosine_similarity of longs": lambda m: F(m).cosine_similarity(_o(m, 2, 3, dt="long"), _o(m, 2, 3, dt="long")),
    "cosine_similarity of bools": lambda m: F(m).cosine_similarity(_o(m, 2, 3, dt="bool"), _o(m, 2, 3, dt="bool")),
    "cosine_similarity of longs, dim out of range": lambda m: F(m).cosine_similarity(
        _o(m, 2, 3, dt="long"), _o(m, 3, dt="long"), dim=5),
    "adaptive_max_pool2d of longs": lambda m: F(m).adaptive_max_pool2d(_o(m, 1, 1, 4, 4, dt="long"), 2),
    "adaptive_max_pool1d of longs": lambda m: F(m).adaptive_max_pool1d(_o(m, 1, 2, 4, dt="long"), 2),
    "adaptive_max_pool3d of longs": lambda m: F(m).adaptive_max_pool3d(_o(m, 1, 1, 2, 4, 4, dt="long"), 2),
    "adaptive_max_pool2d of bools, with indices": lambda m: F(m).adaptive_max_pool2d(
        _o(m, 1, 1, 4, 4, dt="bool"), 2, return_indices=True),
}

NORMS = {
    "batch_norm eval without running_mean": lambda m: F(m).batch_norm(_o(m, 2, 3), None, _o(m, 3)),
    "batch_norm eval without running_var": lambda m: F(m).batch_norm(_o(m, 2, 3), m.zeros(3), None),
    "batch_norm eval without either": lambda m: F(m).batch_norm(_o(m, 2, 3), None, None, training=False),
    "instance_norm running_mean of another size": lambda m: F(m).instance_norm(_o(m, 2, 3, 4), m.zeros(4), _o(m, 4)),
    "instance_norm running_var of another size": lambda m: F(m).instance_norm(_o(m, 2, 3, 4), m.zeros(3), _o(m, 4)),
    "instance_norm weight of another size": lambda m: F(m).instance_norm(_o(m, 2, 3, 4), weight=_o(m, 4)),
    "instance_norm bias of another size": lambda m: F(m).instance_norm(_o(m, 2, 3, 4), bias=_o(m, 4)),
    "instance_norm running stats, use_input_stats=False": lambda m: F(m).instance_norm(
        _o(m, 2, 3, 4), m.zeros(4), _o(m, 4), use_input_stats=False),
    "layer_norm int normalized_shape": lambda m: F(m).layer_norm(_o(m, 2, 4), 4),
    "rms_norm int normalized_shape": lambda m: F(m).rms_norm(_o(m, 2, 4), 4),
    "layer_norm tensor normalized_shape": lambda m: F(m).layer_norm(_o(m, 2, 4), m.tensor(4)),
    "native_layer_norm int normalized_shape": lambda m: m.native_layer_norm(_o(m, 2, 4), 4, None, None, 1e-5),
    "group_norm zero groups": lambda m: F(m).group_norm(_o(m, 2, 6, 4), 0),
    "celu alpha 0": lambda m: F(m).celu(_o(m, 2), alpha=0.),
    "celu alpha 0 in place": lambda m: F(m).celu(_o(m, 2), alpha=0., inplace=True),
}


def _ctc(m, il, tl, blank=0):
    return F(m).ctc_loss(m.zeros(5, 2, 4).log_softmax(2), m.ones(2, 3, dtype=m.long), il(m), tl(m), blank=blank)


LOSSES = {
    "cross_entropy 4-D target of a 4-D input": lambda m: F(m).cross_entropy(_o(m, 2, 3, 4, 4),
                                                                            m.zeros(2, 1, 4, 4, dtype=m.long)),
    "nll_loss 2-D target of a 4-D input": lambda m: F(m).nll_loss(_o(m, 2, 3, 4, 4), m.zeros(2, 4, dtype=m.long)),
    "CrossEntropyLoss label_smoothing=2.0": lambda m: m.nn.CrossEntropyLoss(label_smoothing=2.)(
        _o(m, 4, 3), m.tensor([0, 1, 2, 0])),
    "cross_entropy label_smoothing=1.5": lambda m: F(m).cross_entropy(_o(m, 4, 3), m.tensor([0, 1, 2, 0]),
                                                                      label_smoothing=1.5),
    "binary_cross_entropy weight of another size": lambda m: F(m).binary_cross_entropy(
        m.full((2, 3), 0.5), _o(m, 2, 3), weight=_o(m, 2)),
    "binary_cross_entropy weight of another leading size": lambda m: F(m).binary_cross_entropy(
        m.full((2, 3), 0.5), _o(m, 2, 3), weight=_o(m, 3, 3)),
    "binary_cross_entropy weight of more dims": lambda m: F(m).binary_cross_entropy(
        m.full((2, 3), 0.5), _o(m, 2, 3), weight=_o(m, 1, 2, 3)),
    "ctc_loss blank past the classes": lambda m: _ctc(m, lambda m: (5, 5), lambda m: (3, 3), blank=4),
    "ctc_loss negative blank": lambda m: _ctc(m, lambda m: (5, 5), lambda m: (3, 3), blank=-1),
    "ctc_loss float input_lengths": lambda m: _ctc(m, lambda m: m.tensor([5., 5.]), lambda m: m.tensor([3, 3])),
    "ctc_loss float target_lengths": lambda m: _ctc(m, lambda m: m.tensor([5, 5]), lambda m: m.tensor([3., 3.])),
    "ctc_loss bool target_lengths": lambda m: _ctc(m, lambda m: m.tensor([5, 5]), lambda m: m.tensor([True, True])),
    "ctc_loss blank checked before the lengths' count": lambda m: _ctc(
        m, lambda m: m.tensor([5, 5, 5]), lambda m: m.tensor([3, 3]), blank=4),
    "margin_ranking_loss target of another size": lambda m: F(m).margin_ranking_loss(_o(m, 3), _o(m, 3), _o(m, 2)),
    "multilabel_soft_margin_loss target of another width": lambda m: F(m).multilabel_soft_margin_loss(
        _o(m, 3, 4), _o(m, 3, 5)),
}

CASES = {**CONV, **LINEAR, **ATTENTION, **EMBEDDING, **VISION, **NORMS, **LOSSES}


@pytest.mark.parametrize("case", list(CASES))
def test_functional_mistakes_raise_like_torch(case):
    raises_like_torch(CASES[case], quiet=True)


def test_affine_grid_warns_of_a_unit_size_grid_with_align_corners_like_torch():
    import warnings

    import torch

    import torchlike
    from conftest import same_as_torch
    msgs = []
    for m in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.nn.functional.affine_grid(m.zeros(1, 2, 3), (1, 1, 4, 1), align_corners=True)
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1, msgs
    same_as_torch(lambda m: m.nn.functional.affine_grid(m.zeros(1, 2, 3), (1, 1, 4, 1), align_corners=True),
                  grad=False, quiet=True)


VALID = {  # the checks above must not refuse what torch takes
    "linear long input, long weight": lambda m: F(m).linear(_o(m, 2, 3, dt="long"), _o(m, 4, 3, dt="long")),
    "bilinear of longs": lambda m: F(m).bilinear(_o(m, 2, 3, dt="long"), _o(m, 2, 4, dt="long"),
                                                 _o(m, 5, 3, 4, dt="long")),
    "sdpa double inputs, float mask": lambda m: F(m).scaled_dot_product_attention(
        *(_o(m, 2, 3, 4, dt="float64"),) * 3, attn_mask=m.zeros(3, 3)),
    "sdpa half inputs, float mask": lambda m: F(m).scaled_dot_product_attention(
        *(_o(m, 1, 2, 3, 4, dt="half"),) * 3, attn_mask=m.zeros(3, 3)),
    "LSTMCell double cell state": lambda m: m.nn.LSTMCell(3, 4)(_o(m, 2, 3), (m.zeros(2, 4),
                                                                               m.zeros(2, 4, dtype=m.float64)))[0].shape,
    "embedding_bag bool offsets": lambda m: F(m).embedding_bag(m.tensor([0, 1, 2]), _o(m, 5, 3), m.tensor([False])),
    "embedding_bag int32 offsets": lambda m: F(m).embedding_bag(m.tensor([0, 1, 2]), _o(m, 5, 3),
                                                                m.tensor([0, 2], dtype=m.int32)),
    "embedding max_norm, negative index in range of the renorm only": lambda m: F(m).embedding(
        m.tensor([1, 2]), _o(m, 5, 3) * 2, max_norm=1.),
    "cosine_similarity of a long and a float": lambda m: F(m).cosine_similarity(_o(m, 2, 3, dt="long"), _o(m, 2, 3)),
    "normalize into a double out": lambda m: F(m).normalize(_o(m, 2, 3), out=m.empty(2, 3, dtype=m.float64)),
    "interpolate size with recompute_scale_factor=False": lambda m: F(m).interpolate(
        _x4(m), size=8, recompute_scale_factor=False),
    "pad reflect, 2 pads of a 3-D input": lambda m: F(m).pad(_o(m, 1, 2, 4), (1, 1), mode="reflect"),
    "pad replicate, 6 pads of a 4-D input": lambda m: F(m).pad(_o(m, 2, 2, 2, 2), (1, 1, 1, 1, 1, 1),
                                                               mode="replicate"),
    "conv_transpose2d output of size 1": lambda m: F(m).conv_transpose2d(_o(m, 1, 3, 1, 3), _o(m, 3, 2, 1, 1),
                                                                         padding=(0, 1)),
    "ctc_loss lengths as tuples": lambda m: _ctc(m, lambda m: (5, 5), lambda m: (3, 3)),
}


@pytest.mark.parametrize("case", list(VALID))
def test_what_torch_takes_still_works(case):
    from conftest import same_as_torch
    same_as_torch(VALID[case], grad=False, quiet=True)
