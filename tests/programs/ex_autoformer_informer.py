"""Long-horizon forecasting models in the style of thuml/Autoformer and zhouhaoyi/Informer2020 (own code; a
synthetic multi-seasonal series instead of ETT, tiny widths).

Autoformer: ``series_decomp`` by a ``moving_avg`` (front/end padding by ``repeat``, ``nn.AvgPool1d`` over the
permuted series), ``AutoCorrelation`` (period correlations by ``torch.fft.rfft`` of queries times the conjugate
of keys, ``irfft`` back, ``torch.topk`` delays over the mean correlation, ``softmax`` weights, time-delay
aggregation by ``torch.roll`` in training and ``torch.gather`` on a doubled series in inference), the
``my_Layernorm`` seasonal norm, a decoder that accumulates the trend, ``TokenEmbedding`` by circular
``Conv1d`` with ``kaiming_normal_(mode='fan_in', nonlinearity='leaky_relu')``, the sin/cos ``PositionalEmbedding``
buffer. Informer: ``ProbAttention`` (random key sampling with ``torch.randint``, the sparsity measure
``max - sum/L_K``, top-u queries, ``cumsum`` initial context for the masked decoder) and the distilling
``ConvLayer`` (``ELU`` + ``MaxPool1d(stride=2)``). Adam, ``clip_grad_norm_``, an ``adjust_learning_rate``
halving per epoch, early-stopping bookkeeping with a ``state_dict`` round trip through a temporary file, and a
``torch.no_grad`` test pass reporting MSE and MAE."""
import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


class moving_avg(nn.Module):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=0)

    def forward(self, x):
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        x = self.avg(x.permute(0, 2, 1))
        return x.permute(0, 2, 1)


class series_decomp(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.moving_avg = moving_avg(kernel_size, stride=1)

    def forward(self, x):
        moving_mean = self.moving_avg(x)
        return x - moving_mean, moving_mean


class my_Layernorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.layernorm = nn.LayerNorm(channels)

    def forward(self, x):
        x_hat = self.layernorm(x)
        bias = torch.mean(x_hat, dim=1).unsqueeze(1).repeat(1, x.shape[1], 1)
        return x_hat - bias


class AutoCorrelation(nn.Module):
    def __init__(self, factor=1):
        super().__init__()
        self.factor = factor

    def time_delay_agg_training(self, values, corr):
        head, channel, length = values.shape[1], values.shape[2], values.shape[3]
        top_k = int(self.factor * math.log(length))
        mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
        index = torch.topk(torch.mean(mean_value, dim=0), top_k, dim=-1)[1]
        weights = torch.stack([mean_value[:, index[i]] for i in range(top_k)], dim=-1)
        tmp_corr = torch.softmax(weights, dim=-1)
        delays_agg = torch.zeros_like(values).float()
        for i in range(top_k):
            pattern = torch.roll(values, -int(index[i]), -1)
            delays_agg = delays_agg + pattern * (
                tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length))
        return delays_agg

    def time_delay_agg_inference(self, values, corr):
        batch, head, channel, length = values.shape
        init_index = torch.arange(length).unsqueeze(0).unsqueeze(0).unsqueeze(0).repeat(batch, head, channel, 1)
        top_k = int(self.factor * math.log(length))
        mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
        weights, delay = torch.topk(mean_value, top_k, dim=-1)
        tmp_corr = torch.softmax(weights, dim=-1)
        tmp_values = values.repeat(1, 1, 1, 2)
        delays_agg = torch.zeros_like(values).float()
        for i in range(top_k):
            tmp_delay = init_index + delay[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length)
            pattern = torch.gather(tmp_values, dim=-1, index=tmp_delay)
            delays_agg = delays_agg + pattern * (
                tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length))
        return delays_agg

    def forward(self, queries, keys, values):
        B, L, H, E = queries.shape
        _, S, _, D = values.shape
        if L > S:
            zeros = torch.zeros_like(queries[:, :(L - S), :]).float()
            values = torch.cat([values, zeros], dim=1)
            keys = torch.cat([keys, zeros], dim=1)
        else:
            values = values[:, :L, :, :]
            keys = keys[:, :L, :, :]
        q_fft = torch.fft.rfft(queries.permute(0, 2, 3, 1).contiguous(), dim=-1)
        k_fft = torch.fft.rfft(keys.permute(0, 2, 3, 1).contiguous(), dim=-1)
        res = q_fft * torch.conj(k_fft)
        corr = torch.fft.irfft(res, n=L, dim=-1)
        if self.training:
            V = self.time_delay_agg_training(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        else:
            V = self.time_delay_agg_inference(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        return V.contiguous(), corr.permute(0, 3, 1, 2)


class AttentionLayer(nn.Module):
    def __init__(self, attention, d_model, n_heads):
        super().__init__()
        self.inner_attention = attention
        self.query_projection = nn.Linear(d_model, d_model)
        self.key_projection = nn.Linear(d_model, d_model)
        self.value_projection = nn.Linear(d_model, d_model)
        self.out_projection = nn.Linear(d_model, d_model)
        self.n_heads = n_heads

    def forward(self, queries, keys, values):
        B, L, _ = queries.shape
        _, S, _ = keys.shape
        H = self.n_heads
        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, S, H, -1)
        values = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_attention(queries, keys, values)
        return self.out_projection(out.view(B, L, -1)), attn


class TokenEmbedding(nn.Module):
    def __init__(self, c_in, d_model):
        super().__init__()
        self.tokenConv = nn.Conv1d(c_in, d_model, kernel_size=3, padding=1, padding_mode="circular", bias=False)
        for m in self.modules():
            if isinstance(m, nn.Conv1d):
                nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x):
        return self.tokenConv(x.permute(0, 2, 1)).transpose(1, 2)


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        pe = torch.zeros(max_len, d_model).float()
        pe.require_grad = False
        position = torch.arange(0, max_len).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.pe[:, :x.size(1)]


