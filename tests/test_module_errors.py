"""Modules raise torch's exception types and messages on the error inputs of torch's module_db
(test_modules.py::test_errors); each case runs in torch and torchlike and compares type and text."""
import warnings

import pytest

torch = pytest.importorskip("torch")
import torchlike as tl  # noqa: E402


def _raise(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- the exception itself is what is compared
        return type(e), str(e)
    return None, None


def _same(make):
    """``make(ns)`` builds and runs a case with ``ns`` = torch or torchlike."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _raise(lambda: make(torch))
        got = _raise(lambda: make(tl))
    assert want[0] is not None, "torch raised nothing: the case is wrong"
    assert got[0] is want[0], (got, want)
    assert got[1] == want[1]


CASES = {
    # constructors
    "rnn_bias_int": lambda ns: ns.nn.RNN(3, 5, bias=1),
    "gru_batch_first_str": lambda ns: ns.nn.GRU(3, 5, batch_first="False"),
    "lstm_input_size_float": lambda ns: ns.nn.LSTM(3.0, 5),
    "lstm_input_size_str": lambda ns: ns.nn.LSTM("10", 5),
    "rnn_input_size_zero": lambda ns: ns.nn.RNN(0, 5),
    "rnn_hidden_size_zero": lambda ns: ns.nn.RNN(10, 0, 1),
    "rnn_num_layers_zero": lambda ns: ns.nn.RNN(10, 10, 0),
    "groupnorm_divisible": lambda ns: ns.nn.GroupNorm(3, 10),
    # forward
    "rnn_input_dtype": lambda ns: ns.nn.RNN(3, 5)(ns.zeros(2, 4, 3, dtype=ns.float64)),
    "lstm_input_dtype": lambda ns: ns.nn.LSTM(3, 5)(ns.zeros(2, 4, 3, dtype=ns.float64)),
    "rnncell_hidden_size": lambda ns: ns.nn.RNNCell(10, 20)(ns.zeros(3, 10), ns.zeros(3, 21)),
    "grucell_hidden_batch": lambda ns: ns.nn.GRUCell(10, 20)(ns.zeros(3, 10), ns.zeros(5, 20)),
    "lstmcell_hidden1_size": lambda ns: ns.nn.LSTMCell(10, 20)(ns.zeros(3, 10), (ns.zeros(3, 20), ns.zeros(3, 21))),
    "lstmcell_hx_rank": lambda ns: ns.nn.LSTMCell(10, 20)(ns.zeros(3, 10), (ns.zeros(3, 1, 1, 20),) * 2),
    "rnncell_hidden_rank": lambda ns: ns.nn.RNNCell(10, 20)(ns.zeros(3, 10), ns.zeros(3, 1, 1, 20)),
    "batchnorm_eps_negative": lambda ns: ns.nn.BatchNorm1d(10, eps=-1.0)(ns.zeros(2, 10)),
    "batchnorm_eps_zero": lambda ns: ns.nn.BatchNorm2d(3, eps=0.0)(ns.zeros(2, 3, 2, 2)),
    "batchnorm_eval_eps_negative": lambda ns: ns.nn.BatchNorm1d(10, eps=-1.0).eval()(ns.zeros(2, 10)),
    "circularpad1d_rank": lambda ns: ns.nn.CircularPad1d(1)(ns.zeros(1, 2, 3, 4)),
    "circularpad2d_rank": lambda ns: ns.nn.CircularPad2d(1)(ns.zeros(2, 3)),
    "circularpad3d_rank": lambda ns: ns.nn.CircularPad3d(1)(ns.zeros(2, 3)),
    "multimargin_target_size": lambda ns: ns.nn.MultiMarginLoss()(ns.zeros(5, 10), ns.zeros(3, dtype=ns.long)),
    "multimargin_target_rank": lambda ns: ns.nn.MultiMarginLoss()(ns.zeros(5, 10), ns.zeros(5, 2, dtype=ns.long)),
    "multimargin_empty": lambda ns: ns.nn.MultiMarginLoss()(ns.zeros(5, 0), ns.zeros(5, dtype=ns.long)),
    "nll_weight_dtype": lambda ns: ns.nn.NLLLoss(weight=ns.ones(3, dtype=ns.float64))(
        ns.zeros(2, 3), ns.zeros(2, dtype=ns.long)),
    "ce_probs_long": lambda ns: ns.nn.CrossEntropyLoss()(ns.zeros(2, 3), ns.zeros(2, 3, dtype=ns.long)),
    "ce_probs_ignore_index": lambda ns: ns.nn.CrossEntropyLoss(ignore_index=1)(ns.zeros(2, 3), ns.zeros(2, 3)),
    "ce_target_size": lambda ns: ns.nn.CrossEntropyLoss()(ns.zeros(2, 3, 5), ns.zeros(2, 4, dtype=ns.long)),
    "ce_target_size_4d": lambda ns: ns.nn.CrossEntropyLoss()(ns.zeros(2, 3, 5, 6), ns.zeros(2, 4, 6, dtype=ns.long)),
    "ce_multi_target": lambda ns: ns.nn.CrossEntropyLoss()(ns.zeros(2, 3), ns.zeros(2, 4)),
    "ce_float_target_batch": lambda ns: ns.nn.CrossEntropyLoss()(ns.zeros(2, 3), ns.zeros(3)),
    "linear_ce_probs_long": lambda ns: ns.nn.LinearCrossEntropyLoss(3, 2)(ns.zeros(4, 3),
                                                                          ns.zeros(4, 2, dtype=ns.long)),
    # ConvTranspose output_size: every spatial range listed, the input's spatial torch.Size, output_size as given
    "convT2d_output_size_range": lambda ns: ns.nn.ConvTranspose2d(2, 3, 3, stride=2)(ns.zeros(1, 2, 4, 4),
                                                                                   output_size=(13, 13)),
    "convT2d_output_size_range_list": lambda ns: ns.nn.ConvTranspose2d(2, 3, 3, stride=2)(ns.zeros(1, 2, 4, 5),
                                                                                        output_size=[1, 3, 9, 20]),
    "convT1d_unbatched_output_size_len": lambda ns: ns.nn.ConvTranspose1d(2, 3, 3)(ns.zeros(2, 4), output_size=[1, 2, 6]),
    "linear_ce_batch": lambda ns: ns.nn.LinearCrossEntropyLoss(3, 2)(ns.zeros(4, 3), ns.zeros(5, 2)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_matches_torch(case):
    _same(CASES[case])


def test_valid_inputs_still_work():
    # the new checks leave valid calls alone (values checked against torch)
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))
    t = torch.tensor([1, 0, 4, 2])
    want = torch.nn.MultiMarginLoss()(x, t)
    got = tl.nn.MultiMarginLoss()(tl.tensor(x.numpy()), tl.tensor(t.numpy()))
    assert abs(float(got) - float(want)) < 1e-6
    p = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(1)), 1)
    want = torch.nn.CrossEntropyLoss()(x, p)
    got = tl.nn.CrossEntropyLoss()(tl.tensor(x.numpy()), tl.tensor(p.numpy()))
    assert abs(float(got) - float(want)) < 1e-6
    assert tuple(tl.nn.CircularPad2d(1)(tl.zeros(2, 3, 3)).shape) == tuple(
        torch.nn.CircularPad2d(1)(torch.zeros(2, 3, 3)).shape)
