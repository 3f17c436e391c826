"""A seeded differential fuzzer: common public ops on edge inputs, in torch and in torchlike.

Each case is one python expression over ``t`` (the library) built from an op template and edge inputs
(empty, 0-d, python scalars/bools, mixed dtypes, non-contiguous views, NaN/inf, bad dims and shapes,
wrong ``out=``). ``run_case`` evaluates it with ``t`` bound to torch and to torchlike and classifies the
pair; ``cases(seed, n)`` draws ``n`` of them reproducibly. Run ``python tests/_edge_fuzz.py [n] [seed]`` to
print the mismatches by kind (``... [n] [seed] extra``: the families of ``EXTRA_FAMILIES``: linalg, fft, special,
scatter/gather/index_*, distributions' parameter checks, pooling/padding/interpolation, tensors from odd Python data).
"""
import random
import re
import sys
import warnings

import numpy as np

import torchlike

try:
    import torch
except ImportError:  # the test skips with a reason; the module stays importable
    torch = None

_JAX_TEXT = re.compile(r"\b(jax\w*|jnp|lax|xla|stablehlo|mlir)\b|[\\/]jax(lib)?[\\/]|Accepted dtypes", re.I)

# inputs: expressions over ``t``
TENSORS = [
    "t.zeros(0)", "t.ones(2, 0, 3)", "t.tensor(2.5)", "t.tensor(-3)", "t.tensor(True)",
    "t.arange(6.).reshape(2, 3)", "t.arange(6.).reshape(2, 3).t()", "t.arange(24.).reshape(2, 3, 4)[:, ::2]",
    "t.ones(1, 3).expand(4, 3)", "t.tensor([1., float('nan'), float('inf'), -float('inf')])",
    "t.tensor([[1, 2], [3, 4]], dtype=t.int8)", "t.tensor([100, 127], dtype=t.int8)",
    "t.tensor([2**62, 3], dtype=t.int64)", "t.arange(4, dtype=t.int32)",
    "t.tensor([True, False, True])", "t.ones(2, 3, dtype=t.float16)", "t.ones(2, 3, dtype=t.bfloat16)",
    "t.arange(6, dtype=t.float64).reshape(3, 2)", "t.ones(2, 2, dtype=t.complex64)",
    "t.tensor([1+2j, 3-1j])", "t.arange(3, dtype=t.uint8)",
]
SCALARS = ["2", "2.5", "True", "-1", "float('nan')", "3j"]
DIMS = ["0", "1", "-1", "2", "-3", "5", "(0, 1)", "(0, 0)", "None"]

UNARY = ["t.neg(X)", "t.abs(X)", "t.exp(X)", "t.log(X)", "t.sqrt(X)", "t.sigmoid(X)", "t.tanh(X)",
         "t.floor(X)", "t.round(X)", "t.sign(X)", "t.reciprocal(X)", "t.logical_not(X)", "t.bitwise_not(X)",
         "t.isnan(X)", "t.nan_to_num(X)", "t.relu(X)", "t.sin(X)", "t.square(X)", "t.clamp(X, 0, 1)",
         "t.clamp(X, min=S)", "-X", "~X", "X.float()", "X.to(t.int16)", "X.bool()", "t.erf(X)", "t.frac(X)",
         "t.trunc(X)", "t.angle(X)", "t.real(X)", "t.exp2(X)", "t.log1p(X)", "t.rsqrt(X)"]
BINARY = ["t.add(X, Y)", "X + Y", "X - Y", "X * Y", "X / Y", "X // Y", "X % Y", "X ** Y", "t.maximum(X, Y)",
          "t.eq(X, Y)", "X < Y", "X & Y", "X | Y", "X ^ Y", "X << Y", "t.fmod(X, Y)", "t.remainder(X, Y)",
          "t.atan2(X, Y)", "t.where(X > 0, X, Y)", "t.add(X, S)", "S - X", "X * S", "S / X", "S ** X",
          "t.floor_divide(X, S)", "t.true_divide(X, S)", "t.mul(X, Y, out=t.empty(0, dtype=t.int32))",
          "t.add(X, Y, alpha=S)", "t.lerp(X, Y, 0.5)", "t.hypot(X, Y)", "t.logaddexp(X, Y)",
          "t.copysign(X, Y)", "t.minimum(X, S)", "t.isclose(X, Y)", "t.bitwise_and(X, S)"]