class EncoderLayer(nn.Module):
    def __init__(self, attention, d_model, d_ff, moving_avg_k):
        super().__init__()
        self.attention = attention
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1, bias=False)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1, bias=False)
        self.decomp1 = series_decomp(moving_avg_k)
        self.decomp2 = series_decomp(moving_avg_k)
        self.activation = nn.functional.gelu

    def forward(self, x):
        new_x, attn = self.attention(x, x, x)
        x, _ = self.decomp1(x + new_x)
        y = self.activation(self.conv1(x.transpose(-1, 1)))
        y = self.conv2(y).transpose(-1, 1)
        res, _ = self.decomp2(x + y)
        return res, attn


class DecoderLayer(nn.Module):
    def __init__(self, self_attention, cross_attention, d_model, c_out, d_ff, moving_avg_k):
        super().__init__()
        self.self_attention, self.cross_attention = self_attention, cross_attention
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1, bias=False)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1, bias=False)
        self.decomp1, self.decomp2, self.decomp3 = (series_decomp(moving_avg_k) for _ in range(3))
        self.projection = nn.Conv1d(d_model, c_out, kernel_size=3, stride=1, padding=1, padding_mode="circular",
                                    bias=False)

    def forward(self, x, cross):
        x = x + self.self_attention(x, x, x)[0]
        x, trend1 = self.decomp1(x)
        x = x + self.cross_attention(x, cross, cross)[0]
        x, trend2 = self.decomp2(x)
        y = nn.functional.gelu(self.conv1(x.transpose(-1, 1)))
        y = self.conv2(y).transpose(-1, 1)
        x, trend3 = self.decomp3(x + y)
        residual_trend = trend1 + trend2 + trend3
        residual_trend = self.projection(residual_trend.permute(0, 2, 1)).transpose(1, 2)
        return x, residual_trend


