"""Memory overlap of the written tensor, against torch: an in-place op (or ``out=``) whose written tensor shares
memory with an operand in part raises torch's "some elements of the input tensor and the written-to tensor refer to
a single memory location"; an expanded written tensor raises "more than one element of the written-to tensor ...",
except for the ops torch lets write it (fill_, zero_, tril_, masked_fill_, index_put_, ... with their deprecation
warnings), which write it as torch does.  Exactly the same memory is allowed for elementwise ops, never for index
and scatter ops."""
import warnings

import pytest
import torch

import torchlike
from torchlike._ops import registry

from conftest import raises_like_torch, same_as_torch

_OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory location"
_INTERNAL = "more than one element of the written-to tensor refers to a single memory location"


def _x(m, n=6):
    return m.arange(float(n))


def _idx(m, *v):
    return m.tensor(list(v))


# each raises in torch (the first partial overlap, then exact overlap for index/scatter ops, then expanded selves)
ERRORS = {
    "add_ partial": lambda m: (x := _x(m))[1:4].add_(x[:3]),
    "add_ 0-d inside": lambda m: (x := _x(m))[1:4].add_(x[1]),
    "sub_ alpha": lambda m: (x := _x(m))[1:4].sub_(x[:3], alpha=2),
    "add_ transposed": lambda m: (x := _x(m)).view(2, 3).t().add_(x.view(3, 2)),
    "iadd": lambda m: (x := _x(m))[1:4].__iadd__(x[:3]),
    "clamp_ min=": lambda m: (x := _x(m))[1:4].clamp_(min=x[:3]),
    "addcmul_": lambda m: (x := _x(m))[1:4].addcmul_(x[:3], x[3:]),
    "lerp_ weight": lambda m: (x := _x(m))[1:4].lerp_(x[0:3] * 1, x[2:5]),
    "pow_": lambda m: (x := _x(m))[1:4].pow_(x[:3]),
    "float_power_": lambda m: (x := _x(m).double())[1:4].float_power_(x[:3]),
    "addr_": lambda m: (x := _x(m, 8))[2:].view(2, 3).addr_(x[:2], x[:3]),
    "copy_ partial": lambda m: (x := _x(m))[1:].copy_(x[:-1]),
    "copy_ 0-d inside": lambda m: (x := _x(m))[1:4].copy_(x[2]),
    "copy_ one element inside": lambda m: (x := _x(m))[1:4].copy_(x[2:3]),
    "copy_ transposed": lambda m: (x := _x(m, 4)).view(2, 2).copy_(x.view(2, 2).t()),
    "copy_ other dtype view": lambda m: (x := _x(m, 4).float())[1:3].copy_(x.view(m.int32)[:2]),
    "setitem partial": lambda m: (x := _x(m)).__setitem__(slice(1, None), x[:-1]),
    "as_strided operands": lambda m: (x := _x(m)).as_strided((3,), (1,), 1).add_(x.as_strided((3,), (1,), 0)),
    "bitwise_and_ before dtype": lambda m: (x := _x(m))[1:4].bitwise_and_(x[:3]),
    "index_add_ source": lambda m: (x := _x(m)).index_add_(0, _idx(m, 0, 1), x[1:3]),
    "index_add_ source is self": lambda m: (x := _x(m)).index_add_(0, m.arange(6), x),
    "index_copy_": lambda m: (x := _x(m)).index_copy_(0, _idx(m, 0, 1), x[1:3]),
    "index_reduce_": lambda m: (x := _x(m)).index_reduce_(0, _idx(m, 0, 1), x[1:3], "prod"),
    "scatter_": lambda m: (x := _x(m)).scatter_(0, _idx(m, 0, 1), x[1:3]),
    "scatter_ src is self": lambda m: (x := _x(m)).scatter_(0, m.arange(6), x),
    "scatter_add_": lambda m: (x := _x(m)).scatter_add_(0, _idx(m, 0, 1), x[1:3]),
    "scatter_reduce_": lambda m: (x := _x(m)).scatter_reduce_(0, _idx(m, 0, 1), x[1:3], "sum"),
    "put_": lambda m: (x := _x(m)).put_(_idx(m, 0, 1), x[1:3]),
    "index_put_": lambda m: (x := _x(m)).index_put_((_idx(m, 0, 1),), x[1:3]),
    "setitem advanced, 0-d value": lambda m: (x := _x(m)).__setitem__([1, 2], x[2]),
    "add_ expanded": lambda m: _x(m)[:1].expand(3).add_(1),
    "neg_ expanded": lambda m: _x(m)[:1].expand(3).neg_(),
    "mul_ expanded before broadcast": lambda m: _x(m)[:1].expand(3, 1).mul_(m.ones(3, 3)),
    "copy_ expanded": lambda m: _x(m)[:1].expand(3).copy_(m.ones(3)),
    "setitem number into expanded": lambda m: _x(m)[:1].expand(3).__setitem__(slice(None), 5),
    "setitem column of expanded": lambda m: _x(m, 3)[None].expand(3, 3).__setitem__((slice(None), 0), 9),
    "fill_ tensor into expanded": lambda m: _x(m)[:1].expand(3).fill_(m.tensor(2.)),
    "index_copy_ expanded": lambda m: _x(m)[:1].expand(3).index_copy_(0, _idx(m, 1), m.tensor([4.])),
    "scatter_ expanded": lambda m: _x(m)[:1].expand(3).scatter_(0, _idx(m, 1), m.tensor([4.])),
    "masked_scatter_ expanded": lambda m: _x(m)[:1].expand(3).masked_scatter_(m.tensor([True, False, True]),
                                                                             m.tensor([5., 6.])),
    "normal_ expanded": lambda m: _x(m)[:2].expand(2, 2).normal_(),
    "bernoulli_ expanded": lambda m: _x(m)[:1].expand(3).bernoulli_(0.5),
    "cumsum_ expanded": lambda m: _x(m)[:1].expand(3).cumsum_(0),
    "addbmm_ expanded": lambda m: _x(m)[:2].expand(2, 2).addbmm_(m.ones(1, 2, 2), m.ones(1, 2, 2)),
    "out= partial": lambda m: m.add((x := _x(m))[:5], x[:5], out=x[1:]),
    "out= expanded": lambda m: m.add((x := _x(m))[:3], 1, out=x[:1].expand(3)),
    "where out=": lambda m: m.where(m.tensor([True, False, True]), (x := _x(m))[:3], x[3:], out=x[1:4]),
    "cumsum out=": lambda m: m.cumsum((x := _x(m))[:5], 0, out=x[1:]),
    "sort out=": lambda m: m.sort((x := _x(m))[:3], out=(x[1:4], m.empty(3, dtype=m.long))),
    "max dim out=": lambda m: m.max((x := _x(m, 12))[:6].view(2, 3), 0, out=(x[:3], m.empty(3, dtype=m.long))),
    "addmm out=": lambda m: m.addmm((x := _x(m, 12))[:4].view(2, 2), x[4:8].view(2, 2), x[8:].view(2, 2),
                                    out=x[1:5].view(2, 2)),
    "outer out=": lambda m: m.outer((x := _x(m))[:2], x[2:4], out=x[:4].view(2, 2)),
    "diff out=": lambda m: m.diff((x := _x(m))[:4], out=x[1:4]),
    "cross out= exact": lambda m: m.cross((x := _x(m))[:3], x[3:6], dim=0, out=x[:3]),
    "take_along_dim out= exact": lambda m: m.take_along_dim((x := _x(m))[:3], m.tensor([0, 1, 2]), 0, out=x[:3]),
    "index_copy out=": lambda m: m.index_copy((x := _x(m, 8))[:4], 0, _idx(m, 0), x[4:5], out=x[3:7]),
    "scatter out=": lambda m: m.scatter((x := _x(m, 8))[:4], 0, _idx(m, 0), x[4:5], out=x[4:8]),
    "hardshrink out=": lambda m: m.hardshrink((x := _x(m))[:4], 0.5, out=x[1:5]),
}


