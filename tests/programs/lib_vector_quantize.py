"""vector-quantize-pytorch (lucidrains): a tiny convolutional autoencoder trained a few Adam steps with each
quantizer as its bottleneck on seeded random images: VectorQuantize (EMA codebook updates in training mode, k-means
init, dead-code expiry, commitment loss, rotation trick), a cosine-similarity multi-head VectorQuantize with
orthogonal regularisation and a loss breakdown, ResidualVQ (with quantize dropout and codes from indices), FSQ and
LFQ; then SimVQ, LatentQuantize, ResidualFSQ, ResidualLFQ and GroupedResidualVQ one forward/backward each on a
sequence. Also sequence inputs with a padding mask / lens, eval mode (no codebook update) and a state_dict round trip.
Prints losses, indices and codebook statistics, rounded."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from vector_quantize_pytorch import (FSQ, LFQ, GroupedResidualVQ, LatentQuantize, ResidualFSQ, ResidualLFQ, ResidualVQ,
                                     SimVQ, VectorQuantize)


def r(x, n=4):
    return round(float(x.detach() if torch.is_tensor(x) else x), n)


def rl(t, n=4, k=6):
    return [r(v, n) for v in t.detach().flatten()[:k]]


class AE(nn.Module):
    """8x8 single-channel images -> a 4x4 grid of `dim`-vectors -> quantizer -> back to 8x8."""

    def __init__(self, quantizer, dim):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.GELU(), nn.Conv2d(8, dim, 2, stride=2))
        self.q = quantizer
        self.dec = nn.Sequential(nn.ConvTranspose2d(dim, 8, 2, stride=2), nn.GELU(), nn.Conv2d(8, 1, 3, padding=1))

    def forward(self, x):
        z = self.enc(x)
        out = self.q(z)
        return (self.dec(out[0]),) + tuple(out[1:])


def train(ae, x, steps=3, aux_weight=1.0):
    opt = torch.optim.Adam(ae.parameters(), lr=3e-3)
    log = []
    for _ in range(steps):
        opt.zero_grad()
        recon, idx, aux = ae(x)[:3]
        rec = F.mse_loss(recon, x)
        aux = aux.sum()
        (rec + aux_weight * aux).backward()
        opt.step()
        log.append((r(rec.detach()), r(aux.detach())))
    return log, idx


torch.manual_seed(0)
x = torch.randn(4, 1, 8, 8)

# VectorQuantize: Euclidean codebook, kmeans init, EMA updates, dead-code expiry
torch.manual_seed(1)
vq = VectorQuantize(dim=6, codebook_size=12, decay=0.8, commitment_weight=0.25, kmeans_init=True, kmeans_iters=4,
                    threshold_ema_dead_code=1, accept_image_fmap=True)
ae = AE(vq, 6)
cb = vq._codebook
print("vq initted before", bool(cb.initted), list(cb.embed.shape))
log, idx = train(ae, x)
print("vq losses", log)
print("vq indices", list(idx.shape), idx[0].flatten().tolist())
print("vq initted", bool(cb.initted), "cluster_size", rl(cb.cluster_size, 3, 12))
print("vq embed", r(cb.embed.norm()), rl(cb.embed[0, 0], 4, 4), "embed_avg", r(cb.embed_avg.norm()))
print("vq codebook", list(vq.codebook.shape), "used", len(idx.unique()))
ae.eval()
before = cb.embed.clone()
with torch.no_grad():
    recon, idx_eval, loss = ae(x)
print("vq eval", r(F.mse_loss(recon, x)), r(loss), "frozen", bool(torch.equal(before, cb.embed)))
codes = vq.get_output_from_indices(idx_eval.flatten(1))
print("vq from indices", list(codes.shape), rl(codes))
buf = io.BytesIO()
torch.save(ae.state_dict(), buf)
buf.seek(0)
torch.manual_seed(1)
ae2 = AE(VectorQuantize(dim=6, codebook_size=12, kmeans_init=True, accept_image_fmap=True), 6).eval()
ae2.load_state_dict(torch.load(buf, weights_only=True))
with torch.no_grad():
    print("vq reload same", bool(torch.equal(ae2(x)[0], recon)), bool(ae2.q._codebook.initted))

# cosine similarity, two heads with separate codebooks, projection, orthogonal regularisation
torch.manual_seed(2)
cvq = VectorQuantize(dim=8, codebook_size=10, codebook_dim=4, heads=2, separate_codebook_per_head=True,
                     use_cosine_sim=True, orthogonal_reg_weight=0.1, commitment_weight=1.0, decay=0.9,
                     accept_image_fmap=True)
ae = AE(cvq, 8)
log, idx = train(ae, x)
print("cos vq losses", log)
print("cos vq indices", list(idx.shape), idx[0, 0].flatten().tolist(), idx[0, ..., 1].flatten().tolist())
out = cvq(ae.enc(x), return_loss_breakdown=True)
print("cos vq breakdown", [r(v) for v in out[3]])
e = cvq._codebook.embed
print("cos vq embed", list(e.shape), "unit", r(e.norm(dim=-1).mean()), rl(cvq._codebook.cluster_size, 3))

# sequences with padding: mask and lens, no kmeans, straight through without rotation
torch.manual_seed(3)
svq = VectorQuantize(dim=4, codebook_size=8, decay=0.5, rotation_trick=False, straight_through=True)
seq = torch.randn(3, 5, 4, requires_grad=True)
lens = torch.tensor([5, 3, 1])
q, i, loss = svq(seq, lens=lens)
q.sum().backward()
print("seq vq", list(q.shape), i.tolist(), r(loss), "pad zero", bool((q[2, 1:] == 0).all()))
print("seq vq grad", rl(seq.grad[1], 3, 8))
mask = torch.tensor([[True, True, False, False, False]] * 3)
q2, i2, loss2 = svq(seq.detach(), mask=mask)
print("seq vq mask", i2[:, :2].tolist(), r(loss2), rl(svq._codebook.cluster_size, 3, 8))

# ResidualVQ: three quantizers with quantize dropout in training, on the grid flattened to a sequence (no k-means
# init here: codes that equal a sample leave zero residuals, whose rotation-trick gradients are float noise)
class SeqWrap(nn.Module):
    def __init__(self, quantizer):
        super().__init__()
        self.quantizer = quantizer

    def forward(self, z, **kw):
        b, c, h, w = z.shape
        out = self.quantizer(z.flatten(2).transpose(1, 2), **kw)
        return (out[0].transpose(1, 2).reshape(b, c, h, w),) + tuple(out[1:])


torch.manual_seed(4)
rvq = ResidualVQ(dim=6, num_quantizers=3, codebook_size=8, decay=0.8, commitment_weight=0.5, quantize_dropout=True,
                 quantize_dropout_cutoff_index=1)
ae = AE(SeqWrap(rvq), 6)
log, idx = train(ae, x, steps=4)
print("rvq losses", log)
print("rvq indices", list(idx.shape), idx[0, :4].tolist())
ae.eval()
with torch.no_grad():
    z = ae.enc(x).flatten(2).transpose(1, 2)
    quantized, indices, losses, all_codes = rvq(z, return_all_codes=True)
    from_idx = rvq.get_output_from_indices(indices)
print("rvq eval", list(indices.shape), rl(losses, 4, 3), list(all_codes.shape))
print("rvq from indices", bool(torch.allclose(from_idx, quantized, atol=1e-5)), rl(from_idx))
print("rvq codebooks", list(rvq.codebooks.shape), r(rvq.codebooks.norm()))

# FSQ: finite scalar quantization, levels 8,5,5,5 (1000 codes), no auxiliary loss
torch.manual_seed(5)
fsq = FSQ(levels=[8, 5, 5, 5], dim=6, channel_first=True)


class FSQWrap(nn.Module):
    def __init__(self):
        super().__init__()
        self.fsq = fsq

    def forward(self, z):
        q, ind = self.fsq(z)
        return q, ind, q.new_zeros(())


ae = AE(FSQWrap(), 6)
log, idx = train(ae, x)
print("fsq losses", [a for a, _ in log], "codebook_size", fsq.codebook_size)
print("fsq indices", list(idx.shape), idx[0].flatten().tolist())
codes = fsq.indices_to_codes(idx)
print("fsq codes", list(codes.shape), rl(codes, 4, 8))
levels = fsq.indices_to_level_indices(idx)
print("fsq levels", list(levels.shape), levels[0, 0].tolist(), levels.dtype)
print("fsq round trip", bool(torch.equal(fsq.codes_to_indices(fsq._indices_to_codes(idx)), idx)))

# LFQ: lookup-free quantization with entropy and commitment losses
torch.manual_seed(6)
lfq = LFQ(dim=6, codebook_size=16, entropy_loss_weight=0.1, commitment_loss_weight=0.25, diversity_gamma=1.0)
ae = AE(lfq, 6)
log, idx = train(ae, x)
print("lfq losses", log)
print("lfq indices", list(idx.shape), idx[0].flatten().tolist())
with torch.no_grad():
    (qz, ind, aux), breakdown = lfq(ae.enc(x), inv_temperature=100.0, return_loss_breakdown=True)
print("lfq breakdown", r(aux), [r(v) for v in breakdown], rl(qz, 4, 4))
print("lfq codes", rl(lfq.indices_to_codes(ind), 4, 8))


# more quantizers: one forward/backward each on a (batch, seq, dim) input
def quantizer_step(name, q, inp, **kw):
    inp = inp.clone().requires_grad_()
    out = q(inp, **kw)
    loss = out[0].pow(2).mean()
    for extra in out[2:]:
        if torch.is_tensor(extra) and extra.requires_grad:
            loss = loss + extra.sum()
    loss.backward()
    ind = out[1]
    print(name, list(out[0].shape), r(out[0].sum()), r(inp.grad.abs().sum(), 3), list(ind.shape), ind.flatten()[:6].tolist())


torch.manual_seed(9)
seq = torch.randn(2, 10, 8)
torch.manual_seed(10)
quantizer_step("simvq", SimVQ(dim=8, codebook_size=16), seq)
quantizer_step("latentq", LatentQuantize(levels=[5, 5, 8], dim=8), seq.transpose(1, 2).reshape(2, 8, 2, 5))
quantizer_step("rfsq", ResidualFSQ(dim=8, levels=[8, 5, 5], num_quantizers=3, quantize_dropout=True), seq)
quantizer_step("rlfq", ResidualLFQ(dim=8, codebook_size=16, num_quantizers=2), seq)
quantizer_step("grvq", GroupedResidualVQ(dim=8, num_quantizers=2, groups=2, codebook_size=16), seq)