class Autoformer(nn.Module):
    def __init__(self, seq_len, label_len, pred_len, c_in, d_model=16, n_heads=2, d_ff=32, moving_avg_k=5):
        super().__init__()
        self.seq_len, self.label_len, self.pred_len = seq_len, label_len, pred_len
        self.decomp = series_decomp(moving_avg_k)
        self.enc_embedding = TokenEmbedding(c_in, d_model)
        self.dec_embedding = TokenEmbedding(c_in, d_model)
        self.pos = PositionalEmbedding(d_model)
        self.encoder = EncoderLayer(AttentionLayer(AutoCorrelation(), d_model, n_heads), d_model, d_ff, moving_avg_k)
        self.enc_norm = my_Layernorm(d_model)
        self.decoder = DecoderLayer(AttentionLayer(AutoCorrelation(), d_model, n_heads),
                                    AttentionLayer(AutoCorrelation(), d_model, n_heads), d_model, c_in, d_ff,
                                    moving_avg_k)
        self.dec_norm = my_Layernorm(d_model)
        self.projection = nn.Linear(d_model, c_in, bias=True)

    def forward(self, x_enc):
        mean = torch.mean(x_enc, dim=1).unsqueeze(1).repeat(1, self.pred_len, 1)
        zeros = torch.zeros([x_enc.shape[0], self.pred_len, x_enc.shape[2]])
        seasonal_init, trend_init = self.decomp(x_enc)
        trend_init = torch.cat([trend_init[:, -self.label_len:, :], mean], dim=1)
        seasonal_init = torch.cat([seasonal_init[:, -self.label_len:, :], zeros], dim=1)
        enc_out = self.enc_embedding(x_enc) + self.pos(x_enc)
        enc_out, attn = self.encoder(enc_out)
        enc_out = self.enc_norm(enc_out)
        dec_out = self.dec_embedding(seasonal_init)
        seasonal_part, residual_trend = self.decoder(dec_out, enc_out)
        seasonal_part = self.projection(self.dec_norm(seasonal_part))
        trend_part = trend_init + residual_trend
        return (trend_part + seasonal_part)[:, -self.pred_len:, :], attn


class ProbAttention(nn.Module):
    def __init__(self, mask_flag=True, factor=2):
        super().__init__()
        self.factor, self.mask_flag = factor, mask_flag

    def _prob_QK(self, Q, K, sample_k, n_top):
        B, H, L_K, E = K.shape
        _, _, L_Q, _ = Q.shape
        K_expand = K.unsqueeze(-3).expand(B, H, L_Q, L_K, E)
        index_sample = torch.randint(L_K, (L_Q, sample_k))
        K_sample = K_expand[:, :, torch.arange(L_Q).unsqueeze(1), index_sample, :]
        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze(-2)
        M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)
        M_top = M.topk(n_top, sorted=False)[1]
        Q_reduce = Q[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], M_top, :]
        return torch.matmul(Q_reduce, K.transpose(-2, -1)), M_top

    def forward(self, queries, keys, values):
        B, L_Q, H, D = queries.shape
        _, L_K, _, _ = keys.shape
        queries, keys, values = (t.transpose(2, 1) for t in (queries, keys, values))
        U_part = min(self.factor * int(np.ceil(np.log(L_K))), L_K)
        u = min(self.factor * int(np.ceil(np.log(L_Q))), L_Q)
        scores_top, index = self._prob_QK(queries, keys, sample_k=U_part, n_top=u)
        scores_top = scores_top * (1.0 / math.sqrt(D))
        if self.mask_flag:
            context = values.cumsum(dim=-2)
            mask = torch.ones(L_Q, scores_top.shape[-1], dtype=torch.bool).triu(1)
            mask = mask[None, None].expand(B, H, L_Q, -1)
            indicator = mask[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :]
            scores_top.masked_fill_(indicator, -np.inf)
        else:
            context = values.mean(dim=-2).unsqueeze(-2).expand(B, H, L_Q, D).clone()
        attn = torch.softmax(scores_top, dim=-1)
        context = context.clone()
        context[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :] = torch.matmul(attn, values)
        return context.transpose(2, 1).contiguous(), index