REDUCE = ["t.sum(X)", "t.sum(X, dim=D)", "t.sum(X, D, keepdim=True)", "t.mean(X)", "t.mean(X, D)",
          "t.prod(X, D)", "t.amax(X, D)", "t.max(X)", "t.max(X, D)", "t.min(X, D, keepdim=True)",
          "t.argmax(X)", "t.argmax(X, D)", "t.argmin(X, D, keepdim=True)", "t.std(X)", "t.var(X, D)",
          "t.all(X)", "t.any(X, D)", "t.logsumexp(X, D)", "t.norm(X)", "t.cumsum(X, D)", "t.cumprod(X, D)",
          "t.median(X)", "t.count_nonzero(X, D)", "X.sum(D, dtype=t.float64)", "t.nansum(X)",
          "t.sum(X, D, out=t.empty(3, dtype=t.int8))", "t.softmax(X, D)", "t.log_softmax(X, D)",
          "t.sort(X, D)", "t.topk(X, 2, D)", "t.topk(X, 0)", "t.argsort(X, D)", "t.unique(X)",
          "t.cummax(X, D)", "t.kthvalue(X, 1, D)", "t.mode(X, D)", "t.aminmax(X)", "t.flip(X, (D,))"]
SHAPE = ["X.view(-1)", "X.view(3, -1)", "X.reshape(-1, 2)", "X.reshape(0, -1)", "X.expand(2, -1)",
         "X.expand(5, 3)", "X.permute(1, 0)", "X.permute(D, 0)", "X.squeeze()", "X.squeeze(D)",
         "X.unsqueeze(D)", "X.flatten()", "X.flatten(D)", "t.cat([X, Y])", "t.cat([X, Y], D)",
         "t.cat([X, X], D)", "t.cat([])", "t.stack([X, Y])", "t.stack([X, X], D)", "t.split(X, 2)",
         "t.split(X, 2, D)", "t.split(X, [1, 1], D)", "t.chunk(X, 2, D)", "t.chunk(X, 0)", "X.transpose(D, 0)",
         "X.t()", "X.T", "X.mT", "t.movedim(X, D, 0)", "X.narrow(D, 0, 1)", "X.unbind(D)", "X.repeat(2, 1)",
         "X.tile((2,))", "t.broadcast_to(X, (2, 3))", "X.view(t.int32)", "X.contiguous().view(-1, 5)",
         "t.roll(X, 1, D)", "t.diagonal(X)", "t.tril(X)", "t.triu(X, 1)", "X.unflatten(D, (1, -1))",
         "t.hstack([X, Y])", "t.vstack([X, Y])", "t.atleast_2d(X)", "X.select(D, 0)", "t.flatten(X, 1, 0)"]
INDEX = ["X[0]", "X[-1]", "X[5]", "X[..., 0]", "X[None]", "X[X > 0]", "X[t.tensor([0, 0])]",
         "X[t.tensor([], dtype=t.long)]", "X[t.tensor([True])]", "X[:, 1]", "X[1:0]",
         "t.index_select(X, D, t.tensor([0]))", "t.index_select(X, 0, t.tensor([5]))",
         "t.gather(X, D, t.zeros_like(X, dtype=t.long))", "t.gather(X, 0, t.tensor([[9]]))",
         "X.scatter(D, t.zeros_like(X, dtype=t.long), 1.0)", "X.scatter_add(0, t.zeros_like(X, dtype=t.long), X)",
         "X.masked_fill(X > 0, S)", "X.masked_fill(t.tensor(True), 0)", "X.masked_fill(X.bool(), Y)",
         "t.take(X, t.tensor([0, -1]))", "t.take(X, t.tensor([100]))", "t.nonzero(X)", "t.where(X)",
         "X.index_fill(D, t.tensor([0]), S)", "X.index_add(0, t.tensor([0]), X)", "t.masked_select(X, X > 0)",
         "t.take_along_dim(X, t.tensor([0]))", "t.searchsorted(X, Y)", "t.bucketize(X, Y)",
         "X.clone().index_put_((t.tensor([0]),), t.tensor(1.))"]
