"""torch.optim.LBFGS: limited-memory BFGS on the parameters seen as one flat real vector.

Each outer iteration (Nocedal & Wright, Numerical Optimization, 2nd ed.):

1. store the newest curvature pair ``s = x_k - x_{k-1}``, ``y = g_k - g_{k-1}`` when ``y.s > 1e-10``
   (keeping the last ``history_size``), with ``rho = 1 / y.s`` and the initial scaling
   ``gamma = y.s / y.y``;
2. direction ``d = -H g`` by the two-loop recursion (Alg. 7.4);
3. step length ``t``: fixed (``lr``; the first iteration uses ``min(1, 1/|g|_1) lr``) or a strong-Wolfe
   line search (Alg. 3.5 bracketing + Alg. 3.6 zoom, cubic interpolation, eq. 3.59);
4. ``x += t d`` and stop on: the iteration / evaluation budget, ``max|g| <= tolerance_grad``,
   ``max|t d| <= tolerance_change`` or a loss change below ``tolerance_change``.

The arithmetic runs on JAX arrays; scalars that torch keeps as 0-dim tensors stay 0-dim arrays here
(and become Tensors in ``state``), Python floats stay floats, so ``state`` matches torch's entry for entry.
"""
from __future__ import annotations

from collections import namedtuple

import jax.numpy as jnp

from ..autograd import grad_mode
from ..tensor import Tensor
from .optimizer import Optimizer, _float
from ._lbfgs_torch_helpers import _cubic_interpolate, _strong_wolfe  # noqa: F401 (torch's private names)

__all__ = ["LBFGS"]

# one evaluation of the objective along the search line: step, loss, flat gradient, slope g.d
_Probe = namedtuple("_Probe", "t f g slope")


def _sup(v):
    return jnp.max(jnp.abs(v))


def _cubic_minimizer(p, q, bounds=None):
    """Minimizer of the cubic matching value and slope at probes ``p`` and ``q`` (N&W eq. 3.59),
    clipped to ``bounds`` (default: between the two steps); the midpoint when the cubic has no minimum."""
    a, b = (q, p) if p.t > q.t else (p, q)   # a.t <= b.t
    lo, hi = bounds if bounds is not None else (a.t, b.t)
    d1 = a.slope + b.slope - 3 * (a.f - b.f) / (a.t - b.t)
    disc = d1 ** 2 - a.slope * b.slope
    if not disc >= 0:
        return (lo + hi) / 2.0
    d2 = jnp.sqrt(disc)
    x = b.t - (b.t - a.t) * ((b.slope + d2 - d1) / (b.slope - a.slope + 2 * d2))
    return min(max(x, lo), hi)


def _wolfe_line_search(probe_at, start, t, gtd, d_sup, max_ls, c1=1e-4, c2=0.9, tolerance_change=1e-9):
    """Strong-Wolfe step along ``d``: ``probe_at(t)`` evaluates the objective there, ``start`` is the
    probe at ``t = 0``, ``d_sup = max|d|`` converts step widths into parameter changes. (Like torch,
    LBFGS does not pass its own ``tolerance_change`` here.) Returns (accepted probe, number of evaluations)."""

    def sufficient_decrease(pr):
        return not pr.f > start.f + c1 * pr.t * gtd

    def curvature_ok(pr):
        return abs(pr.slope) <= -c2 * gtd

    # Alg. 3.5: walk outwards until an interval [lo, hi] is known to hold an acceptable step
    prev, cur = start, probe_at(t)
    evals, tries, found = 1, 0, False
    pair = None
    while tries < max_ls:
        if not sufficient_decrease(cur) or (tries > 1 and cur.f >= prev.f):
            pair = [prev, cur]
            break
        if curvature_ok(cur):
            pair, found = [cur], True
            break
        if cur.slope >= 0:
            pair = [prev, cur]
            break
        # extrapolate: between 1.01x and 10x the current step
        nxt = _cubic_minimizer(prev, cur, bounds=(cur.t + 0.01 * (cur.t - prev.t), cur.t * 10))
        prev, cur = cur, probe_at(nxt)
        evals += 1
        tries += 1
    if tries == max_ls:   # budget spent while extrapolating
        pair = [start, cur]

    # Alg. 3.6: shrink the interval; `best` indexes the end with the lower loss
    best = 0 if pair[0].f <= pair[-1].f else 1
    stalled = False
    while not found and tries < max_ls:
        if abs(pair[1].t - pair[0].t) * d_sup < tolerance_change:
            break
        t = _cubic_minimizer(pair[0], pair[1])
        ts = [pair[0].t, pair[1].t]
        top, bottom = max(ts), min(ts)
        margin = 0.1 * (top - bottom)
        # keep the trial step at least `margin` inside the interval when it stalls next to an end
        if min(top - t, t - bottom) < margin:
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        trial = probe_at(t)
        evals += 1
        tries += 1
        worst = 1 - best
        if not sufficient_decrease(trial) or trial.f >= pair[best].f:
            pair[worst] = trial
            best = 0 if pair[0].f <= pair[1].f else 1
            continue
        if curvature_ok(trial):
            found = True
        elif trial.slope * (pair[worst].t - pair[best].t) >= 0:
            pair[worst] = pair[best]
        pair[best] = trial
    return pair[best], evals