@pytest.mark.parametrize("case", list(ERRORS), ids=list(ERRORS))
def test_overlap_errors_like_torch(case):
    raises_like_torch(ERRORS[case])


def _buf(fn):
    """``fn`` on a fresh buffer, returning the buffer (what the op wrote)."""
    def run(m):
        x = _x(m)
        fn(m, x)
        return x
    return run


# each succeeds in torch: exact overlap, no overlap, overlap torch cannot tell (a non-dense operand), and the ops
# that write an expanded tensor (each memory location keeps the last value written there)
WRITES = {
    "add_ self": lambda m, x: x.add_(x),
    "add_ same view twice": lambda m, x: x.view(2, 3).add_(x.view(2, 3)),
    "add_ disjoint": lambda m, x: x[:3].add_(x[3:]),
    "add_ expanded operand elsewhere": lambda m, x: x[:3].add_(x[3:4].expand(3)),
    "add_ 0-d outside": lambda m, x: x[1:4].add_(x[5]),
    "copy_ self": lambda m, x: x.copy_(x),
    "copy_ strided": lambda m, x: x[::2].copy_(x[1:4]),
    "setitem self": lambda m, x: x.__setitem__(slice(None), x),
    "setitem 0-d inside": lambda m, x: x.__setitem__(slice(1, 4), x[2]),
    "setitem one element inside": lambda m, x: x.__setitem__(slice(1, 4), x[2:3]),
    "fill_ 0-d inside": lambda m, x: x[1:4].fill_(x[2]),
    "masked_fill_ 0-d inside": lambda m, x: x[1:4].masked_fill_(m.tensor([True, False, True]), x[2]),
    "index_fill_ 0-d inside": lambda m, x: x[1:4].index_fill_(0, _idx(m, 0), x[2]),
    "masked_scatter_ partial": lambda m, x: x[:3].masked_scatter_(m.tensor([True] * 3), x[1:4]),
    "setitem mask, 0-d inside": lambda m, x: x.__setitem__(m.tensor([True, False, True, False, False, False]), x[1]),
    "out= exact": lambda m, x: m.add(x, x, out=x),
    "cumsum out= exact": lambda m, x: m.cumsum(x, 0, out=x),
    "sort out= exact": lambda m, x: m.sort(x[:3], out=(x[:3], m.empty(3, dtype=m.long))),
    "scatter out= is input": lambda m, x: m.scatter(x[:4], 0, _idx(m, 0), x[4:5], out=x[:4]),
    "zero_ expanded": lambda m, x: x[:1].expand(3).zero_(),
    "fill_ expanded": lambda m, x: x[:2].expand(2, 2).fill_(3),
    "setitem into a row of an expanded": lambda m, x: x[:3][None].expand(3, 3).__setitem__(0, m.tensor([4., 5, 6])),
    "setitem number into one element of an expanded": lambda m, x: x[:1].expand(3).__setitem__(1, 5),
    "tril_ expanded": lambda m, x: x[:3][None].expand(3, 3).tril_(),
    "triu_ expanded": lambda m, x: x[:3][None].expand(3, 3).triu_(1),
    "fill_diagonal_ expanded": lambda m, x: x[:3][None].expand(2, 3).fill_diagonal_(-1),
    "conj_physical_ expanded real": lambda m, x: x[:1].expand(3).conj_physical_(),
    "data of an expanded": lambda m, x: x[:2].expand(2, 2).data.fill_(4),
}