MATMUL = ["X @ Y", "t.matmul(X, Y)", "t.mm(X, Y)", "t.bmm(X, Y)", "t.mv(X, Y)", "t.dot(X, Y)",
          "t.einsum('ij,jk->ik', X, Y)", "t.einsum('i,i->', X, Y)", "t.einsum('...,...->...', X, Y)",
          "t.outer(X, Y)", "t.matmul(X, Y, out=t.empty(1, dtype=t.int64))", "t.inner(X, Y)",
          "t.tensordot(X, Y, 1)", "t.kron(X, Y)", "t.cross(X, Y, dim=D)", "t.addmm(X, X, Y)",
          "t.baddbmm(X, X, Y)", "t.vdot(X, Y)"]
NN = ["t.nn.functional.softmax(X, D)", "t.nn.functional.log_softmax(X, -1)",
      "t.nn.functional.cross_entropy(X, t.tensor([0, 1]))", "t.nn.functional.cross_entropy(X, t.tensor([5, 0]))",
      "t.nn.functional.cross_entropy(X, Y)", "t.nn.functional.nll_loss(X, t.tensor([0, 1]))",
      "t.nn.functional.nll_loss(X, t.zeros(0, dtype=t.long))", "t.nn.functional.mse_loss(X, Y)",
      "t.nn.functional.l1_loss(X, Y)", "t.nn.functional.binary_cross_entropy(X, Y)",
      "t.nn.functional.conv1d(X, t.ones(1, 1, 2))", "t.nn.functional.conv2d(X, t.ones(1, 1, 2, 2))",
      "t.nn.functional.conv2d(X, Y)", "t.nn.functional.max_pool2d(X, 2)", "t.nn.functional.max_pool2d(X, 5)",
      "t.nn.functional.avg_pool2d(X, 2)", "t.nn.functional.layer_norm(X, X.shape[-1:])",
      "t.nn.functional.layer_norm(X, (7,))", "t.nn.functional.embedding(t.tensor([0, 1]), X)",
      "t.nn.functional.embedding(X, t.ones(3, 2))", "t.nn.functional.linear(X, Y)",
      "t.nn.functional.linear(X, t.ones(2, 3))", "t.nn.functional.one_hot(X)", "t.nn.functional.relu(X)",
      "t.nn.functional.gelu(X)", "t.nn.functional.dropout(X, 0.0)", "t.nn.functional.pad(X, (1, 1))",
      "t.nn.functional.normalize(X, dim=D)", "t.nn.functional.batch_norm(X, None, None, training=True)",
      "t.nn.functional.interpolate(X, scale_factor=2)", "t.nn.functional.smooth_l1_loss(X, Y)",
      "t.nn.functional.kl_div(X, Y)", "t.nn.functional.adaptive_avg_pool2d(X, 1)"]