def _two_loop(grad, pairs, gamma, alphas):
    """``-H grad`` for the L-BFGS inverse Hessian ``H`` (N&W Alg. 7.4). ``pairs`` is the history
    ``(s, y, rho)``, oldest first; ``alphas`` is filled in place (its older entries stay, as in torch)."""
    q = -grad
    for i in reversed(range(len(pairs))):
        s, y, rho = pairs[i]
        alphas[i] = jnp.dot(s, q) * rho
        q = q - alphas[i] * y
    r = q * gamma
    for i, (s, y, rho) in enumerate(pairs):
        beta = jnp.dot(y, r) * rho
        r = r + (alphas[i] - beta) * s
    return r


def _raw(x):
    """A state value as JAX data (state may hold Tensors, e.g. after load_state_dict)."""
    if isinstance(x, list):
        return [_raw(v) for v in x]
    return x._value if isinstance(x, Tensor) else x


def _boxed(x):
    """The inverse of _raw for storing: arrays become Tensors, numbers stay numbers."""
    if isinstance(x, list):
        return [_boxed(v) for v in x]
    return Tensor._wrap(x) if isinstance(x, jnp.ndarray) and not isinstance(x, Tensor) else x


# state entries carried from one step() call to the next, in the order torch stores them
_CARRIED = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


