"""torch._dynamo.explain against torch's: graph and break counts for data-dependent branches, ``Tensor.item()``
after indexing, ``print`` between ops, functions without breaks; the ExplainOutput's fields and text."""
import pytest

import torchlike
from conftest import torch


def _branch(lib, x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def _item_after_index(lib, x):
    if x.sum() > 0:
        return x + 1
    return x * x[0].item()


def _print_between(lib, a, b):
    x = a / (lib.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


def _print_first(lib, a, b):
    print("hi")
    return a.sin() + b


def _no_break(lib, a, b):
    return (a.sin() * 2 + b.cos()).relu()


CASES = [(_branch, [[1.0, 2.0, 3.0]]), (_branch, [[-1.0, -2.0, 3.0]]), (_item_after_index, [[-1.0, -1.0, 1.0]]),
         (_print_between, [[1.0, -2.0], [-3.0, 1.0]]), (_print_first, [[1.0], [2.0]]), (_no_break, [[1.0], [2.0]])]


@pytest.mark.parametrize("fn,data", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)])
def test_explain_counts_like_torch(fn, data):
    torch._dynamo.reset()
    theirs = torch._dynamo.explain(lambda *a: fn(torch, *a))(*[torch.tensor(d) for d in data])
    ours = torchlike._dynamo.explain(lambda *a: fn(torchlike, *a))(*[torchlike.tensor(d) for d in data])
    assert (ours.graph_count, ours.graph_break_count) == (theirs.graph_count, theirs.graph_break_count)
    assert len(ours.graphs) == len(theirs.graphs) == len(ours.ops_per_graph) == len(theirs.ops_per_graph)
    assert [r.reason.splitlines()[0] for r in ours.break_reasons] == \
        [r.reason.splitlines()[0] for r in theirs.break_reasons]
    assert all(r.graph_break for r in ours.break_reasons)
    assert (ours.op_count > 0) == (theirs.op_count > 0)
    assert str(ours).splitlines()[:3] == [f"Graph Count: {theirs.graph_count}",
                                          f"Graph Break Count: {theirs.graph_break_count}",
                                          f"Op Count: {ours.op_count}"]


def test_explain_restores_tensor_methods_and_print():
    import builtins
    before = (torchlike.Tensor.__getitem__, torchlike.Tensor.item, torchlike.Tensor.__bool__, builtins.print)
    with pytest.raises(ValueError):
        torchlike._dynamo.explain(lambda x: (_ for _ in ()).throw(ValueError("boom")))(torchlike.ones(1))
    torchlike._dynamo.explain(_branch)(torchlike, torchlike.ones(2))
    assert (torchlike.Tensor.__getitem__, torchlike.Tensor.item, torchlike.Tensor.__bool__, builtins.print) == before