CREATION = ["t.zeros(S)", "t.ones(2, S)", "t.full((2,), S)", "t.full((2,), S, dtype=t.int32)", "t.arange(S)",
            "t.arange(0, S, 0.5)", "t.arange(0, 1, 0)", "t.arange(5, 0)", "t.linspace(0, 1, S)", "t.eye(S)",
            "t.tensor([S, S])", "t.tensor([[1], [2, 3]])", "t.tensor([])", "t.empty(-1)", "t.zeros(2**62)",
            "t.zeros(2**31, 2**31)", "t.arange(2**62)", "t.randn(2**33, 2**33)",
            "t.zeros_like(X)", "t.full_like(X, S)", "t.ones_like(X, dtype=t.bool)", "t.as_tensor(S)",
            "t.tensor(S, dtype=t.int8)", "t.tensor(300, dtype=t.uint8)", "t.tensor([1.5]).to(t.int64)",
            "t.empty(2, 3).fill_(S)", "t.zeros(3).new_full((2,), S)", "t.logspace(0, 1, S)",
            "t.arange(S, dtype=t.bool)", "t.full((2,), float('nan'), dtype=t.int64)",
            "t.tensor(float('inf')).long()", "t.eye(2, 3, out=t.empty(1, dtype=t.int8))",
            "t.zeros(3, out=t.empty(2, 2))", "t.tril_indices(3, 3)", "t.randint(0, S, (2,))",
            "t.randint(5, 2, (2,))", "t.multinomial(t.tensor([0., 0.]), 1)", "t.randperm(S)"]
FAMILIES = {"unary": UNARY, "binary": BINARY, "reduce": REDUCE, "shape": SHAPE, "index": INDEX,
            "matmul": MATMUL, "nn": NN, "creation": CREATION}

# op families drawn on their own (``cases(..., families=EXTRA_FAMILIES)``), so the draws of FAMILIES, and their
# counts in test_edge_inputs, stay as they were
LINALG = ["t.linalg.inv(X)", "t.linalg.det(X)", "t.linalg.norm(X)", "t.linalg.norm(X, dim=D)", "t.linalg.matrix_norm(X)",
          "t.linalg.vector_norm(X, S)", "t.linalg.svdvals(X)", "t.linalg.eigvalsh(X)", "t.linalg.cholesky(X)",
          "t.linalg.solve(X, Y)", "t.linalg.pinv(X)", "t.linalg.matrix_rank(X)", "t.linalg.slogdet(X)",
          "t.linalg.cross(X, Y)", "t.linalg.vecdot(X, Y)", "t.linalg.matrix_power(X, S)", "t.linalg.multi_dot([X, Y])",
          "t.det(X)", "t.inverse(X)", "t.trace(X)", "t.linalg.lstsq(X, Y).solution", "t.linalg.diagonal(X)",
          "t.linalg.matrix_exp(X)", "t.linalg.tensorsolve(X, Y)", "t.linalg.householder_product(X, Y)"]
FFT = ["t.fft.fft(X)", "t.fft.ifft(X)", "t.fft.rfft(X)", "t.fft.irfft(X)", "t.fft.fft(X, n=S)", "t.fft.fft(X, dim=D)",
       "t.fft.fft2(X)", "t.fft.fftn(X, dim=D)", "t.fft.rfft2(X)", "t.fft.hfft(X)", "t.fft.ihfft(X)", "t.fft.fftshift(X)",
       "t.fft.ifftshift(X, D)", "t.fft.fftfreq(S)", "t.fft.rfftfreq(S, S)", "t.fft.fft(X, norm='ortho')",
       "t.fft.fft(X, norm='bad')", "t.fft.irfftn(X, s=(S,))"]
SPECIAL = ["t.special.erfcx(X)", "t.special.expit(X)", "t.special.logit(X, S)", "t.special.xlogy(X, Y)",
           "t.special.xlog1py(X, S)", "t.special.zeta(X, Y)", "t.special.gammaln(X)", "t.special.digamma(X)",
           "t.special.polygamma(1, X)", "t.special.polygamma(S, X)", "t.special.multigammaln(X, 2)", "t.special.i0(X)",
           "t.special.i1e(X)", "t.special.ndtr(X)", "t.special.ndtri(X)", "t.special.log_ndtr(X)", "t.special.sinc(X)",
           "t.special.entr(X)", "t.special.bessel_j0(X)", "t.special.softmax(X, D)", "t.special.logsumexp(X, D)",
           "t.lgamma(X)", "t.mvlgamma(X, 1)", "t.special.gammainc(X, Y)", "t.special.round(X, decimals=S)"]