class ConvLayer(nn.Module):
    def __init__(self, c_in):
        super().__init__()
        self.downConv = nn.Conv1d(c_in, c_in, kernel_size=3, padding=1, padding_mode="circular")
        self.norm = nn.BatchNorm1d(c_in)
        self.activation = nn.ELU()
        self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        x = self.downConv(x.permute(0, 2, 1))
        x = self.maxPool(self.activation(self.norm(x)))
        return x.transpose(1, 2)


def make_series(n, channels=2):
    t = torch.arange(n).float()
    base = torch.stack([torch.sin(2 * math.pi * t / 12 + c) + 0.5 * torch.sin(2 * math.pi * t / 5) for c in
                        range(channels)], -1)
    return base + 0.01 * t[:, None] + 0.1 * torch.randn(n, channels)


seq_len, label_len, pred_len = 24, 12, 8
series = make_series(160)
mean, std = series[:100].mean(0), series[:100].std(0)
series = (series - mean) / std
windows = series.unfold(0, seq_len + pred_len, 4).permute(0, 2, 1)
train, test = windows[:16], windows[-6:]
print("windows", tuple(windows.shape), tuple(train.shape), [round(v, 4) for v in std.tolist()])
dec = series_decomp(5)
s, tr = dec(train[:2, :seq_len])
print("decomp", tuple(s.shape), torch.allclose(s + tr, train[:2, :seq_len]), [round(v, 4) for v in tr[0, :3, 0].tolist()])
q = torch.randn(2, 10, 2, 4)
ac = AutoCorrelation()
ac.train()
v_train, corr = ac(q, q, q)
ac.eval()
v_eval, _ = ac(q, q, q)
print("autocorrelation", tuple(corr.shape), [round(v, 4) for v in corr[0, :3, 0, 0].tolist()],
      "train/eval delays differ", not torch.allclose(v_train, v_eval))

model = Autoformer(seq_len, label_len, pred_len, c_in=2)
print("params", sum(p.numel() for p in model.parameters()), "buffers", [n for n, _ in model.named_buffers()])
opt = torch.optim.Adam(model.parameters(), lr=0.005)
criterion = nn.MSELoss()
best, ckpt = float("inf"), os.path.join(tempfile.mkdtemp(), "checkpoint.pth")
for epoch in range(3):
    model.train()
    losses = []
    for batch in train.split(8):
        x, y = batch[:, :seq_len], batch[:, -pred_len:]
        opt.zero_grad()
        out, attn = model(x)
        loss = criterion(out, y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        val, _ = model(test[:, :seq_len])
        vloss = criterion(val, test[:, -pred_len:]).item()
    if vloss < best:
        best = vloss
        torch.save(model.state_dict(), ckpt)
    for g in opt.param_groups:
        g["lr"] = 0.005 * (0.5 ** epoch)
    print(f"epoch {epoch} train {np.average(losses):.4f} vali {vloss:.4f} lr {opt.param_groups[0]['lr']:.5f}")
model.load_state_dict(torch.load(ckpt))
model.eval()
with torch.no_grad():
    preds, _ = model(test[:, :seq_len])
trues = test[:, -pred_len:]
mae = torch.mean(torch.abs(preds - trues)).item()
mse = torch.mean((preds - trues) ** 2).item()
print(f"test mse {mse:.4f} mae {mae:.4f} best {best:.4f}", tuple(preds.shape))

prob = AttentionLayer(ProbAttention(mask_flag=True), 16, 2)
distil = ConvLayer(16)
emb = TokenEmbedding(2, 16)
h = emb(train[:4, :seq_len])
out, index = prob(h, h, h)
print("prob attention", tuple(out.shape), tuple(index.shape), index.dtype)
d = distil(out)
print("distil", tuple(d.shape), [round(v, 4) for v in d[0, 0, :4].tolist()])
(d.pow(2).mean()).backward()
print("grads", all(p.grad is not None for p in prob.parameters()), round(emb.tokenConv.weight.grad.norm().item(), 4))
