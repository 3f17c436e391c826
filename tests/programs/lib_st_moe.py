"""st-moe-pytorch (lucidrains): ST-MoE sparse mixture of experts: top-n gating with capacity limits (cumsum
positions, one-hot dispatch and combine tensors, straight-through dispatch), stochastic routing to the second
expert, Gumbel-noised gates, the load-balancing and router z-losses, GEGLU experts, and the SparseMoEBlock with
feed-forwards around it. Trained with Adam on a seeded regression, eval-mode capacity, differentiable top-k
routing through CoLT5's coordinate descent, expert utilisation, and a state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from st_moe_pytorch import MoE, SparseMoEBlock


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
x = torch.randn(2, 16, 12)
target = torch.sin(x.sum(-1, keepdim=True)) * x

torch.manual_seed(1)
block = SparseMoEBlock(MoE(dim=12, num_experts=4, expert_hidden_mult=2, gating_top_n=2, threshold_train=0.2,
                           capacity_factor_train=1.25, capacity_factor_eval=2.0, balance_loss_coef=1e-2,
                           router_z_loss_coef=1e-3), add_ff_before=True, add_ff_after=True)
print("params", sum(p.numel() for p in block.parameters()), len(block.moe.experts.experts))
opt = torch.optim.Adam(block.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    out, aux, balance, z = block(x, noise_gates=step % 2 == 0)
    loss = F.mse_loss(out, target) + aux
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss), r(balance), r(z))
print("gate grad", r(block.moe.gate.to_gates.weight.grad.norm()),
      [r(e.net[0].weight.grad.norm() if e.net[0].weight.grad is not None else torch.tensor(0.0))
       for e in block.moe.experts.experts])

# dispatch: how many token slots each expert receives, in training and eval capacity
gate = block.moe.gate
torch.manual_seed(2)
dispatch, combine, _, _ = gate(x)
print("dispatch train", tuple(dispatch.shape), dispatch.detach().sum(dim=(1, 3)).tolist(), r(combine.sum()))
block.eval()
dispatch, combine, balance, z = gate(x)
print("dispatch eval", tuple(dispatch.shape), dispatch.sum(dim=(1, 3)).tolist(), r(balance), r(z))
with torch.no_grad():
    out, aux, _, _ = block(x)
print("eval out", r(out[0, 0, :4]), r(aux), r(F.mse_loss(out, target)))

# plain MoE with three experts per token and differentiable top-k (coordinate descent)
torch.manual_seed(3)
moe = MoE(dim=8, num_experts=6, gating_top_n=3, threshold_train=(0.2, 0.1), differentiable_topk=True,
          differentiable_topk_fused=False, straight_through_dispatch_tensor=False)
xm = torch.randn(3, 10, 8, requires_grad=True)
om, aux, balance, z = moe(xm)
(om.pow(2).mean() + aux).backward()
print("top3", r(om[0, 0, :3]), r(aux), r(xm.grad.norm()), r(moe.gate.to_gates.weight.grad.norm()))

buf = io.BytesIO()
torch.save(block.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = SparseMoEBlock(MoE(dim=12, num_experts=4, expert_hidden_mult=2), add_ff_before=True, add_ff_after=True)
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone(x).outputs, out, atol=1e-6), sorted(clone.moe.gate.state_dict()))
