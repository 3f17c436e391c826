"""johnma2006/mamba-minimal ``model.py``-style (own code; a tiny random-initialised model and a synthetic token
stream in place of the pretrained checkpoint and tokenizer): ``ModelArgs`` dataclass with ``__post_init__``
(``d_inner``, ``dt_rank = math.ceil(d_model / 16)``, vocabulary padded to a multiple), ``Mamba`` with tied
``lm_head.weight = embedding.weight``, ``ResidualBlock``, ``RMSNorm`` (``torch.rsqrt(x.pow(2).mean(-1,
keepdim=True) + eps)``), ``MambaBlock`` (``in_proj`` split with ``x_and_res.split``, depthwise ``nn.Conv1d``
with ``padding=d_conv - 1`` cut back to ``l``, einops ``rearrange``/``repeat``, ``A_log`` /``D`` parameters,
``F.softplus``, ``F.silu``) and the sequential ``selective_scan`` (``torch.einsum`` discretisation, a Python
loop over time, ``torch.stack``); then a few AdamW language-model steps with ``clip_grad_norm_``, and the
repo's ``generate`` loop (``torch.topk`` + ``F.softmax`` + ``torch.multinomial``)."""
import math
from dataclasses import dataclass
from typing import Union

import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import einsum, rearrange, repeat


@dataclass
class ModelArgs:
    d_model: int
    n_layer: int
    vocab_size: int
    d_state: int = 16
    expand: int = 2
    dt_rank: Union[int, str] = 'auto'
    d_conv: int = 4
    pad_vocab_size_multiple: int = 8
    conv_bias: bool = True
    bias: bool = False

    def __post_init__(self):
        self.d_inner = int(self.expand * self.d_model)

        if self.dt_rank == 'auto':
            self.dt_rank = math.ceil(self.d_model / 16)

        if self.vocab_size % self.pad_vocab_size_multiple != 0:
            self.vocab_size += (self.pad_vocab_size_multiple
                                - self.vocab_size % self.pad_vocab_size_multiple)


class Mamba(nn.Module):
    def __init__(self, args: ModelArgs):
        """Full Mamba model."""
        super().__init__()
        self.args = args

        self.embedding = nn.Embedding(args.vocab_size, args.d_model)
        self.layers = nn.ModuleList([ResidualBlock(args) for _ in range(args.n_layer)])
        self.norm_f = RMSNorm(args.d_model)

        self.lm_head = nn.Linear(args.d_model, args.vocab_size, bias=False)
        self.lm_head.weight = self.embedding.weight  # Tie output projection to embedding weights.
        # See "Weight Tying" paper

    def forward(self, input_ids):
        x = self.embedding(input_ids)

        for layer in self.layers:
            x = layer(x)

        x = self.norm_f(x)
        logits = self.lm_head(x)

        return logits


class ResidualBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        """Simple block wrapping Mamba block with normalization and residual connection."""
        super().__init__()
        self.args = args
        self.mixer = MambaBlock(args)
        self.norm = RMSNorm(args.d_model)

    def forward(self, x):
        output = self.mixer(self.norm(x)) + x

        return output


class MambaBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        """A single Mamba block, as described in Figure 3 in Section 3.4 in the Mamba paper [1]."""
        super().__init__()
        self.args = args

        self.in_proj = nn.Linear(args.d_model, args.d_inner * 2, bias=args.bias)

        self.conv1d = nn.Conv1d(
            in_channels=args.d_inner,
            out_channels=args.d_inner,
            bias=args.conv_bias,
            kernel_size=args.d_conv,
            groups=args.d_inner,
            padding=args.d_conv - 1,
        )

        # x_proj takes in `x` and outputs the input-specific Δ, B, C
        self.x_proj = nn.Linear(args.d_inner, args.dt_rank + args.d_state * 2, bias=False)

        # dt_proj projects Δ from dt_rank to d_in
        self.dt_proj = nn.Linear(args.dt_rank, args.d_inner, bias=True)

        A = repeat(torch.arange(1, args.d_state + 1), 'n -> d n', d=args.d_inner)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(args.d_inner))
        self.out_proj = nn.Linear(args.d_inner, args.d_model, bias=args.bias)

    def forward(self, x):
        (b, l, d) = x.shape

        x_and_res = self.in_proj(x)  # shape (b, l, 2 * d_in)
        (x, res) = x_and_res.split(split_size=[self.args.d_inner, self.args.d_inner], dim=-1)

        x = rearrange(x, 'b l d_in -> b d_in l')
        x = self.conv1d(x)[:, :, :l]
        x = rearrange(x, 'b d_in l -> b l d_in')

        x = F.silu(x)

        y = self.ssm(x)

        y = y * F.silu(res)

        output = self.out_proj(y)

        return output

    def ssm(self, x):
        (d_in, n) = self.A_log.shape

        # Compute ∆ A B C D, the state space parameters.
        A = -torch.exp(self.A_log.float())  # shape (d_in, n)
        D = self.D.float()

        x_dbl = self.x_proj(x)  # (b, l, dt_rank + 2*n)

        (delta, B, C) = x_dbl.split(split_size=[self.args.dt_rank, n, n], dim=-1)  # delta: (b, l, dt_rank)
        delta = F.softplus(self.dt_proj(delta))  # (b, l, d_in)

        y = self.selective_scan(x, delta, A, B, C, D)

        return y

    def selective_scan(self, u, delta, A, B, C, D):
        (b, l, d_in) = u.shape
        n = A.shape[1]

        # Discretize continuous parameters (A, B)
        deltaA = torch.exp(einsum(delta, A, 'b l d_in, d_in n -> b l d_in n'))
        deltaB_u = einsum(delta, B, u, 'b l d_in, b l n, b l d_in -> b l d_in n')

        # Perform selective scan (see scan_SSM() in The Annotated S4 [2])
        x = torch.zeros((b, d_in, n), device=deltaA.device)
        ys = []
        for i in range(l):
            x = deltaA[:, i] * x + deltaB_u[:, i]
            y = einsum(x, C[:, i, :], 'b d_in n, b n -> b d_in')
            ys.append(y)
        y = torch.stack(ys, dim=1)  # shape (b, l, d_in)

        y = y + u * D

        return y


class RMSNorm(nn.Module):
    def __init__(self,
                 d_model: int,
                 eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        output = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

        return output


def generate(model, input_ids, n_tokens_to_gen=8, sample=True, top_k=5):
    model.eval()
    for token_n in range(n_tokens_to_gen):
        with torch.no_grad():
            indices_to_input = input_ids
            next_token_logits = model(indices_to_input)[:, -1]

        probs = F.softmax(next_token_logits, dim=-1)
        (batch, vocab_size) = probs.shape

        if top_k is not None:
            (values, indices) = torch.topk(probs, k=top_k)
            probs[probs < values[:, -1, None]] = 0
            probs = probs / probs.sum(axis=1, keepdims=True)

        if sample:
            next_indices = torch.multinomial(probs, num_samples=1)
        else:
            next_indices = torch.argmax(probs, dim=-1)[:, None]

        input_ids = torch.cat([input_ids, next_indices], dim=1)
    return input_ids


if __name__ == '__main__':
    torch.manual_seed(0)
    args = ModelArgs(d_model=32, n_layer=2, vocab_size=50, d_state=8)
    print('args', args.d_inner, args.dt_rank, args.vocab_size)
    model = Mamba(args)
    print('tied', model.lm_head.weight is model.embedding.weight)
    print('params', sum(p.numel() for p in model.parameters()),
          [n for n, _ in model.named_parameters()][:6])
    print('A_log', model.layers[0].mixer.A_log.dtype, tuple(model.layers[0].mixer.A_log.shape),
          round(model.layers[0].mixer.A_log.sum().item(), 5))

    # a periodic token stream the model can learn
    data = (torch.arange(400) * 7 % 23 + torch.randint(0, 2, (400,))).long()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    block = 16
    for step in range(6):
        ix = torch.randint(len(data) - block - 1, (4,))
        x = torch.stack([data[i:i + block] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + block] for i in ix])
        model.train()
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print('step %d loss %.5f norm %.5f' % (step, loss.item(), norm.item()))
    print('D grad', model.layers[1].mixer.D.grad.shape, '%.6f' % model.layers[1].mixer.D.grad.abs().sum().item())
    print('A_log after', '%.5f' % model.layers[0].mixer.A_log.sum().item())

    prompt = data[:6].view(1, -1)
    torch.manual_seed(1)
    out = generate(model, prompt, n_tokens_to_gen=6, sample=True, top_k=3)
    print('sampled', out.shape, out[0, 6:].tolist())
    out = generate(model, prompt.repeat(2, 1), n_tokens_to_gen=4, sample=False, top_k=None)
    print('greedy', out[:, 6:].tolist())
    with torch.no_grad():
        logits = model(prompt)
    print('logits', logits.dtype, tuple(logits.shape), '%.5f' % logits.sum().item(), '%.5f' % logits.std().item())
