"""torchcfm (conditional flow matching): the README's 8-Gaussians-to-moons example, shrunk.  The probability
paths of ConditionalFlowMatcher, TargetConditionalFlowMatcher, VariancePreservingConditionalFlowMatcher,
ExactOptimalTransportConditionalFlowMatcher and SchrodingerBridgeConditionalFlowMatcher (the last two through
POT's exact solver on torch.cdist costs); minibatch OT plans and the Wasserstein distance; an MLP vector field
trained a few Adam steps with CFM and with OT-CFM; sampling by integrating the learned field with torchdiffeq
(dopri5 and rk4) and with torchdyn's NeuralODE; a state-dict round trip.  Prints one line per measurement; run
the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import io

import numpy as np
import torch
from torchdiffeq import odeint
from torchdyn.core import NeuralODE

from torchcfm.conditional_flow_matching import (
    ConditionalFlowMatcher,
    ExactOptimalTransportConditionalFlowMatcher,
    SchrodingerBridgeConditionalFlowMatcher,
    TargetConditionalFlowMatcher,
    VariancePreservingConditionalFlowMatcher,
)
from torchcfm.models.models import MLP
from torchcfm.models.unet.unet import UNetModelWrapper
from torchcfm.optimal_transport import OTPlanSampler, wasserstein
from torchcfm.utils import sample_8gaussians, sample_moons, torch_wrapper


def r(values, n=4):
    return [round(float(v), n) + 0.0 for v in torch.as_tensor(values).detach().flatten()]


def stats(x, n=4):
    return r([x.mean(), x.std(), x.abs().max()], n)


torch.manual_seed(0)
np.random.seed(0)
x0 = sample_8gaussians(64)
x1 = sample_moons(64)
print("samples", tuple(x0.shape), x0.dtype, stats(x0), tuple(x1.shape), x1.dtype, stats(x1))

# probability paths at fixed times (the noise comes from torch.randn_like)
t = torch.linspace(0.05, 0.95, 64)
for fm in (ConditionalFlowMatcher(sigma=0.0), ConditionalFlowMatcher(sigma=0.1),
           TargetConditionalFlowMatcher(sigma=0.05), VariancePreservingConditionalFlowMatcher(sigma=0.1)):
    torch.manual_seed(1)
    tt, xt, ut, eps = fm.sample_location_and_conditional_flow(x0, x1, t=t, return_noise=True)
    print(type(fm).__name__, fm.sigma, stats(xt), stats(ut), r(fm.compute_sigma_t(t[:3])), r(eps.std()))

# minibatch optimal transport (POT's exact network simplex on squared torch.cdist costs)
ot = OTPlanSampler(method="exact")
plan = ot.get_map(x0, x1)
print("plan", plan.shape, round(float(plan.sum()), 6), int((plan > 1e-9).sum()))
np.random.seed(1)
a, b = ot.sample_plan(x0, x1)
print("ot pairs", tuple(a.shape), r(((a - b) ** 2).sum(1).mean(), 3), r(((x0 - x1) ** 2).sum(1).mean(), 3))
print("wasserstein", round(wasserstein(x0, x1), 4), round(wasserstein(x0, x1, power=1), 4))
sink = OTPlanSampler(method="sinkhorn", reg=0.5)
print("sinkhorn plan", round(float(sink.get_map(x0, x1).sum()), 4))

torch.manual_seed(2)
np.random.seed(2)
tt, xt, ut = ExactOptimalTransportConditionalFlowMatcher(sigma=0.0).sample_location_and_conditional_flow(x0, x1)
print("otcfm", r(tt.mean()), stats(xt, 3), stats(ut, 3))
sb = SchrodingerBridgeConditionalFlowMatcher(sigma=0.5, ot_method="exact")
tt, xt, ut = sb.sample_location_and_conditional_flow(x0, x1, t=t)
print("sbcfm", stats(xt, 3), stats(ut, 3), r(sb.compute_lambda(t[:2])))
labels0, labels1 = torch.arange(64) % 8, torch.arange(64) % 2
np.random.seed(3)
tt, xt, ut, y0, y1 = ExactOptimalTransportConditionalFlowMatcher().guided_sample_location_and_conditional_flow(
    x0, x1, y0=labels0, y1=labels1, t=t)
print("guided", stats(xt, 3), y0.dtype, int(y0.sum()), int(y1.sum()))
np.random.seed(4)
paths = ot.sample_trajectory(torch.stack([x0[:16], x1[:16], x0[16:32]], dim=1))
print("ot trajectory", paths.shape, round(float(np.abs(paths).sum()), 3))


# training a vector field v(x, t) (the README's loop), with CFM and with OT-CFM
def train(fm, seed, steps=12, batch=64):
    torch.manual_seed(seed)
    np.random.seed(seed)
    model = MLP(dim=2, w=32, time_varying=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        x0, x1 = sample_8gaussians(batch), sample_moons(batch)
        t, xt, ut = fm.sample_location_and_conditional_flow(x0, x1)
        vt = model(torch.cat([xt, t[:, None]], dim=-1))
        loss = torch.mean((vt - ut) ** 2)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses


model, losses = train(ConditionalFlowMatcher(sigma=0.1), seed=3)
print("cfm losses", r(losses[::3], 3), "params", sum(p.numel() for p in model.parameters()))
ot_model, ot_losses = train(ExactOptimalTransportConditionalFlowMatcher(sigma=0.0), seed=4)
print("otcfm losses", r(ot_losses[::3], 3))

# sampling: integrate the learned field from noise to data
torch.manual_seed(5)
start = sample_8gaussians(32)
with torch.no_grad():
    ts = torch.linspace(0, 1, 5)
    rk4 = odeint(torch_wrapper(model), start, ts, method="rk4", options=dict(step_size=0.05))
    dopri = odeint(torch_wrapper(model), start, ts, method="dopri5", atol=1e-5, rtol=1e-5)
    print("odeint rk4", tuple(rk4.shape), stats(rk4[-1]), "dopri5", stats(dopri[-1], 3))
    node = NeuralODE(torch_wrapper(ot_model), solver="dopri5", sensitivity="adjoint", atol=1e-4, rtol=1e-4)
    traj = node.trajectory(start, t_span=ts)
    print("torchdyn trajectory", tuple(traj.shape), stats(traj[-1], 3))

# the class-conditional image UNet (GroupNorm, scale-shift time embedding, attention, resampling blocks): one CFM
# training step on 8x8 images
torch.manual_seed(6)
unet = UNetModelWrapper(dim=(1, 8, 8), num_channels=32, num_res_blocks=1, channel_mult=(1, 2), class_cond=True,
                        num_classes=3, attention_resolutions="4", num_heads=2, use_scale_shift_norm=True,
                        resblock_updown=True)
images, noise = torch.randn(4, 1, 8, 8).tanh(), torch.randn(4, 1, 8, 8)
classes = torch.tensor([0, 1, 2, 1])
optimizer = torch.optim.Adam(unet.parameters(), lr=1e-3)
fm = ConditionalFlowMatcher(sigma=0.0)
for step in range(2):
    tt, xt, ut = fm.sample_location_and_conditional_flow(noise, images)
    loss = torch.mean((unet(tt, xt, y=classes) - ut) ** 2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("unet step", step, round(loss.item(), 4), "params", sum(p.numel() for p in unet.parameters()))

buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
again = MLP(dim=2, w=32, time_varying=True)
again.load_state_dict(torch.load(buffer))
probe = torch.cat([start[:4], torch.full((4, 1), 0.5)], dim=-1)
print("reload", list(again.state_dict())[:2], bool(torch.equal(again(probe), model(probe))))
