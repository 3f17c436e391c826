"""Three generative / continuous-depth papers' reference idioms (own code, synthetic data, no downloads).

Glow after rosinality/glow-pytorch model.py and train.py: ActNorm with a uint8 ``initialized`` buffer and the
data-dependent init (``permute(1, 0, 2, 3).contiguous().view(C, -1)``, ``loc.data.copy_(-mean)``,
``initialized.fill_(1)``), the invertible 1x1 convolution both plain (``torch.qr`` start, ``torch.slogdet`` of the
double weight) and LU-decomposed (scipy ``la.qr``/``la.lu`` on numpy, ``register_buffer`` masks, ``torch.diag``,
``torch.sign``, ``.inverse()`` for the reverse), the affine coupling with a ZeroConv2d (``F.pad(value=1)``,
``torch.exp(self.scale * 3)``) and ``F.sigmoid(log_s + 2)``, squeeze by ``view``/``permute``, the multi-scale split with
a learned prior and ``gaussian_log_p``, n-bit dequantization with ``torch.floor`` and ``rand_like``, ``calc_loss`` in
bits per dimension, the ``no_grad`` initialisation pass, and the exact reverse.

VQGAN after CompVis/taming-transformers: the VectorQuantizer (distances with ``torch.einsum('bd,dn->bn')``,
``argmin``, one-hot ``scatter_``, ``matmul`` codebook lookup, commitment loss, straight-through
``z + (z_q - z).detach()``, perplexity), the VQLPIPSWithDiscriminator pieces ``calculate_adaptive_weight`` (two
``torch.autograd.grad`` calls on the decoder's last layer with ``retain_graph=True``, ``torch.norm``, ``clamp``),
``adopt_weight`` and ``hinge_d_loss``.

Neural ODE after rtqichen/torchdiffeq examples/ode_demo.py: the spiral ``Lambda`` dynamics, ``get_batch`` with
``np.random.choice`` and ``torch.stack``, ODEFunc on ``y**3`` with an ``nfe`` counter, a fixed-grid RK4 (torchdiffeq's
3/8-rule ``rk4_alt_step_func``), and the adjoint method as a ``torch.autograd.Function`` whose backward integrates
the augmented state backwards with ``torch.autograd.grad(f, (y,) + params, -adj_y, allow_unused=True)`` under
``torch.enable_grad()``; its gradients are checked against direct backpropagation through the solver."""
from math import log, pi

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from scipy import linalg as la

torch.manual_seed(0)
np.random.seed(0)

logabs = lambda x: torch.log(torch.abs(x))  # noqa: E731


# ---------------------------------------------------------------- Glow
class ActNorm(nn.Module):
    def __init__(self, in_channel, logdet=True):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, in_channel, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, in_channel, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))
        self.logdet = logdet

    def initialize(self, input):
        with torch.no_grad():
            flatten = input.permute(1, 0, 2, 3).contiguous().view(input.shape[1], -1)
            mean = (flatten.mean(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3))
            std = (flatten.std(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3))
            self.loc.data.copy_(-mean)
            self.scale.data.copy_(1 / (std + 1e-6))

    def forward(self, input):
        _, _, height, width = input.shape
        if self.initialized.item() == 0:
            self.initialize(input)
            self.initialized.fill_(1)
        log_abs = logabs(self.scale)
        logdet = height * width * torch.sum(log_abs)
        if self.logdet:
            return self.scale * (input + self.loc), logdet
        else:
            return self.scale * (input + self.loc)

    def reverse(self, output):
        return output / self.scale - self.loc


class InvConv2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = torch.randn(in_channel, in_channel)
        q, _ = torch.linalg.qr(weight)
        weight = q.unsqueeze(2).unsqueeze(3)
        self.weight = nn.Parameter(weight)

    def forward(self, input):
        _, _, height, width = input.shape
        out = F.conv2d(input, self.weight)
        logdet = (height * width * torch.slogdet(self.weight.squeeze().double())[1].float())
        return out, logdet

    def reverse(self, output):
        return F.conv2d(output, self.weight.squeeze().inverse().unsqueeze(2).unsqueeze(3))


