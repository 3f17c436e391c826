"""einx 0.4 (reductions, broadcasting elementwise ops, dot, get_at/set_at/add_at, softmax, sort/flip/roll,
argmax, the torch.numpylike/einsum/vmap backends, the adapt_* adapters, an einx attention block trained with
Adam) under the drop-in runner, compared line by line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_einx_ops_backends_and_training_like_torch():
    _, ours = lib_program_vs_torch("lib_einx_ops.py", "torch", "einx", timeout=600, rtol=1e-4)
    assert len(ours) == 60
    by_name = {}
    for line in ours:
        by_name.setdefault(line.split()[0], line)
    # einx reached torch's own kernels: integer floor division stays int64, argmax over two axes is a pair
    assert "floor_divide (6, 2) int64" in by_name["floor_divide"]
    assert by_name["argmax"].startswith("argmax (2, 2) int64")
    assert by_name["matches"].endswith("1.0000 0.0000")
    assert ours[-1].startswith("get_at_grad (2, 3, 4) float32")