SCATTER = ["X.scatter_reduce(D, t.zeros_like(X, dtype=t.long), Y, 'sum')",
           "X.scatter_reduce(0, t.zeros_like(X, dtype=t.long), X, 'amax', include_self=False)",
           "X.scatter_reduce(0, t.zeros_like(X, dtype=t.long), X, 'bad')", "X.index_copy(D, t.tensor([0]), Y)",
           "X.index_reduce(0, t.tensor([0]), X[:1], 'prod')", "X.index_put((t.tensor([0]),), Y)",
           "X.index_put((t.tensor([0]),), Y, accumulate=True)", "X.put(t.tensor([0]), Y)", "X.masked_scatter(X > 0, Y)",
           "t.scatter(X, D, t.tensor([[0]]), Y)", "X.clone().scatter_(0, t.tensor([[0]]), S, reduce='add')",
           "t.gather(X, D, t.tensor([[0, 0]]))", "t.index_select(X, D, t.tensor([0, -1]))",
           "t.index_add(X, D, t.tensor([0]), Y, alpha=S)", "X.clone().index_fill_(D, t.tensor([0]), Y)",
           "t.take_along_dim(X, t.argsort(X, D), D)", "t.diagonal_scatter(X, Y)", "t.select_scatter(X, Y, D, 0)",
           "t.slice_scatter(X, Y, D)", "t.scatter_add(X, D, t.tensor([[5]]), Y)", "X.put_(t.tensor([99]), Y)"]
DISTRIBUTIONS = ["t.distributions.Normal(X, Y).mean", "t.distributions.Normal(X, S).log_prob(Y)",
                 "t.distributions.Bernoulli(probs=X).mean", "t.distributions.Bernoulli(logits=X).entropy()",
                 "t.distributions.Categorical(probs=X).probs", "t.distributions.Categorical(logits=X).log_prob(Y)",
                 "t.distributions.Uniform(X, Y).mean", "t.distributions.Beta(X, Y).mean",
                 "t.distributions.Gamma(X, S).mean", "t.distributions.Exponential(X).mean",
                 "t.distributions.Poisson(X).log_prob(Y)", "t.distributions.Dirichlet(X).mean",
                 "t.distributions.Binomial(S, probs=X).mean", "t.distributions.Normal(X, Y, validate_args=False).mean",
                 "t.distributions.MultivariateNormal(X, t.eye(2)).mean", "t.distributions.LogNormal(X, S).variance",
                 "t.distributions.Geometric(X).mean", "t.distributions.Laplace(X, Y).cdf(X)",
                 "t.distributions.Bernoulli(X, X)", "t.distributions.Normal(X, Y).log_prob(S)"]
POOL = ["t.nn.functional.max_pool1d(X, 2)", "t.nn.functional.max_pool2d(X, 2, stride=S)",
        "t.nn.functional.avg_pool1d(X, 2)", "t.nn.functional.avg_pool2d(X, 3, padding=2)",
        "t.nn.functional.max_pool2d(X, 2, return_indices=True)", "t.nn.functional.adaptive_max_pool1d(X, 2)",
        "t.nn.functional.adaptive_avg_pool1d(X, S)", "t.nn.functional.lp_pool1d(X, 2, 2)",
        "t.nn.functional.pad(X, (1, 2), mode='reflect')", "t.nn.functional.pad(X, (1, 1), mode='replicate')",
        "t.nn.functional.pad(X, (1, 1, 1, 1), mode='circular')", "t.nn.functional.pad(X, (5, 5), mode='reflect')",
        "t.nn.functional.pad(X, (-1, 0))", "t.nn.functional.pad(X, (1,))", "t.nn.functional.pad(X, (1, 1), value=S)",
        "t.nn.functional.interpolate(X, size=4)", "t.nn.functional.interpolate(X, scale_factor=S, mode='linear')",
        "t.nn.functional.interpolate(X, size=(2, 2), mode='bilinear')",
        "t.nn.functional.interpolate(X, scale_factor=2, mode='nearest-exact')",
        "t.nn.functional.interpolate(X, size=3, mode='bicubic')", "t.nn.functional.interpolate(X)",
        "t.nn.functional.unfold(X, 2)", "t.nn.functional.pixel_shuffle(X, 2)"]
