"""rtdl_revisiting_models (the "Revisiting Deep Learning Models for Tabular Data" reference models): MLP, ResNet
and FT-Transformer (default kwargs, ReGLU and ReLU feed-forward, Linformer key/value compression) on a seeded
synthetic tabular task with continuous and categorical features; the package's parameter groups and default
AdamW, a few training steps each, eval-mode predictions, the embedding modules alone, and a state_dict round
trip."""
import io

import torch
import torch.nn.functional as F
from rtdl_revisiting_models import (MLP, CategoricalEmbeddings, FTTransformer, LinearEmbeddings,
                                    MultiheadAttention, ResNet)


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
N, N_CONT, CARDS = 64, 5, [3, 4]
x_cont = torch.randn(N, N_CONT)
x_cat = torch.stack([torch.randint(0, c, (N,)) for c in CARDS], 1)
y = (x_cont[:, 0] - x_cont[:, 1] + (x_cat[:, 0] == 1).float() > 0).long()
x_all = torch.cat([x_cont, F.one_hot(x_cat[:, 0], 3).float(), F.one_hot(x_cat[:, 1], 4).float()], 1)


def train(model, fwd, opt, steps=6):
    losses = []
    for _ in range(steps):
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(fwd(model), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = fwd(model)
    return losses, logits


torch.manual_seed(1)
mlp = MLP(d_in=x_all.shape[1], d_out=2, n_blocks=2, d_block=32, dropout=0.1)
print("mlp params", sum(p.numel() for p in mlp.parameters()), [n for n, _ in mlp.named_parameters()][:4])
losses, logits = train(mlp, lambda m: m(x_all), torch.optim.AdamW(mlp.parameters(), lr=1e-2, weight_decay=1e-4))
print("mlp losses", r(losses))
print("mlp eval", r(logits[:3]), r((logits.argmax(1) == y).float().mean()))

torch.manual_seed(2)
resnet = ResNet(d_in=x_all.shape[1], d_out=2, n_blocks=2, d_block=16, d_hidden=None, d_hidden_multiplier=2.0,
                dropout1=0.15, dropout2=0.0)
print("resnet params", sum(p.numel() for p in resnet.parameters()))
losses, logits = train(resnet, lambda m: m(x_all), torch.optim.SGD(resnet.parameters(), lr=0.05, momentum=0.9))
print("resnet losses", r(losses))
print("resnet eval", r(logits[:3]))
print("resnet no head", tuple(ResNet(d_in=4, d_out=None, n_blocks=1, d_block=8, d_hidden=12,
                                     d_hidden_multiplier=None, dropout1=0.0, dropout2=0.0)(torch.ones(3, 4)).shape))

torch.manual_seed(3)
kw = FTTransformer.get_default_kwargs(n_blocks=1)
print("ft default kwargs", sorted((k, v if not isinstance(v, float) else round(v, 4)) for k, v in kw.items()))
kw["d_block"] = 32
kw["attention_n_heads"] = 4
ft = FTTransformer(n_cont_features=N_CONT, cat_cardinalities=CARDS, d_out=2, **kw)
groups = ft.make_parameter_groups()
print("ft groups", len(groups), [len(list(g["params"])) for g in groups], [g.get("weight_decay") for g in groups])
opt = ft.make_default_optimizer()
print("ft optimizer", type(opt).__name__, [round(g["lr"], 6) for g in opt.param_groups],
      [g["weight_decay"] for g in opt.param_groups])
losses, logits = train(ft, lambda m: m(x_cont, x_cat), opt, steps=5)
print("ft losses", r(losses))
print("ft eval", r(logits[:3]))

torch.manual_seed(4)
ft_relu = FTTransformer(n_cont_features=N_CONT, cat_cardinalities=[], d_out=1, n_blocks=2, d_block=16,
                        attention_n_heads=2, attention_dropout=0.1, ffn_d_hidden=None, ffn_d_hidden_multiplier=2.0,
                        ffn_dropout=0.1, ffn_activation="ReLU", residual_dropout=0.0)
target = x_cont[:, :1] * 0.5 + x_cont[:, 1:2]
opt = torch.optim.AdamW(ft_relu.make_parameter_groups(), lr=3e-3, weight_decay=1e-5)
for step in range(5):
    ft_relu.train()
    opt.zero_grad()
    loss = F.mse_loss(ft_relu(x_cont, None), target)
    loss.backward()
    opt.step()
print("ft relu regression", r(loss))

torch.manual_seed(5)
ft_lin = FTTransformer(n_cont_features=N_CONT, cat_cardinalities=CARDS, d_out=2, n_blocks=2, d_block=16,
                       attention_n_heads=2, attention_dropout=0.0, ffn_d_hidden=None, ffn_d_hidden_multiplier=4 / 3,
                       ffn_dropout=0.0, residual_dropout=0.0, linformer_kv_compression_ratio=0.5,
                       linformer_kv_compression_sharing="headwise")
ft_lin.eval()
with torch.no_grad():
    out = ft_lin(x_cont[:4], x_cat[:4])
print("ft linformer", tuple(out.shape), r(out))

torch.manual_seed(6)
lin = LinearEmbeddings(3, 5)
cat = CategoricalEmbeddings([2, 3, 4], 5, bias=True)
e1, e2 = lin(torch.randn(2, 3)), cat(torch.tensor([[0, 2, 3], [1, 0, 1]]))
print("embeddings", tuple(e1.shape), tuple(e2.shape), r(e1.sum()), r(e2.sum()))
att = MultiheadAttention(d_embedding=8, n_heads=2, dropout=0.0)
q = torch.randn(2, 3, 8)
print("attention", tuple(att(q, q).shape), r(att(q, q).sum()))

buf = io.BytesIO()
torch.save(ft.state_dict(), buf)
buf.seek(0)
torch.manual_seed(7)
ft2 = FTTransformer(n_cont_features=N_CONT, cat_cardinalities=CARDS, d_out=2, **kw)
ft2.load_state_dict(torch.load(buf))
ft2.eval()
with torch.no_grad():
    print("reloaded matches", torch.allclose(ft2(x_cont, x_cat), logits, atol=1e-6))
try:
    FTTransformer(n_cont_features=0, cat_cardinalities=[], d_out=1, **kw)
except ValueError as e:
    print("error", str(e)[:60])