@pytest.mark.parametrize("case", list(WRITES), ids=list(WRITES))
def test_overlap_writes_like_torch(case):
    same_as_torch(_buf(WRITES[case]), grad=False)


# matrix products writing over their own operands: torch hands them to its BLAS, whose reading order depends on the
# CPU (with AVX-512 its result is the product of the operands as they were; on an AVX2 CPU, torch 2.13 gives
# [1, 2, 10, 14, 155, 222] and [1, 2, 1, 2, 3, 6] below, partly overwritten). torchlike always reads the operands
# first: the expected values are torch's product of copies of the operands (docs/differences.md)
BLAS_WRITES = {
    "addmm_ operands": (lambda m, x: x[2:].view(2, 2).addmm_(x[:4].view(2, 2), x[:4].view(2, 2)),
                        lambda m, x: x[2:].view(2, 2).addmm_(a := x[:4].view(2, 2).clone(), a)),
    "mm out=": (lambda m, x: m.mm(x[:4].view(2, 2), x[:4].view(2, 2), out=x[2:].view(2, 2)),
                lambda m, x: m.mm(a := x[:4].view(2, 2).clone(), a, out=x[2:].view(2, 2))),
}


@pytest.mark.parametrize("case", list(BLAS_WRITES), ids=list(BLAS_WRITES))
def test_matrix_products_over_their_operands_read_them_first(case):
    aliased, copied = BLAS_WRITES[case]
    assert _buf(aliased)(torchlike).tolist() == _buf(copied)(torch).tolist()


