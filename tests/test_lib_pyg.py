"""torch_geometric (PyG) under the drop-in runner: graph data, message passing (GCN, GAT, GraphSAGE, a custom
MessagePassing layer), scatter utilities and a short training run compared line by line with real torch.

The program seeds torch's RNG before each layer is built; torchlike's CPU RNG draws torch's numbers, so the same
initial weights come out on both sides and forward values, gradients and losses compare closely.
"""

import pytest
from conftest import lib_program_vs_torch


def test_pyg_layers_scatter_and_training_match_torch():
    _, ours = lib_program_vs_torch("lib_pyg_gnn.py", "torch", "torch_geometric", timeout=600)
    assert "gcn loss fell True" in ours
    assert any(line.startswith("gat out (12, 8)") for line in ours)


def test_pyg_probes_of_torch_answer_like_torch():
    # what torch_geometric reads from torch at import: build settings, print options, futures, RPC availability
    torch = pytest.importorskip("torch", reason="the probes are compared with real torch")
    import torchlike
    import torchlike.distributed.rpc
    from torchlike._tensor_str import PRINT_OPTS, _add_suffixes, _tensor_str
    assert "USE_MKL=OFF" in torchlike.__config__.show()
    assert "ATen/Parallel" in torchlike.__config__.parallel_info()
    assert PRINT_OPTS.threshold == torch._tensor_str.PRINT_OPTS.threshold
    for v in ([[1.0, 2.5], [3, 4]], [[1, 2], [3, 4]], [0.0, 1.0, 2.0]):
        for indent in (0, 2):
            assert _tensor_str(torchlike.tensor(v), indent) == torch._tensor_str._tensor_str(torch.tensor(v), indent)
    assert _add_suffixes("tensor([1]", ["a=1"] * 20, 7, False) == \
        torch._tensor_str._add_suffixes("tensor([1]", ["a=1"] * 20, 7, False)
    assert torchlike.distributed.rpc.is_available() is False  # as a torch build without RPC
    for mod in (torch, torchlike):
        fut = mod.futures.Future()
        chained = fut.then(lambda f: f.value() + 1)
        assert not fut.done()
        fut.set_result(2)
        with pytest.raises(RuntimeError, match="can only be marked completed once"):
            fut.set_result(3)
        assert mod.futures.wait_all([fut, chained]) == [2, 3]
        bad = mod.futures.Future()
        bad.set_exception(ValueError("boom"))
        with pytest.raises(ValueError, match="boom"):
            bad.wait()
    assert torchlike.is_deterministic_algorithms_warn_only_enabled() is torch.is_deterministic_algorithms_warn_only_enabled()
    assert torchlike.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()


def test_aten_ops_libraries_override_exist_like_torch():
    # torch_geometric registers its index tensors' behaviour for these aten ops by name at import
    torch = pytest.importorskip("torch", reason="the results are compared with real torch")
    import numpy as np
    import torchlike
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for mod in (torch, torchlike):
        x = mod.tensor(a)
        aten = mod.ops.aten
        out = {"to_copy": aten._to_copy.default(x, dtype=mod.float64), "slice": aten.slice.Tensor(x, 1, 1, 4, 2),
               "alias": aten.alias.default(x), "index": aten.index.Tensor(x, [mod.tensor([2, 0])]),
               "detach": aten.detach.default(x)}
        res = {k: (str(v.dtype), v.numpy().tolist()) for k, v in out.items()}
        if mod is torch:
            expected = res
    assert res == expected
    assert out["to_copy"].data_ptr() != x.data_ptr()


def test_pyg_to_hetero_and_hetero_conv_match_torch():
    # to_hetero traces with torch.fx._symbolic_trace's _Patcher & co. and moves the graph's insertion point with
    # ``graph.inserting_after(node)`` outside a ``with`` block; the printed generated code must be torch's
    _, ours = lib_program_vs_torch("lib_pyg_hetero.py", "torch", "torch_geometric", timeout=600)
    assert any(line.startswith("    c1__paper = torch.add(") for line in ours)
    assert sum(line.startswith("hetero loss") for line in ours) == 3 and any(line.startswith("hgt ") for line in ours)


def test_pyg_models_explainer_and_hetero_bases_match_torch():
    _, ours = lib_program_vs_torch("lib_pyg_models_explain.py", "torch", "torch_geometric", timeout=600)
    assert [line.split()[0] for line in ours] == ["explain", "gat", "gin", "pna", "unet", "lp", "bases"]