# tensors made from odd Python data: mixed element types, ragged lists, None, numpy scalars and arrays, bools
PYDATA = ["t.tensor([1, 2.5])", "t.tensor([True, 2])", "t.tensor([1, 2j])", "t.tensor([[1, 2], [3]])",
          "t.tensor([[1, 2], 3])", "t.tensor([None])", "t.tensor(None)", "t.tensor([1, None])", "t.tensor(['a'])",
          "t.tensor([[]])", "t.tensor([[], []])", "t.tensor([[[]]])", "t.tensor((1, 2))", "t.tensor([np.float32(1.5), 2])",
          "t.tensor(np.int64(3))", "t.tensor([np.bool_(True), 1])", "t.tensor(np.float16(1.5))",
          "t.tensor([np.array(1.), 2.])", "t.tensor(np.array([1, 2], dtype=np.uint16))", "t.tensor(np.zeros((2, 0)))",
          "t.tensor([t.tensor(1.), 2])", "t.tensor([X, X])", "t.as_tensor([1, 2.5], dtype=t.int32)",
          "t.tensor([1.5], dtype=t.bool)", "t.tensor(2**63)", "t.tensor([2**63 - 1, 1])", "t.tensor(-2**63 - 1)",
          "t.tensor([float('nan')], dtype=t.int32)", "t.tensor(range(3))", "t.tensor({1, 2})", "t.tensor({'a': 1})",
          "t.tensor(b'ab')", "t.tensor(S)", "t.as_tensor([S, S])", "t.tensor([[S], [S, S]])", "t.tensor([True, S])",
          "t.tensor(1e40, dtype=t.float32)", "t.tensor([S, X])", "t.as_tensor(np.array([S]))", "t.tensor([[1], [True]])",
          "t.tensor(np.array(['a']))", "t.tensor([np.int8(1), 2.5])", "t.tensor([np.float64(1.5)], dtype=t.float16)"]
EXTRA_FAMILIES = {"linalg": LINALG, "fft": FFT, "special": SPECIAL, "scatter": SCATTER, "distributions": DISTRIBUTIONS,
                  "pool": POOL, "pydata": PYDATA}


def _fill(tmpl, rng):
    out = tmpl
    for key, pool in (("X", TENSORS), ("Y", TENSORS), ("S", SCALARS), ("D", DIMS)):
        while re.search(rf"\b{key}\b", out):
            out = re.sub(rf"\b{key}\b", f"({rng.choice(pool)})", out, count=1) if key in "XY" else \
                re.sub(rf"\b{key}\b", rng.choice(pool), out, count=1)
    return out


def cases(seed=0, n=1000, families=None):
    """``n`` (family, expression) pairs drawn with ``seed`` from ``families`` (default ``FAMILIES``); the same
    arguments give the same cases."""
    families = FAMILIES if families is None else families
    rng = random.Random(seed)
    fams = sorted(families)
    out = []
    for _ in range(n):
        fam = rng.choice(fams)
        out.append((fam, _fill(rng.choice(families[fam]), rng)))
    return out


def _eval(lib, code):
    lib.manual_seed(0)  # (the random creation ops: torchlike draws torch's streams)
    with warnings.catch_warnings():  # (deprecations both libraries warn of are not what is compared)
        warnings.simplefilter("ignore")
        try:
            return "ok", eval(code, {"t": lib, "np": np})  # noqa: S307 - the fuzzer's own expressions
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return "raise", e


def _flatten(r):
    if isinstance(r, (tuple, list)):
        return [x for item in r for x in _flatten(item)]
    return [r]


def _as_np(x):
    if x.dtype in (torch.bfloat16,):
        x = x.float()
    return x.detach().resolve_conj().resolve_neg().numpy() if x.is_complex() else x.detach().numpy()


