"""torchjd 0.18.0 (Jacobian descent) under the drop-in runner, compared line by line with real torch: aggregators
on a fixed Jacobian (Mean, Sum, Constant, MGDA, PCGrad, AlignedMTL, IMTL-G, ConFIG, Krum, TrimmedMean, GradDrop)
and weightings, ``jac`` through vmapped vector-Jacobian products (parallel and chunked), ``backward`` +
``jac_to_grad`` for instance-wise risk minimisation with SGD, and ``mtl_backward`` on a two-head model with Adam.
(UPGrad and DualProj need the compiled quadprog solver, which is not installed.)"""
from conftest import lib_program_vs_torch


def test_torchjd_like_torch():
    _, ours = lib_program_vs_torch("lib_torchjd.py", "torchjd", timeout=600, rtol=1e-4)
    assert len(ours) == 24, ours
    assert ours[0] == "aggregate Mean [0.875, 0.125, 0.375]", ours[0]
    assert ours[8] == "aggregate Krum [1.0, -2.0, 0.5]", ours[8]
    assert ours[10] == "repr MGDA(epsilon=0.001, max_iters=100) Constant(weights=tensor([1., 2.]))", ours[10]
    assert ours[14] == "jac chunked equal True True", ours[14]
    assert ours[20] == "jac fields [(12, 8, 5), (12, 8)] [True, True, True, True]", ours[20]