# ops torch lets write an expanded tensor, with a deprecation warning: the same values and warnings
WARNS = {
    "masked_fill_": lambda m, x: x[:3][None].expand(2, 3).masked_fill_(
        m.tensor([[True, False, False], [False, False, True]]), -1.),
    "index_fill_": lambda m, x: x[:3][None].expand(3, 3).index_fill_(1, _idx(m, 0, 2), -1.),
    "index_put_": lambda m, x: x[:1].expand(3).index_put_((_idx(m, 0, 2),), m.tensor([5., 7.])),
    "index_put_ one mask": lambda m, x: x[:1].expand(3).index_put_((m.tensor([True, False, True]),), m.tensor(4.)),
    "setitem mask": lambda m, x: x[:1].expand(3).__setitem__(m.tensor([True, False, True]), 5),
    "setitem indices": lambda m, x: x[:2][None].expand(2, 2).__setitem__((_idx(m, 1), _idx(m, 0)), 8.),
}


@pytest.mark.parametrize("case", list(WARNS), ids=list(WARNS))
def test_writes_to_expanded_tensors_warn_like_torch(case):
    seen = {}
    for m in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            same = _buf(WARNS[case])(m)
        seen[m.__name__] = ([str(e.message) for e in w if "expanded" in str(e.message)], same.tolist())
    assert seen["torchlike"] == seen["torch"]
    assert seen["torch"][0], "torch gave no warning: not a case of this test"


def _elementwise_inplace():
    # (torchlike's ``logaddexp_``/``logaddexp2_`` have no torch method to compare with)
    return sorted(n for (ns, n), e in registry.TABLE.items()
                  if e.inplace and e.inplace_overlap == "partial" and hasattr(torch.Tensor, n + "_"))


# the arguments an elementwise in-place op takes beside self, made of a tensor ``a`` (torch's signatures): one
# positional tensor unless listed; () for the ops without a tensor operand
_EXTRA = {"clamp": lambda a: dict(min=a), "clip": lambda a: dict(max=a), "clamp_min": lambda a: (a,),
          "lerp": lambda a: (a, 0.5), "addcmul": lambda a: (a, a), "addcdiv": lambda a: (a, a),
          "addr": lambda a: (a[:2], a), "polygamma": 1, "mvlgamma": 1, "round": (), "nan_to_num": (), "logit": ()}


def _call(t, name, extra):
    return getattr(t, name + "_")(**extra) if isinstance(extra, dict) else getattr(t, name + "_")(*extra)


@pytest.mark.parametrize("name", _elementwise_inplace())
def test_every_elementwise_inplace_op_checks_overlap_like_torch(name):
    """Every in-place op of the table's elementwise rule: a partly overlapping operand (where it takes one) and an
    expanded self raise torch's errors, before any dtype or shape error of the op."""
    extra = _EXTRA.get(name)
    if isinstance(extra, int):  # polygamma_(n) / mvlgamma_(p): no tensor operand
        return raises_like_torch(lambda m: getattr(_x(m)[:1].expand(3), name + "_")(extra), match=_INTERNAL)
    if extra is None:
        try:
            getattr(torch.arange(3.), name + "_")()
            extra = ()
        except TypeError:  # torch's parser: the op takes an operand
            extra = lambda a: (a,)  # noqa: E731
        except Exception:  # noqa: BLE001 - a unary op refusing the dtype (bitwise_not_ of a float)
            extra = ()
    if extra == ():
        return raises_like_torch(lambda m: getattr(_x(m)[:1].expand(3), name + "_")(), match=_INTERNAL)
    shape = (2, 3) if name == "addr" else (3,)  # (addr_ writes a matrix: vec2 is the operand over self's memory)

    def partial(m):
        x = _x(m, 8)
        return _call(x[2:8].view(shape) if name == "addr" else x[1:4], name, extra(x[:3]))
    raises_like_torch(partial, match=_OVERLAP)
    raises_like_torch(lambda m: _call(_x(m)[:1].expand(shape), name, extra(m.ones(3))), match=_INTERNAL)


def test_overlap_check_reads_no_metadata_without_a_shared_root():
    """The check costs an identity test where the operands do not share self's memory: no stride is computed."""
    x, y = torchlike.arange(6.), torchlike.arange(6.)
    calls = []
    real = torchlike.Tensor.stride
    torchlike.Tensor.stride = lambda self, *a: calls.append(1) or real(self, *a)
    try:
        x[1:4].add_(y[:3])
        x.add_(y)
    finally:
        torchlike.Tensor.stride = real
    assert not calls
    tx = torch.arange(6.)
    tx[1:4].add_(torch.arange(6.)[:3])
    tx.add_(torch.arange(6.))
    assert tx.tolist() == x.tolist()