def _compare(ours, theirs):
    """None when torchlike's result equals torch's, else a short reason."""
    a, b = _flatten(ours), _flatten(theirs)
    if len(a) != len(b):
        return f"{len(a)} results, torch {len(b)}"
    for x, y in zip(a, b):
        if isinstance(y, torch.Tensor):
            if not isinstance(x, torchlike.Tensor):
                return f"returned {type(x).__name__}, torch a Tensor"
            if str(x.dtype) != str(y.dtype):
                return f"dtype {x.dtype}, torch {y.dtype}"
            if tuple(x.shape) != tuple(y.shape):
                return f"shape {tuple(x.shape)}, torch {tuple(y.shape)}"
            if y.dtype in (torch.float16, torch.bfloat16):
                x, y = x.float(), y.float()
            xa = np.asarray(x.detach()._value)
            ya = y.detach().resolve_conj().resolve_neg().numpy()
            if x.dtype is torchlike.bool or xa.dtype.kind in "iub":
                same = xa.shape == ya.shape and bool((xa == ya).all())
            else:
                same = np.allclose(xa, ya, rtol=1e-4, atol=1e-5, equal_nan=True)
            if not same:
                return f"values {xa.ravel()[:6]}, torch {ya.ravel()[:6]}"
        elif isinstance(y, torch.dtype) or isinstance(x, torchlike.Tensor):
            if str(x) != str(y):
                return f"{x!r}, torch {y!r}"
        elif isinstance(y, (int, float, bool, complex)):
            if type(x) is not type(y) or not (x == y or (x != x and y != y)):
                return f"{x!r}, torch {y!r}"
    return None


def run_case(code):
    """(kind, detail) of one expression: kind is "ok" (same outcome), "value" (both succeed, results
    differ), "jax" (torchlike raised a JAX/XLA type or text), "type" (torch raised, torchlike raised another
    type), "message" (same type, another message), "missing_error" (torch raised, torchlike did not),
    "extra_error" (torchlike raised, torch did not)."""
    ks, rs = _eval(torch, code)
    kl, rl = _eval(torchlike, code)
    if kl == "raise":
        mod = type(rl).__module__.split(".")[0]
        if mod in ("jax", "jaxlib", "numpy") or _JAX_TEXT.search(str(rl)):
            return "jax", f"{type(rl).__module__}.{type(rl).__name__}: {str(rl)[:200]}"
    if ks == "raise" and kl == "raise":
        te, tl_ = type(rs), type(rl)
        same = tl_ is te if te.__module__ == "builtins" else tl_.__name__ == te.__name__
        if not same:
            return "type", f"{tl_.__name__}: {str(rl)[:150]} | torch {te.__name__}: {str(rs)[:150]}"
        if str(rl).split("\n")[0] != str(rs).split("\n")[0]:
            return "message", f"{str(rl)[:150]} | torch: {str(rs)[:150]}"
        return "ok", ""
    if ks == "raise":
        return "missing_error", f"torch {type(rs).__name__}: {str(rs)[:150]}"
    if kl == "raise":
        return "extra_error", f"{type(rl).__name__}: {str(rl)[:200]}"
    try:
        why = _compare(rl, rs)
    except Exception as e:  # noqa: BLE001 - reading torchlike's result failed: a mismatch
        why = f"reading the result raised {type(e).__name__}: {e}"
    return ("value", why) if why else ("ok", "")


def report(seed=0, n=1000, families=None):
    """{kind: [(family, expression, detail)]} over ``cases(seed, n, families)``."""
    out = {}
    for fam, code in cases(seed, n, families):
        kind, detail = run_case(code)
        out.setdefault(kind, []).append((fam, code, detail))
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rep = report(seed, n, EXTRA_FAMILIES if "extra" in sys.argv[3:] else None)
    for kind in sorted(rep):
        print(kind, len(rep[kind]))
    for kind in sorted(rep):
        if kind == "ok":
            continue
        for fam, code, detail in rep[kind]:
            print(f"[{kind}] {fam}: {code}\n    {detail}")