class InvConv2dLU(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = np.random.randn(in_channel, in_channel)
        q, _ = la.qr(weight)
        w_p, w_l, w_u = la.lu(q.astype(np.float32))
        w_s = np.diag(w_u)
        w_u = np.triu(w_u, 1)
        u_mask = np.triu(np.ones_like(w_u), 1)
        l_mask = u_mask.T
        w_p = torch.from_numpy(w_p.copy())
        w_l = torch.from_numpy(w_l.copy())
        w_s = torch.from_numpy(w_s.copy())
        w_u = torch.from_numpy(w_u.copy())
        self.register_buffer("w_p", w_p)
        self.register_buffer("u_mask", torch.from_numpy(u_mask))
        self.register_buffer("l_mask", torch.from_numpy(l_mask))
        self.register_buffer("s_sign", torch.sign(w_s))
        self.register_buffer("l_eye", torch.eye(l_mask.shape[0]))
        self.w_l = nn.Parameter(w_l)
        self.w_s = nn.Parameter(logabs(w_s))
        self.w_u = nn.Parameter(w_u)

    def forward(self, input):
        _, _, height, width = input.shape
        weight = self.calc_weight()
        out = F.conv2d(input, weight)
        logdet = height * width * torch.sum(self.w_s)
        return out, logdet

    def calc_weight(self):
        weight = (self.w_p @ (self.w_l * self.l_mask + self.l_eye)
                  @ ((self.w_u * self.u_mask) + torch.diag(self.s_sign * torch.exp(self.w_s))))
        return weight.unsqueeze(2).unsqueeze(3)

    def reverse(self, output):
        weight = self.calc_weight()
        return F.conv2d(output, weight.squeeze().inverse().unsqueeze(2).unsqueeze(3))


class ZeroConv2d(nn.Module):
    def __init__(self, in_channel, out_channel, padding=1):
        super().__init__()
        self.conv = nn.Conv2d(in_channel, out_channel, 3, padding=0)
        self.conv.weight.data.zero_()
        self.conv.bias.data.zero_()
        self.scale = nn.Parameter(torch.zeros(1, out_channel, 1, 1))

    def forward(self, input):
        out = F.pad(input, [1, 1, 1, 1], value=1)
        out = self.conv(out)
        out = out * torch.exp(self.scale * 3)
        return out


class AffineCoupling(nn.Module):
    def __init__(self, in_channel, filter_size=16, affine=True):
        super().__init__()
        self.affine = affine
        self.net = nn.Sequential(
            nn.Conv2d(in_channel // 2, filter_size, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(filter_size, filter_size, 1),
            nn.ReLU(inplace=True),
            ZeroConv2d(filter_size, in_channel if self.affine else in_channel // 2),
        )
        self.net[0].weight.data.normal_(0, 0.05)
        self.net[0].bias.data.zero_()
        self.net[2].weight.data.normal_(0, 0.05)
        self.net[2].bias.data.zero_()

    def forward(self, input):
        in_a, in_b = input.chunk(2, 1)
        if self.affine:
            log_s, t = self.net(in_a).chunk(2, 1)
            s = F.sigmoid(log_s + 2)
            out_b = (in_b + t) * s
            logdet = torch.sum(torch.log(s).view(input.shape[0], -1), 1)
        else:
            net_out = self.net(in_a)
            out_b = in_b + net_out
            logdet = None
        return torch.cat([in_a, out_b], 1), logdet

    def reverse(self, output):
        out_a, out_b = output.chunk(2, 1)
        log_s, t = self.net(out_a).chunk(2, 1)
        s = F.sigmoid(log_s + 2)
        in_b = out_b / s - t
        return torch.cat([out_a, in_b], 1)


class Flow(nn.Module):
    def __init__(self, in_channel, affine=True, conv_lu=True):
        super().__init__()
        self.actnorm = ActNorm(in_channel)
        if conv_lu:
            self.invconv = InvConv2dLU(in_channel)
        else:
            self.invconv = InvConv2d(in_channel)
        self.coupling = AffineCoupling(in_channel, affine=affine)

    def forward(self, input):
        out, logdet = self.actnorm(input)
        out, det1 = self.invconv(out)
        out, det2 = self.coupling(out)
        logdet = logdet + det1
        if det2 is not None:
            logdet = logdet + det2
        return out, logdet

    def reverse(self, output):
        input = self.coupling.reverse(output)
        input = self.invconv.reverse(input)
        input = self.actnorm.reverse(input)
        return input


def gaussian_log_p(x, mean, log_sd):
    return -0.5 * log(2 * pi) - log_sd - 0.5 * (x - mean) ** 2 / torch.exp(2 * log_sd)


def gaussian_sample(eps, mean, log_sd):
    return mean + torch.exp(log_sd) * eps


class Block(nn.Module):
    def __init__(self, in_channel, n_flow, split=True, affine=True, conv_lu=True):
        super().__init__()
        squeeze_dim = in_channel * 4
        self.flows = nn.ModuleList()
        for i in range(n_flow):
            self.flows.append(Flow(squeeze_dim, affine=affine, conv_lu=conv_lu))
        self.split = split
        if split:
            self.prior = ZeroConv2d(in_channel * 2, in_channel * 4)
        else:
            self.prior = ZeroConv2d(in_channel * 4, in_channel * 8)

    def forward(self, input):
        b_size, n_channel, height, width = input.shape
        squeezed = input.view(b_size, n_channel, height // 2, 2, width // 2, 2)
        squeezed = squeezed.permute(0, 1, 3, 5, 2, 4)
        out = squeezed.contiguous().view(b_size, n_channel * 4, height // 2, width // 2)
        logdet = 0
        for flow in self.flows:
            out, det = flow(out)
            logdet = logdet + det
        if self.split:
            out, z_new = out.chunk(2, 1)
            mean, log_sd = self.prior(out).chunk(2, 1)
            log_p = gaussian_log_p(z_new, mean, log_sd)
            log_p = log_p.view(b_size, -1).sum(1)
        else:
            zero = torch.zeros_like(out)
            mean, log_sd = self.prior(zero).chunk(2, 1)
            log_p = gaussian_log_p(out, mean, log_sd)
            log_p = log_p.view(b_size, -1).sum(1)
            z_new = out
        return out, logdet, log_p, z_new

    def reverse(self, output, eps=None, reconstruct=False):
        input = output
        if reconstruct:
            if self.split:
                input = torch.cat([output, eps], 1)
            else:
                input = eps
        else:
            if self.split:
                mean, log_sd = self.prior(input).chunk(2, 1)
                z = gaussian_sample(eps, mean, log_sd)
                input = torch.cat([output, z], 1)
            else:
                zero = torch.zeros_like(input)
                mean, log_sd = self.prior(zero).chunk(2, 1)
                z = gaussian_sample(eps, mean, log_sd)
                input = z
        for flow in self.flows[::-1]:
            input = flow.reverse(input)
        b_size, n_channel, height, width = input.shape
        unsqueezed = input.view(b_size, n_channel // 4, 2, 2, height, width)
        unsqueezed = unsqueezed.permute(0, 1, 4, 2, 5, 3)
        unsqueezed = unsqueezed.contiguous().view(b_size, n_channel // 4, height * 2, width * 2)
        return unsqueezed


class Glow(nn.Module):
    def __init__(self, in_channel, n_flow, n_block, affine=True, conv_lu=True):
        super().__init__()
        self.blocks = nn.ModuleList()
        n_channel = in_channel
        for i in range(n_block - 1):
            self.blocks.append(Block(n_channel, n_flow, affine=affine, conv_lu=conv_lu))
            n_channel *= 2
        self.blocks.append(Block(n_channel, n_flow, split=False, affine=affine, conv_lu=False))

    def forward(self, input):
        log_p_sum = 0
        logdet = 0
        out = input
        z_outs = []
        for block in self.blocks:
            out, det, log_p, z_new = block(out)
            z_outs.append(z_new)
            logdet = logdet + det
            if log_p is not None:
                log_p_sum = log_p_sum + log_p
        return log_p_sum, logdet, z_outs

    def reverse(self, z_list, reconstruct=False):
        for i, block in enumerate(self.blocks[::-1]):
            if i == 0:
                input = block.reverse(z_list[-1], z_list[-1], reconstruct=reconstruct)
            else:
                input = block.reverse(input, z_list[-(i + 1)], reconstruct=reconstruct)
        return input


def calc_loss(log_p, logdet, image_size, n_bins):
    n_pixel = image_size * image_size * 3
    loss = -log(n_bins) * n_pixel
    loss = loss + logdet + log_p
    return ((-loss / (log(2) * n_pixel)).mean(), (log_p / (log(2) * n_pixel)).mean(),
            (logdet / (log(2) * n_pixel)).mean())


def calc_z_shapes(n_channel, input_size, n_flow, n_block):
    z_shapes = []
    for i in range(n_block - 1):
        input_size //= 2
        n_channel *= 2
        z_shapes.append((n_channel, input_size, input_size))
    input_size //= 2
    z_shapes.append((n_channel * 4, input_size, input_size))
    return z_shapes


n_bits, img_size = 5, 8
n_bins = 2.0 ** n_bits
model = Glow(3, n_flow=2, n_block=2, affine=True, conv_lu=True)
inv = model.blocks[0].flows[0].invconv
print("lu buffers", [(n, b.dtype) for n, b in inv.named_buffers()][:3], "s_sign", inv.s_sign.dtype,
      "w_p perm", bool(((inv.w_p.sum(0) == 1) & (inv.w_p.sum(1) == 1)).all()))
w = inv.calc_weight().squeeze()
print("lu weight", tuple(w.shape), "orthogonal", torch.allclose(w @ w.T, torch.eye(12), atol=1e-5),
      "logdet", f"{abs(torch.linalg.slogdet(w)[1].item()):.4f}", f"{abs(inv.w_s.sum().item()):.4f}")
plain = model.blocks[1].flows[0].invconv
sign, logabsdet = torch.slogdet(plain.weight.squeeze().double())
print("plain invconv", type(plain).__name__, sign.dtype, f"{abs(logabsdet.item()):.4f}")
P, L, U = torch.linalg.lu(w)
print("torch lu", torch.allclose(P @ L @ U, w, atol=1e-5), bool((torch.diagonal(L) == 1).all()),
      torch.equal(torch.triu(U), U))
print("z shapes", calc_z_shapes(3, img_size, 2, 2))
gen = torch.Generator().manual_seed(7)
base = torch.rand(16, 3, img_size, img_size, generator=gen)
dataset = (torch.sigmoid(4 * (base - base.mean(dim=(2, 3), keepdim=True))) + base) / 2
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for i in range(5):
    image = dataset[(i % 2) * 8:(i % 2) * 8 + 8]
    image = image * 255
    if n_bits < 8:
        image = torch.floor(image / 2 ** (8 - n_bits))
    image = image / n_bins - 0.5
    if i == 0:
        with torch.no_grad():
            log_p, logdet, _ = model(image + torch.rand_like(image) / n_bins)
            print("actnorm init", [int(m.initialized) for m in model.modules() if isinstance(m, ActNorm)],
                  model.blocks[0].flows[0].actnorm.initialized.dtype)
            continue
    log_p, logdet, _ = model(image + torch.rand_like(image) / n_bins)
    logdet = logdet.mean()
    loss, log_p, log_det = calc_loss(log_p, logdet, img_size, n_bins)
    model.zero_grad()
    loss.backward()
    warmup_lr = 1e-3 * min(1, i * 8 / 32)
    optimizer.param_groups[0]["lr"] = warmup_lr
    optimizer.step()
    print(f"Loss: {loss.item():.5f}; logP: {log_p.item():.5f}; logdet: {log_det.item():.5f}; lr: {warmup_lr:.7f}")
with torch.no_grad():
    x = image[:2]
    _, _, z_outs = model(x)
    recon = model.reverse(z_outs, reconstruct=True)
    print("z outs", [tuple(z.shape) for z in z_outs], "reverse error", bool((recon - x).abs().max() < 1e-3))
    z_sample = [torch.randn(2, *s) * 0.7 for s in calc_z_shapes(3, img_size, 2, 2)]
    sample = model.reverse(z_sample)
    print("sample", tuple(sample.shape), bool(torch.isfinite(sample).all()))


# ---------------------------------------------------------------- VQGAN
class VectorQuantizer(nn.Module):
    def __init__(self, n_e, e_dim, beta):
        super(VectorQuantizer, self).__init__()
        self.n_e = n_e
        self.e_dim = e_dim
        self.beta = beta
        self.embedding = nn.Embedding(self.n_e, self.e_dim)
        self.embedding.weight.data.uniform_(-1.0 / self.n_e, 1.0 / self.n_e)

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        z_flattened = z.view(-1, self.e_dim)
        d = torch.sum(z_flattened ** 2, dim=1, keepdim=True) + \
            torch.sum(self.embedding.weight**2, dim=1) - 2 * \
            torch.einsum('bd,dn->bn', z_flattened, self.embedding.weight.t())
        min_encoding_indices = torch.argmin(d, dim=1).unsqueeze(1)
        min_encodings = torch.zeros(min_encoding_indices.shape[0], self.n_e).to(z)
        min_encodings.scatter_(1, min_encoding_indices, 1)
        z_q = torch.matmul(min_encodings, self.embedding.weight).view(z.shape)
        loss = torch.mean((z_q.detach() - z)**2) + self.beta * torch.mean((z_q - z.detach()) ** 2)
        z_q = z + (z_q - z).detach()
        e_mean = torch.mean(min_encodings, dim=0)
        perplexity = torch.exp(-torch.sum(e_mean * torch.log(e_mean + 1e-10)))
        z_q = z_q.permute(0, 3, 1, 2).contiguous()
        return z_q, loss, (perplexity, min_encodings, min_encoding_indices)


def adopt_weight(weight, global_step, threshold=0, value=0.):
    if global_step < threshold:
        weight = value
    return weight


def hinge_d_loss(logits_real, logits_fake):
    loss_real = torch.mean(F.relu(1. - logits_real))
    loss_fake = torch.mean(F.relu(1. + logits_fake))
    d_loss = 0.5 * (loss_real + loss_fake)
    return d_loss


def calculate_adaptive_weight(nll_loss, g_loss, last_layer, discriminator_weight=0.8):
    nll_grads = torch.autograd.grad(nll_loss, last_layer, retain_graph=True)[0]
    g_grads = torch.autograd.grad(g_loss, last_layer, retain_graph=True)[0]
    d_weight = torch.norm(nll_grads) / (torch.norm(g_grads) + 1e-4)
    d_weight = torch.clamp(d_weight, 0.0, 1e4).detach()
    d_weight = d_weight * discriminator_weight
    return d_weight


class VQModel(nn.Module):
    def __init__(self, n_embed=16, embed_dim=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.SiLU(), nn.Conv2d(8, 8, 3, 1, 1))
        self.quant_conv = nn.Conv2d(8, embed_dim, 1)
        self.quantize = VectorQuantizer(n_embed, embed_dim, beta=0.25)
        self.post_quant_conv = nn.Conv2d(embed_dim, 8, 1)
        self.decoder = nn.Sequential(nn.Conv2d(8, 8, 3, 1, 1), nn.SiLU(), nn.ConvTranspose2d(8, 8, 4, 2, 1),
                                     nn.SiLU(), nn.Conv2d(8, 3, 3, 1, 1))

    def get_last_layer(self):
        return self.decoder[-1].weight

    def forward(self, x):
        h = self.quant_conv(self.encoder(x))
        quant, emb_loss, info = self.quantize(h)
        dec = self.decoder(self.post_quant_conv(quant))
        return dec, emb_loss, info


torch.manual_seed(3)
vq = VQModel()
disc = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2, True), nn.Conv2d(8, 1, 3, 1, 1))
opt_ae = torch.optim.Adam(vq.parameters(), lr=4.5e-4, betas=(0.5, 0.9))
opt_disc = torch.optim.Adam(disc.parameters(), lr=4.5e-4, betas=(0.5, 0.9))
images = dataset[:8] * 2 - 1
for global_step in range(4):
    xrec, qloss, (perplexity, min_encodings, ind) = vq(images)
    rec_loss = torch.abs(images.contiguous() - xrec.contiguous())
    nll_loss = torch.mean(rec_loss)
    logits_fake = disc(xrec.contiguous())
    g_loss = -torch.mean(logits_fake)
    d_weight = calculate_adaptive_weight(nll_loss, g_loss, vq.get_last_layer())
    disc_factor = adopt_weight(1.0, global_step, threshold=2)
    aeloss = nll_loss + d_weight * disc_factor * g_loss + 1.0 * qloss.mean()
    opt_ae.zero_grad()
    aeloss.backward()
    opt_ae.step()
    logits_real = disc(images.contiguous().detach())
    logits_fake = disc(xrec.contiguous().detach())
    d_loss = disc_factor * hinge_d_loss(logits_real, logits_fake)
    opt_disc.zero_grad()
    d_loss.backward()
    opt_disc.step()
    print("vqgan step", global_step, f"ae {aeloss.item():.4f} nll {nll_loss.item():.4f} q {qloss.item():.5f}",
          f"d_weight {d_weight.item():.4f} disc_factor {disc_factor} d_loss {float(d_loss):.4f}",
          f"perplexity {perplexity.item():.3f}")
quantizer = VectorQuantizer(6, 2, beta=0.25)
quantizer.embedding.weight.data.copy_(torch.tensor([[-1., -1.], [-1., 1.], [1., -1.], [1., 1.], [0., 0.], [3., 3.]]))
z = torch.randn(1, 2, 3, 4, generator=torch.Generator().manual_seed(11)) * 1.5
z_q, q_loss, (perp, _, idx) = quantizer(z)
print("quantize", idx.view(-1).tolist(), torch.bincount(idx.view(-1), minlength=6).tolist(), f"{perp.item():.4f}",
      f"{q_loss.item():.4f}", tuple(z_q.shape))
print("codes", tuple(ind.shape), ind.dtype, tuple(min_encodings.shape), min_encodings.dtype, int(min_encodings.sum()),
      "straight-through grad", vq.quant_conv.weight.grad is not None)


# ---------------------------------------------------------------- Neural ODE (torchdiffeq ode_demo + adjoint)
_one_third = 1 / 3
_two_thirds = 2 / 3


def rk4_alt_step_func(func, t0, dt, t1, y0, f0=None):
    k1 = f0
    if k1 is None:
        k1 = func(t0, y0)
    k2 = func(t0 + dt * _one_third, y0 + dt * k1 * _one_third)
    k3 = func(t0 + dt * _two_thirds, y0 + dt * (k2 - k1 * _one_third))
    k4 = func(t1, y0 + dt * (k1 - k2 + k3))
    return (k1 + 3 * (k2 + k3) + k4) * dt * 0.125


def odeint(func, y0, t):
    solution = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = t1 - t0
        y = y + rk4_alt_step_func(func, t0, dt, t1, y)
        solution.append(y)
    return torch.stack(solution)


def _tuple_rk4(func, t0, dt, t1, state):
    add = lambda a, b, c=1.0: tuple(x + c * y for x, y in zip(a, b))  # noqa: E731
    k1 = func(t0, state)
    k2 = func(t0 + dt * _one_third, add(state, k1, dt * _one_third))
    k3 = func(t0 + dt * _two_thirds, add(state, tuple(b - a * _one_third for a, b in zip(k1, k2)), dt))
    k4 = func(t1, add(state, tuple(a - b + c for a, b, c in zip(k1, k2, k3)), dt))
    return tuple(s + (a + 3 * (b + c) + d) * dt * 0.125 for s, a, b, c, d in zip(state, k1, k2, k3, k4))


class OdeintAdjointMethod(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y0, t, func, *adjoint_params):
        ctx.func = func
        with torch.no_grad():
            ans = odeint(func, y0, t)
        ctx.save_for_backward(t, ans, *adjoint_params)
        return ans

    @staticmethod
    def backward(ctx, grad_y):
        with torch.no_grad():
            func = ctx.func
            t, y, *adjoint_params = ctx.saved_tensors
            adjoint_params = tuple(adjoint_params)

            def augmented_dynamics(t_, y_aug):
                y_, adj_y = y_aug[0], y_aug[1]
                with torch.enable_grad():
                    t_ = t_.detach()
                    y_ = y_.detach().requires_grad_(True)
                    func_eval = func(t_, y_)
                    vjp_y, *vjp_params = torch.autograd.grad(func_eval, (y_,) + adjoint_params, -adj_y,
                                                             allow_unused=True, retain_graph=True)
                vjp_y = torch.zeros_like(y_) if vjp_y is None else vjp_y
                vjp_params = [torch.zeros_like(p) if vjp is None else vjp for p, vjp in zip(adjoint_params, vjp_params)]
                return (func_eval, vjp_y, *vjp_params)

            aug_state = [y[-1], grad_y[-1]] + [torch.zeros_like(p) for p in adjoint_params]
            for i in range(len(t) - 1, 0, -1):
                aug_state = _tuple_rk4(augmented_dynamics, t[i], t[i - 1] - t[i], t[i - 1], tuple(aug_state))
                aug_state = list(aug_state)
                aug_state[0] = y[i - 1]
                aug_state[1] = aug_state[1] + grad_y[i - 1]
            adj_y = aug_state[1]
            adj_params = aug_state[2:]
        return (adj_y, None, None, *adj_params)


def odeint_adjoint(func, y0, t):
    adjoint_params = tuple(p for p in func.parameters() if p.requires_grad)
    return OdeintAdjointMethod.apply(y0, t, func, *adjoint_params)


true_y0 = torch.tensor([[2., 0.]])
t = torch.linspace(0., 2.5, 26)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y**3, true_A)


with torch.no_grad():
    true_y = odeint(Lambda(), true_y0, t)
print("true_y", tuple(true_y.shape), [round(v, 4) for v in true_y[-1, 0].tolist()])
data_size, batch_time, batch_size = 26, 5, 6


def get_batch():
    s = torch.from_numpy(np.random.choice(np.arange(data_size - batch_time, dtype=np.int64), batch_size, replace=False))
    batch_y0 = true_y[s]
    batch_t = t[:batch_time]
    batch_y = torch.stack([true_y[s + i] for i in range(batch_time)], dim=0)
    return batch_y0, batch_t, batch_y


class ODEFunc(nn.Module):
    def __init__(self):
        super(ODEFunc, self).__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        return self.net(y**3)


torch.manual_seed(4)
func = ODEFunc()
optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-2)
for itr in range(1, 5):
    optimizer.zero_grad()
    batch_y0, batch_t, batch_y = get_batch()
    pred_y = odeint_adjoint(func, batch_y0, batch_t)
    loss = torch.mean(torch.abs(pred_y - batch_y))
    loss.backward()
    adjoint_grads = [p.grad.clone() for p in func.parameters()]
    optimizer.zero_grad()
    direct = torch.mean(torch.abs(odeint(func, batch_y0, batch_t) - batch_y))
    direct.backward()
    agree = all(torch.allclose(a, p.grad, rtol=1e-2, atol=1e-5) for a, p in zip(adjoint_grads, func.parameters()))
    for a, p in zip(adjoint_grads, func.parameters()):
        p.grad = a
    optimizer.step()
    print("ode iter", itr, f"loss {loss.item():.5f}", "adjoint == backprop", agree, "shape", tuple(pred_y.shape),
          "nfe", func.nfe)
with torch.no_grad():
    pred_y = odeint(func, true_y0, t)
    print("Total Loss {:.5f}".format(torch.mean(torch.abs(pred_y - true_y)).item()))