class LBFGS(Optimizer):
    """L-BFGS with optional strong-Wolfe line search (one parameter group; ``step`` needs a closure).

    >>> import torchlike as torch
    >>> x = torch.tensor([3.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.LBFGS([x], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad(); loss = ((x - 1) ** 2).sum(); loss.backward(); return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 4) for v in x.tolist()]
    [1.0, 1.0]
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one real vector (complex entries as (re, im) pairs)
    def _flat_grad(self):
        parts = []
        for p in self._params:
            g = jnp.zeros(p._value.size, p._value.dtype) if p.grad is None else p.grad._value.reshape(-1)
            if jnp.iscomplexobj(g):
                g = jnp.stack([g.real, g.imag], -1).reshape(-1)
            parts.append(g)
        return jnp.concatenate(parts)

    def _move(self, t, direction):
        """x += t * direction."""
        at = 0
        for p in self._params:
            x = p._value
            if jnp.iscomplexobj(x):
                chunk = direction[at:at + 2 * x.size].reshape(x.shape + (2,))
                chunk, at = (chunk[..., 0] + 1j * chunk[..., 1]).astype(x.dtype), at + 2 * x.size
            else:
                chunk, at = direction[at:at + x.size].reshape(x.shape), at + x.size
            p._set_value(x + jnp.asarray(t, x.real.dtype) * chunk)

    def _line_probe(self, closure, d):
        """``probe(t)``: loss and gradient at ``x + t d``, leaving the parameters at ``x``."""
        home = [p._value for p in self._params]

        def probe(t):
            self._move(t, d)
            f = float(closure())
            g = self._flat_grad()
            for p, v in zip(self._params, home):
                p._set_value(v)
            return _Probe(t, f, g, jnp.dot(g, d))

        return probe

    def step(self, closure):
        """One L-BFGS run of up to ``max_iter`` iterations; ``closure`` re-evaluates and returns the loss."""
        def evaluate():
            with grad_mode.enable_grad():
                return closure()

        with grad_mode.no_grad():
            return self._minimize(evaluate)

    def _minimize(self, evaluate):
        hp = self.param_groups[0]
        lr = hp["lr"]
        lr = lr._value.reshape(()) if isinstance(lr, Tensor) else lr   # a Tensor lr makes t a 0-dim array
        budget, history = hp["max_eval"], hp["history_size"]
        tol_grad, tol_change = hp["tolerance_grad"], hp["tolerance_change"]
        st = self.state[self._params[0]]
        st.setdefault("func_evals", 0)
        st.setdefault("n_iter", 0)

        first_loss = evaluate()
        loss, evals = float(first_loss), 1
        st["func_evals"] += 1
        grad = self._flat_grad()
        if _sup(grad) <= tol_grad:
            return first_loss

        mem = {k: _raw(st.get(k)) for k in _CARRIED}
        d, t, gamma = mem["d"], mem["t"], mem["H_diag"]
        prev_grad, prev_loss = mem["prev_flat_grad"], mem["prev_loss"]
        pairs = None if mem["old_dirs"] is None else list(zip(mem["old_stps"], mem["old_dirs"], mem["ro"]))
        alphas = _raw(st.get("al"))
        it, converged = 0, False
        while it < hp["max_iter"]:
            it += 1
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                d, pairs, gamma = -grad, [], 1
            else:
                y, s = grad - prev_grad, d * t
                ys = jnp.dot(y, s)
                if ys > 1e-10:
                    if len(pairs) == history:
                        pairs.pop(0)   # forget the oldest pair
                    pairs.append((s, y, 1.0 / ys))
                    gamma = ys / jnp.dot(y, y)
                if alphas is None:
                    alphas = [None] * history
                    st["al"] = None   # torch adds "al" to the state at this moment: same key order
                d = _two_loop(grad, pairs, gamma, alphas)
            prev_grad, prev_loss = grad, loss
            t = min(1.0, 1.0 / jnp.sum(jnp.abs(grad))) * lr if st["n_iter"] == 1 else lr
            gtd = jnp.dot(grad, d)
            if gtd > -tol_change:   # not a descent direction
                break

            used = 0
            if hp["line_search_fn"] is not None:
                if hp["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                probe = self._line_probe(evaluate, d)
                hit, used = _wolfe_line_search(probe, _Probe(0, loss, grad, gtd), t, gtd, _sup(d),
                                               max_ls=budget - evals)
                t, loss, grad = hit.t, hit.f, hit.g
                self._move(t, d)
                converged = _sup(grad) <= tol_grad
            else:
                self._move(t, d)
                if it != hp["max_iter"]:   # the last iteration's point is not evaluated
                    loss = float(evaluate())
                    grad = self._flat_grad()
                    converged = _sup(grad) <= tol_grad
                    used = 1
            evals += used
            st["func_evals"] += used

            if (it == hp["max_iter"] or evals >= budget or converged or _sup(d * t) <= tol_change
                    or abs(loss - prev_loss) < tol_change):
                break

        if pairs is None:   # no iteration ever ran (max_iter == 0)
            s_hist = y_hist = rhos = None
        else:
            s_hist, y_hist, rhos = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
        mem = dict(d=d, t=t, old_dirs=y_hist, old_stps=s_hist, ro=rhos, H_diag=gamma, prev_flat_grad=prev_grad,
                   prev_loss=prev_loss)
        for k in _CARRIED:
            st[k] = _boxed(mem[k])
        if alphas is not None:
            st["al"] = _boxed(alphas)
        return first_loss
