"""torch-einops-utils: masked reductions, padding/shifting/slicing at a dim, masks from lengths, pack_with_inverse,
batched_index_select, pytree helpers, z_score/entropy/slerp, the numerically stable softmax / cross-entropy / KL
family (custom autograd.Functions with ctx.needs_input_grad) with their gradients, shape patterns, nn helpers and
the save_load decorator round trip through torch.save/torch.load."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_einops_utils as teu
from torch_einops_utils.nn import Residual, count_parameters
from torch_einops_utils.save_load import save_load
from torch_einops_utils.shape import assert_shape, is_shape, shape, size


def show(name, t):
    if isinstance(t, (tuple, list)):
        for i, e in enumerate(t):
            show(f"{name}[{i}]", e)
        return
    if not torch.is_tensor(t):
        print(name, repr(t))
        return
    t = t.detach()
    flat = " ".join(f"{v:.4f}" for v in t.double().flatten()[:8].tolist())
    print(name, tuple(t.shape), str(t.dtype).split(".")[-1], flat)


torch.manual_seed(0)
x = torch.randn(2, 5, 3)
mask = torch.tensor([[True, True, False, True, False], [False, True, True, True, True]])
show("masked_mean", teu.masked_mean(x, mask=mask, dim=1))
show("masked_mean_all", teu.masked_mean(x, mask=mask))
show("masked_sum_keep", teu.masked_sum(x, mask=mask, dim=slice(1, None), keepdim=True))
show("masked_none", teu.masked_reduce(x, mode="none", mask=mask.float() * 0.5))
show("masked_nomask", teu.masked_mean(x, dim=(0, 2)))
show("exclusive_cumsum", teu.exclusive_cumsum(x, dim=1))
show("reverse_cumsum", teu.reverse_cumsum(x))
print("shape_with_replace", teu.shape_with_replace(x, {1: 7}))
show("slice_at_dim", teu.slice_at_dim(x, slice(1, 4), dim=1))
show("slice_left", teu.slice_left_at_dim(x, 2, dim=-2))
show("slice_right0", teu.slice_right_at_dim(x, 0))
show("pad_ndim", teu.pad_ndim(x, (1, 2)))
show("pad_left_ndim_to", teu.pad_left_ndim_to(x, 5))
show("align_dims_left", teu.align_dims_left((x, x[:, 0], torch.ones(2))))
show("safe_stack", teu.safe_stack([None, x[0], None, x[1]], dim=1))
print("safe_stack_empty", teu.safe_stack([None, None]))
show("safe_cat", teu.safe_cat([x, None, x], dim=2))
lens = torch.tensor([2, 5, 0, 3])
show("lens_to_mask", teu.lens_to_mask(lens))
show("lens_to_mask_max", teu.lens_to_mask(lens, max_len=6))
show("and_masks", teu.and_masks([mask, mask.flip(1), None]))
show("or_masks", teu.or_masks([mask, mask.flip(1)]))
tok = torch.tensor([[3, 1, 4, 0, 5, 9], [0, 2, 6, 5, 3, 5]])
show("mask_after", teu.mask_after(tok, 0))
show("mask_after_excl", teu.mask_after(tok, 0, inclusive=False))
show("mask_before", teu.mask_before(tok, 5))
show("pad_at_dim", teu.pad_at_dim(x, (1, 2), dim=1, value=-1.0))
show("pad_left_at_dim_to", teu.pad_left_at_dim_to(x, 4, dim=0))
show("pad_right_at_dim_to", teu.pad_right_at_dim_to(x, 2, dim=0))
padded, inverse = teu.pad_at_dim_to_multiple(x, 4, dim=1)
show("pad_to_multiple", padded)
show("pad_to_multiple_inverse", inverse(padded))
out = teu.pad_at_dim_to_multiple(x, 4, dim=1, left=True, return_all=True)
show("pad_to_multiple_left", out.padded)
show("pad_to_multiple_mask", out.mask)
print("pad_to_multiple_fields", out.pad_len, out.did_pad)
show("shift_right", teu.shift_right(tok, 2, pad_value=-1))
show("shift_left", teu.shift_left(x, 1, dim=1))
seqs = [torch.randn(3, 2), torch.randn(5, 2), torch.randn(1, 2)]
show("pad_sequence", teu.pad_sequence(seqs, dim=0, return_lens=True))
show("pad_sequence_left", teu.pad_sequence(seqs, dim=0, left=True, value=9.0, return_lens=True, pad_lens=True))
show("pad_sequence_and_cat", teu.pad_sequence_and_cat([s.t() for s in seqs], dim_cat=0))
flat, unflatten = teu.tree_flatten_with_inverse({"a": x, "b": [lens, 3]})
print("tree_flatten", len(flat), sorted(unflatten([f for f in flat]).keys()))
show("tree_map_tensor", teu.tree_map_tensor(lambda t: t * 2, (lens, "s", [tok[0]])))
packed, unpack = teu.pack_with_inverse([x, x[:, :, 0]], "b *")
show("pack", packed)
show("unpack", unpack(packed * 2))
packed1, unpack1 = teu.pack_with_inverse(x, "b * d")
show("pack_one", unpack1(packed1 + 1))
idx = torch.tensor([[4, 0], [1, 1]])
show("batched_index_select", teu.batched_index_select(x, idx, dim=1))
show("pad_right_ndim_to_and_expand_as", teu.pad_right_ndim_to_and_expand_as(lens, torch.zeros(4, 2, 3)))
show("repeat_interleave_to_match", teu.repeat_interleave_to_match(x, 6, dim=0))
g = torch.randn(3, requires_grad=True)
d = teu.detach_tensor(g, preserve_requires_grad=True, clone=True)
print("detach", d.requires_grad, d.grad_fn is None, d.is_leaf)
print("tree_map_detach", [t.requires_grad for t in teu.tree_map_detach([g * 2, g])])
show("cast_tensor", teu.cast_tensor([1, 2, 3], dtype=torch.float16))
show("cast_tensor_int", teu.cast_tensor(7))
print("cast_item", teu.cast_item(torch.tensor(2.5)), teu.cast_item(4))
show("clamp", teu.clamp(x, -0.5, 0.5))
y = x.clone()
teu.clamp(y, lo=0.0, inplace=True)
show("clamp_", y)
print("clamp_num", teu.clamp(3.5, hi=2))
show("z_score", teu.z_score(x, dim=1))
zs, stats = teu.z_score(x, mask=mask, dim=1, return_stats=True)
show("z_score_masked", zs)
show("z_score_stats", tuple(stats))
show("entropy_logits", teu.entropy(logits=x, reduce=False))
show("entropy_prob", teu.entropy(x.softmax(-1), mask=mask))
show("slerp", teu.slerp(torch.randn(4, 3), torch.randn(4, 3), torch.tensor([0.0, 0.3, 0.6, 1.0])))
show("slerp_scalar", teu.slerp(torch.randn(2, 3), torch.randn(2, 3), 0.5, normalize=False))

logits = torch.randn(4, 6) * 3
logits[0, 2] = 40.0
target = torch.tensor([2, 0, -100, 5])
show("log_softmax", teu.log_softmax(logits))
show("softmax", teu.softmax(logits))
for red in ("mean", "sum", "none"):
    show(f"cross_entropy_{red}", teu.cross_entropy(logits, target, reduction=red))
show("cross_entropy_vs_F", teu.cross_entropy(logits, target) - F.cross_entropy(logits, target))
show("cross_entropy_class_dim", teu.cross_entropy(logits.view(2, 2, 6).transpose(1, 2), target.view(2, 2)))
bt = torch.tensor([[1.0, 0.0, 0.3], [0.0, 1.0, 0.5]])
show("bce", teu.binary_cross_entropy_with_logits(logits[:2, :3], bt, reduction="none"))

zs_ = torch.randn(3, 4, 5, requires_grad=True)
zt_ = torch.randn(3, 4, 5)
tmask = torch.tensor([[1, 1, 0, 1], [1, 0, 0, 0], [1, 1, 1, 1]])
loss = teu.soft_target_cross_entropy_from_logits(zs_, zt_, mask=tmask, reduction="mean")
loss.backward()
show("soft_ce_logits", loss)
show("soft_ce_logits_grad", zs_.grad)
probs = torch.tensor([[0.5, 0.5, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4, 0.0]])
zs2 = torch.randn(3, 5, requires_grad=True)
loss = teu.soft_target_cross_entropy(zs2, probs, reduction="sum")
loss.backward()
show("soft_ce_probs", loss)
show("soft_ce_probs_grad", zs2.grad)
zp = torch.randn(4, 5, requires_grad=True)
zq = torch.randn(4, 5, requires_grad=True)
kl = teu.categorical_kl(zp, zq)
kl.sum().backward()
show("categorical_kl", kl)
show("categorical_kl_grad_p", zp.grad)
show("categorical_kl_grad_q", zq.grad)
zq2 = torch.randn(4, 5, requires_grad=True)
teu.categorical_kl(zp.detach(), zq2).sum().backward()
show("categorical_kl_q_only", zq2.grad)
a = torch.randn(6, requires_grad=True)
b = torch.randn(6, requires_grad=True)
bk = teu.bernoulli_kl(a, b)
bk.sum().backward()
show("bernoulli_kl", bk)
show("bernoulli_kl_grads", (a.grad, b.grad))
s1 = torch.randn(5, requires_grad=True)
sbce = teu.soft_target_binary_cross_entropy(s1, torch.randn(5), reduction="mean")
sbce.backward()
show("soft_bce", sbce)
show("soft_bce_grad", s1.grad)

ps = shape(x, "b n d")
print("shape", ps.b, ps.n, ps.d, int(size(x, "b [n] d")), is_shape(x, "b n"), is_shape(x, "... d", d=3))
assert_shape(x, "b n d", d=3)
assert_shape([(x, "b n d"), (mask, "b n")])
try:
    assert_shape([(x, "b n d"), (tok, "b n")])
    print("assert_shape passed")
except AssertionError as e:
    print("assert_shape", type(e).__name__)


@count_parameters
@save_load(version="1.0")
class Net(nn.Module):
    def __init__(self, dim, hidden=8, residual=True):
        super().__init__()
        body = teu.Sequential(nn.Linear(dim, hidden), None, nn.SiLU(), teu.Lambda(lambda t: t * 0.5),
                              nn.Linear(hidden, dim), teu.Identity())
        self.net = Residual(body) if residual else body
        self.drop = nn.Dropout(0.5)

    def forward(self, t):
        return self.drop(self.net(t))

    @teu.temp_eval
    def predict(self, t):
        return self.drop(self.net(t)), self.training


torch.manual_seed(2)
net = Net(3, hidden=6)
print("num_parameters", net.num_parameters, count_parameters(net, requires_grad=True))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = teu.masked_mean((net(x) - 1) ** 2, mask=mask)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
pred, was_training = net.predict(x)
show("predict", pred)
print("predict training", was_training, net.training)
with teu.temp_eval(net):
    print("temp_eval", net.training)
print("after temp_eval", net.training)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "net.pt")
    net.save(path)
    net2 = Net.init_and_load(path)
    show("reloaded", net2.net.fn[0].weight)
    net3 = Net(3, hidden=6)
    net3.load(path)
    print("reload_equal", torch.equal(net3.net.fn[3].weight, net.net.fn[3].weight), net2._config)
