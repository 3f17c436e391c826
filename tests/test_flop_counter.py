"""torch.utils.flop_counter.FlopCounterMode against real torch: each program prints per-case flop counts and
tables, under torch and under the drop-in runner, and the lines must be identical (flop counts are integers).

The cases are the ones where torch's count depends on its decomposition (``tests/programs/flop_counter_*.py``
say which); the unit tests below pin the pieces a program cannot show: packet identity, the formula helpers.
"""
import os

import pytest

import torchlike
from conftest import run_program

torch = pytest.importorskip("torch")

_PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")


@pytest.mark.parametrize("program", ["flop_counter_ops.py", "flop_counter_modules.py"])
def test_program_prints_what_torch_prints(program):
    script = os.path.join(_PROGRAMS, program)
    expected = run_program([script], runner=False, timeout=600)
    ours = run_program([script], runner=True, timeout=600)
    assert ours == expected
    assert len(expected) > 40


def test_counts_key_by_the_aten_packets_and_tables_match():
    from torch.utils.flop_counter import FlopCounterMode as TorchFCM

    from torchlike.utils.flop_counter import FlopCounterMode

    def work(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(40, 30), lib.nn.ReLU(), lib.nn.Linear(30, 2))
        m(lib.randn(50, 40)).sum().backward()

    ref, ours = TorchFCM(display=False), FlopCounterMode(display=False)
    with ref:
        work(torch)
    with ours:
        work(torchlike)
    assert ours.get_flop_counts()["Global"][torchlike.ops.aten.addmm] == \
        ref.get_flop_counts()["Global"][torch.ops.aten.addmm] == 2 * 50 * 40 * 30 + 2 * 50 * 30 * 2
    assert {m: {str(k): v for k, v in c.items()} for m, c in ours.get_flop_counts().items()} == \
        {m: {str(k): v for k, v in c.items()} for m, c in ref.get_flop_counts().items()}
    for depth in (1, 2, None):
        assert ours.get_table(depth) == ref.get_table(depth)


def test_formula_helpers_match_torchs():
    import torch.utils.flop_counter as tfc

    import torchlike.utils.flop_counter as ofc
    assert ofc.mm_flop((3, 4), (4, 5)) == tfc.mm_flop((3, 4), (4, 5))
    assert ofc.bmm_flop((2, 3, 4), (2, 4, 5)) == tfc.bmm_flop((2, 3, 4), (2, 4, 5))
    for transposed in (False, True):
        args = ([2, 3, 9, 9], [4, 3, 3, 3], [2, 4, 7, 7], transposed)
        assert ofc.conv_flop_count(*args) == tfc.conv_flop_count(*args)
    assert ofc.sdpa_flop_count((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 5)) == \
        tfc.sdpa_flop_count((2, 4, 6, 8), (2, 4, 7, 8), (2, 4, 7, 5))
    for n in (0, 7, 4096, 98304, 12345678, 10 ** 13):
        assert ofc.get_suffix_str(n) == tfc.get_suffix_str(n)
        assert ofc.convert_num_with_suffix(n, ofc.get_suffix_str(n)) == \
            tfc.convert_num_with_suffix(n, tfc.get_suffix_str(n))


def test_inputs_to_grad_cannot_be_empty():
    x = torchlike.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as ours:
        torchlike.autograd.grad(x.sum(), [])
    with pytest.raises(RuntimeError) as ref:
        torch.autograd.grad(torch.ones(3, requires_grad=True).sum(), [])
    assert str(ours.value) == str(ref.value)
