"""torchviz 0.0.3 under the drop-in runner, compared line by line with real torch: ``make_dot`` graphs of an MLP's
loss with named parameters, a tuple of outputs one of which is a view (its base drawn dotted), a softmax/matmul
graph, a CNN with batch norm, and a custom autograd Function whose saved tensors are drawn (the graph source is
printed with ids renamed by order of first appearance).

Found: torch's node of a custom Function is its ctx (a BackwardCFunction), so torchviz reads
``grad_fn.saved_tensors``; torchlike's node had none of the ctx's attributes (now read and written through to the
ctx). Not covered: ``show_attrs``/``show_saved``, which read torch's ``grad_fn._saved_*`` attributes that
torchlike's nodes do not have (docs/differences.md)."""
import pytest

from conftest import lib_program_vs_torch

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402


def test_torchviz_make_dot_like_torch():
    t, ours = lib_program_vs_torch("lib_torchviz.py", "torchviz", "graphviz", timeout=600)
    assert ours == t
    assert len(ours) > 100, ours
    assert any("fillcolor=orange" in line for line in ours), ours  # the custom Function's saved tensor


def _fn_node_reads(mod):
    class Square(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g * ctx.k * ctx.scale, None

    a = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = Square.apply(a, 3.0)
    fn = y.grad_fn
    fn.scale = 10.0  # written on the node, read from ctx in backward
    saved = fn.saved_tensors
    out = (type(fn).__name__, len(saved), saved[0] is a, fn.k, fn.needs_input_grad, hasattr(fn, "variable"),
           hasattr(fn, "saved_tensors"), hasattr(y.exp().grad_fn, "saved_tensors"))
    try:
        fn.not_there
    except AttributeError as e:
        missing = str(e)
    y.sum().backward()
    return out, missing, a.grad.tolist()


def test_custom_function_node_is_its_ctx_like_torch():
    """``grad_fn`` of a custom Function reads and writes its ctx's attributes (saved_tensors, needs_input_grad,
    what forward stored) as torch's BackwardCFunction does; a built-in node has no ``saved_tensors``."""
    ours, theirs = _fn_node_reads(torchlike), _fn_node_reads(torch)
    assert ours == theirs
    assert theirs[0][1:5] == (1, True, 3.0, (True, False)) and theirs[2] == [60.0, 120.0, 180.0], theirs
