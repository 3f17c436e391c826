"""torch-einops-utils (masked reductions, padding/shifting, masks, pack_with_inverse, batched_index_select,
the stable softmax/cross-entropy/KL family with its custom autograd.Functions, shape patterns, nn helpers and the
save_load decorator) under the drop-in runner, compared line by line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_torch_einops_utils_helpers_like_torch():
    _, ours = lib_program_vs_torch("lib_torch_einops_utils.py", "torch", "torch_einops_utils", "einops",
                                   timeout=600, rtol=1e-4)
    assert len(ours) == 101
    by_name = {}
    for line in ours:
        by_name.setdefault(line.split()[0], line)
    assert by_name["safe_stack_empty"] == "safe_stack_empty None"
    assert by_name["pad_to_multiple_fields"] == "pad_to_multiple_fields 3 True"
    assert by_name["assert_shape"] == "assert_shape ShapeError"
    assert by_name["predict"].startswith("predict (2, 5, 3) float32")
    assert ours[-1] == "reload_equal True ((3,), {'hidden': 6})"
