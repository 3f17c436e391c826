"""wav2vec 2.0 pre-training pieces in the style of facebookresearch/fairseq's wav2vec2.py and
gumbel_vector_quantizer.py (own code; random waveforms instead of LibriSpeech, tiny widths).

The convolutional feature encoder (``Conv1d`` stack, the first layer followed by ``GroupNorm(dim, dim,
affine=True)`` — per-channel normalisation over time — then ``GELU``; later layers without norm), the feature
penalty ``features.float().pow(2).mean()``, ``LayerNorm`` + projection, span masking with numpy
(``np.random.choice`` of start indices, ``mask_emb`` written through boolean indexing), a convolutional relative
positional embedding wrapped in ``nn.utils.weight_norm(dim=2)`` with the ``SamePad`` trim, a Transformer encoder;
the Gumbel vector quantizer (``F.gumbel_softmax(tau, hard=True)`` over groups, codebook perplexity from the
averaged soft probabilities, a decaying temperature), negatives drawn with ``torch.randint`` avoiding the
positive, cosine-similarity logits over ``torch.cat([pos, negs])`` divided by a temperature, cross entropy with
target 0 plus the diversity loss; Adam with a ``LambdaLR`` warmup, ``clip_grad_norm_`` and ``torch.no_grad``
feature extraction."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class ConvFeatureExtractionModel(nn.Module):
    def __init__(self, conv_layers, mode="default"):
        super().__init__()

        def block(n_in, n_out, k, stride, is_group_norm=False):
            conv = nn.Conv1d(n_in, n_out, k, stride=stride, bias=False)
            nn.init.kaiming_normal_(conv.weight)
            if is_group_norm:
                return nn.Sequential(conv, nn.Dropout(p=0.0), nn.GroupNorm(n_out, n_out, affine=True), nn.GELU())
            return nn.Sequential(conv, nn.Dropout(p=0.0), nn.GELU())

        in_d = 1
        self.conv_layers = nn.ModuleList()
        for i, (dim, k, stride) in enumerate(conv_layers):
            self.conv_layers.append(block(in_d, dim, k, stride, is_group_norm=mode == "default" and i == 0))
            in_d = dim

    def forward(self, x):
        x = x.unsqueeze(1)
        for conv in self.conv_layers:
            x = conv(x)
        return x


class SamePad(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x):
        if self.remove > 0:
            x = x[:, :, : -self.remove]
        return x


class GumbelVectorQuantizer(nn.Module):
    def __init__(self, dim, num_vars, temp, groups, vq_dim):
        super().__init__()
        self.groups, self.num_vars = groups, num_vars
        self.vars = nn.Parameter(torch.FloatTensor(1, groups * num_vars, vq_dim // groups))
        nn.init.uniform_(self.vars)
        self.weight_proj = nn.Linear(dim, groups * num_vars)
        nn.init.normal_(self.weight_proj.weight, mean=0, std=1)
        nn.init.zeros_(self.weight_proj.bias)
        self.max_temp, self.min_temp, self.temp_decay = temp
        self.curr_temp = self.max_temp

    def set_num_updates(self, num_updates):
        self.curr_temp = max(self.max_temp * self.temp_decay ** num_updates, self.min_temp)

    def forward(self, x):
        result = {"num_vars": self.num_vars * self.groups}
        bsz, tsz, fsz = x.shape
        x = x.reshape(-1, fsz)
        x = self.weight_proj(x)
        x = x.view(bsz * tsz * self.groups, -1)
        _, k = x.max(-1)
        hard_x = x.new_zeros(*x.shape).scatter_(-1, k.view(-1, 1), 1.0).view(bsz * tsz, self.groups, -1)
        hard_probs = torch.mean(hard_x.float(), dim=0)
        result["code_perplexity"] = torch.exp(-torch.sum(hard_probs * torch.log(hard_probs + 1e-7), dim=-1)).sum()
        avg_probs = torch.softmax(x.view(bsz * tsz, self.groups, -1).float(), dim=-1).mean(dim=0)
        result["prob_perplexity"] = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-7), dim=-1)).sum()
        result["temp"] = self.curr_temp
        if self.training:
            x = F.gumbel_softmax(x.float(), tau=self.curr_temp, hard=True).type_as(x)
        else:
            x = hard_x
        x = x.view(bsz * tsz, -1)
        x = x.unsqueeze(-1) * self.vars
        x = x.view(bsz * tsz, self.groups, self.num_vars, -1).sum(-2)
        result["x"] = x.view(bsz, tsz, -1)
        result["targets"] = k.view(bsz, tsz, self.groups)
        return result


def compute_mask_indices(shape, mask_prob, mask_length, min_masks=1):
    bsz, all_sz = shape
    mask = np.full((bsz, all_sz), False)
    for i in range(bsz):
        num_mask = max(min_masks, int(mask_prob * all_sz / float(mask_length) + np.random.rand()))
        starts = np.random.choice(all_sz - mask_length, num_mask, replace=False)
        idc = np.asarray([s + j for s in starts for j in range(mask_length)])
        mask[i, np.unique(idc[idc < all_sz])] = True
    return mask


class Wav2Vec2(nn.Module):
    def __init__(self, conv_layers, embed=32, final_dim=16, num_negatives=4):
        super().__init__()
        self.feature_extractor = ConvFeatureExtractionModel(conv_layers)
        c = conv_layers[-1][0]
        self.layer_norm = nn.LayerNorm(c)
        self.post_extract_proj = nn.Linear(c, embed)
        self.mask_emb = nn.Parameter(torch.FloatTensor(embed).uniform_())
        pos_conv = nn.Conv1d(embed, embed, kernel_size=4, padding=2, groups=4)
        nn.init.normal_(pos_conv.weight, mean=0, std=math.sqrt(4 / (4 * embed)))
        nn.init.constant_(pos_conv.bias, 0)
        self.pos_conv = nn.Sequential(nn.utils.weight_norm(pos_conv, name="weight", dim=2), SamePad(4), nn.GELU())
        layer = nn.TransformerEncoderLayer(embed, 4, 64, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.quantizer = GumbelVectorQuantizer(c, num_vars=8, temp=(2.0, 0.5, 0.9), groups=2, vq_dim=final_dim)
        self.project_q = nn.Linear(final_dim, final_dim)
        self.final_proj = nn.Linear(embed, final_dim)
        self.n_negatives = num_negatives
        self.logit_temp = 0.1

    def sample_negatives(self, y):
        bsz, tsz, fsz = y.shape
        y = y.reshape(-1, fsz)
        with torch.no_grad():
            tszs = torch.arange(tsz).unsqueeze(-1).expand(-1, self.n_negatives).flatten()
            neg_idxs = torch.randint(low=0, high=tsz - 1, size=(bsz, self.n_negatives * tsz))
            neg_idxs[neg_idxs >= tszs] += 1
            neg_idxs = neg_idxs + (torch.arange(bsz).unsqueeze(1) * tsz)
        negs = y[neg_idxs.view(-1)].view(bsz, tsz, self.n_negatives, fsz).permute(2, 0, 1, 3)
        return negs, neg_idxs

    def compute_preds(self, x, y, negatives):
        neg_is_pos = (y == negatives).all(-1)
        targets = torch.cat([y.unsqueeze(0), negatives], dim=0)
        logits = torch.cosine_similarity(x.float(), targets.float(), dim=-1).type_as(x)
        logits = logits / self.logit_temp
        if neg_is_pos.any():
            logits[1:][neg_is_pos] = float("-inf")
        return logits

    def forward(self, source, mask=True):
        features = self.feature_extractor(source)
        features_pen = features.float().pow(2).mean()
        features = features.transpose(1, 2)
        features = self.layer_norm(features)
        unmasked_features = features.clone()
        x = self.post_extract_proj(features)
        B, T, C = x.shape
        if mask:
            mask_indices = torch.from_numpy(compute_mask_indices((B, T), 0.3, 2))
            x[mask_indices] = self.mask_emb.to(x.dtype)
        else:
            mask_indices = torch.zeros(B, T, dtype=torch.bool)
        x_conv = self.pos_conv(x.transpose(1, 2)).transpose(1, 2)
        x = self.encoder(x + x_conv)
        q = self.quantizer(unmasked_features)
        y = self.project_q(q["x"])
        negs, _ = self.sample_negatives(y)
        x = self.final_proj(x)
        logits = self.compute_preds(x, y, negs)
        return {"logits": logits, "mask": mask_indices, "features_pen": features_pen, "q": q}


conv_layers = [(16, 10, 5), (16, 3, 2), (16, 2, 2)]
model = Wav2Vec2(conv_layers)
print("encoder", model.feature_extractor.conv_layers[0])
print("weight norm", sorted(n for n, _ in model.pos_conv[0].named_parameters()), model.pos_conv[0].weight_g.shape)
print("params", sum(p.numel() for p in model.parameters()))
mask = compute_mask_indices((2, 12), 0.3, 2)
print("mask", mask.sum(1).tolist(), mask[0].astype(int).tolist())
wave = torch.randn(4, 400)
with torch.no_grad():
    feats = model.feature_extractor(wave)
print("features", tuple(feats.shape), round(feats.mean().item(), 4), round(feats.std().item(), 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-6, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
for step in range(6):
    model.train()
    out = model(wave)
    logits = out["logits"]
    m = out["mask"]
    lg = logits.transpose(0, 2)[m.t()].reshape(-1, logits.shape[0])
    target = lg.new_zeros(lg.shape[0], dtype=torch.long)
    loss = F.cross_entropy(lg.float(), target, reduction="sum")
    nv = out["q"]["num_vars"]
    diversity = (nv - out["q"]["prob_perplexity"]) / nv
    total = loss / lg.shape[0] + 0.1 * diversity + 10 * out["features_pen"]
    opt.zero_grad()
    total.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    opt.step()
    sched.step()
    model.quantizer.set_num_updates(step + 1)
    acc = (lg.argmax(-1) == 0).float().mean().item()
    print(f"step {step} masked {lg.shape[0]} loss {total.item():.4f} div {diversity.item():.4f} "
          f"pen {out['features_pen'].item():.4f} norm {norm.item():.3f} acc {acc:.3f} temp {out['q']['temp']:.4f}")
print("logits", tuple(logits.shape), logits.dtype, "targets", tuple(out["q"]["targets"].shape))
model.eval()
with torch.no_grad():
    ev = model(wave, mask=False)
    codes = ev["q"]["targets"]
print("eval codes", codes[0, :, 0].tolist(), round(ev["q"]["code_perplexity"].item(), 4))
print("gumbel hard", F.gumbel_softmax(torch.zeros(3, 5), tau=1.0, hard=True).sum(-1).tolist())
