"""Dive into Deep Learning (d2l.ai, PyTorch edition), chapters 11-12 and 15 (attention, transformers, BERT,
word2vec, optimization algorithms) in its own style (own code, synthetic data, no d2l package): Nadaraya-Watson
kernel regression with a learned width (bmm), masked_softmax, additive and scaled dot-product attention, a
Bahdanau attention decoder, MultiHeadAttention with transpose_qkv/transpose_output, PositionalEncoding, Transformer
encoder and decoder blocks, a small BERT pretraining step (masked LM + next sentence prediction), word2vec
skip-gram with negative sampling (nn.Embedding, bmm, SigmoidBCELoss with a mask), gradient descent math, and the
optimizers from scratch (momentum, adagrad, rmsprop, adadelta, adam) next to torch.optim, with MultiStepLR,
a custom CosineScheduler and LambdaLR. Prints one fact per line."""
import math

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


def r(x, n=5):
    return float(f"{float(x):.{n}g}")


def rl(t, n=4):
    return [r(v, n) for v in t.reshape(-1).tolist()]


# ---- 11.2 Nadaraya-Watson kernel regression --------------------------------------------------------------------
n_train = 50
x_train, _ = torch.sort(torch.rand(n_train) * 5)


def f(x):
    return 2 * torch.sin(x) + x ** 0.8


y_train = f(x_train) + torch.normal(0.0, 0.5, (n_train,))
x_test = torch.arange(0, 5, 0.1)
X_repeat = x_test.repeat_interleave(n_train).reshape((-1, n_train))
attention_weights = nn.functional.softmax(-(X_repeat - x_train) ** 2 / 2, dim=1)
y_hat = torch.matmul(attention_weights, y_train)
print("nw pooled", tuple(attention_weights.shape), r(y_hat.sum()))


class NWKernelRegression(nn.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = nn.Parameter(torch.rand((1,), requires_grad=True))

    def forward(self, queries, keys, values):
        queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        self.attention_weights = nn.functional.softmax(-((queries - keys) * self.w) ** 2 / 2, dim=1)
        return torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)


X_tile = x_train.repeat((n_train, 1))
Y_tile = y_train.repeat((n_train, 1))
keys = X_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))
values = Y_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))
net = NWKernelRegression()
loss = nn.MSELoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(5):
    trainer.zero_grad()
    l = loss(net(x_train, keys, values), y_train)
    l.sum().backward()
    trainer.step()
print("nw param", r(l.sum(), 4), r(net.w.item(), 4), tuple(keys.shape))


# ---- 11.3 attention scoring --------------------------------------------------------------------------------
def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


ms = masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
print("masked_softmax", (ms > 0).sum().item(), rl(ms.sum(-1)))
ms = masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]]))
print("masked_softmax 2d", (ms == 0).sum(-1).tolist())


class AdditiveAttention(nn.Module):
    def __init__(self, key_size, query_size, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries, keys = torch.normal(0, 1, (2, 1, 20)), torch.ones((2, 10, 2))
values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
valid_lens = torch.tensor([2, 6])
attention = AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
attention.eval()
print("additive", attention(queries, keys, values, valid_lens).tolist())


class DotProductAttention(nn.Module):
    def __init__(self, dropout, **kwargs):
        super(DotProductAttention, self).__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries = torch.normal(0, 1, (2, 1, 2))
attention = DotProductAttention(dropout=0.5)
attention.eval()
print("dot", attention(queries, keys, values, valid_lens).tolist())
print("dot weights", tuple(attention.attention_weights.shape), rl(attention.attention_weights[1, 0, :7], 3))


# ---- 11.4 Bahdanau decoder -----------------------------------------------------------------------------------
class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X, *args):
        X = self.embedding(X).permute(1, 0, 2)
        return self.rnn(X)


class Seq2SeqAttentionDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0, **kwargs):
        super(Seq2SeqAttentionDecoder, self).__init__(**kwargs)
        self.attention = AdditiveAttention(num_hiddens, num_hiddens, num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.Linear(num_hiddens, vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens, *args):
        outputs, hidden_state = enc_outputs
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]

    @property
    def attention_weights(self):
        return self._attention_weights


encoder = Seq2SeqEncoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2)
decoder = Seq2SeqAttentionDecoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2)
X = torch.randint(0, 10, (4, 7))
tgt = torch.randint(0, 10, (4, 7))
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=0.01)
for step in range(4):
    state = decoder.init_state(encoder(X), torch.tensor([7, 5, 3, 6]))
    output, state = decoder(X, state)
    l = F.cross_entropy(output.reshape(-1, 10), tgt.reshape(-1))
    opt.zero_grad()
    l.backward()
    opt.step()
print("bahdanau", tuple(output.shape), len(state), tuple(state[0].shape), len(decoder.attention_weights), r(l, 4))


# ---- 11.5 multi-head attention, 11.6 positional encoding ----------------------------------------------------
def transpose_qkv(X, num_heads):
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    def __init__(self, key_size, query_size, value_size, num_hiddens, num_heads, dropout, bias=False, **kwargs):
        super(MultiHeadAttention, self).__init__(**kwargs)
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        queries = transpose_qkv(self.W_q(queries), self.num_heads)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)
        values = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        output_concat = transpose_output(output, self.num_heads)
        return self.W_o(output_concat)


num_hiddens, num_heads = 16, 4
attention = MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5)
attention.eval()
batch_size, num_queries = 2, 4
num_kvpairs, valid_lens = 6, torch.tensor([3, 2])
X = torch.ones((batch_size, num_queries, num_hiddens))
Y = torch.ones((batch_size, num_kvpairs, num_hiddens))
out = attention(X, Y, Y, valid_lens)
print("mha", tuple(out.shape), r(out.sum()), tuple(attention.attention.attention_weights.shape))


class PositionalEncoding(nn.Module):
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, :X.shape[1], :].to(X.device)
        return self.dropout(X)


pos_encoding = PositionalEncoding(32, 0)
pos_encoding.eval()
Xp = pos_encoding(torch.zeros((1, 60, 32)))
P = pos_encoding.P[:, :Xp.shape[1], :]
print("pos enc", tuple(P.shape), rl(P[0, 5, :4]), rl(P[0, 59, 6:10]))
for i in range(4):
    print(f'{i} in binary is {i:>03b}')


# ---- 11.7 transformer -----------------------------------------------------------------------------------------
class PositionWiseFFN(nn.Module):
    def __init__(self, ffn_num_input, ffn_num_hiddens, ffn_num_outputs, **kwargs):
        super(PositionWiseFFN, self).__init__(**kwargs)
        self.dense1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    def __init__(self, normalized_shape, dropout, **kwargs):
        super(AddNorm, self).__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


ln = nn.LayerNorm(2)
bn = nn.BatchNorm1d(2)
X = torch.tensor([[1, 2], [2, 3]], dtype=torch.float32)
print('layer norm:', ln(X).tolist(), '\nbatch norm:', bn(X).tolist())
add_norm = AddNorm([3, 4], 0.5)
add_norm.eval()
print("addnorm", tuple(add_norm(torch.ones((2, 3, 4)), torch.ones((2, 3, 4))).shape))


class EncoderBlock(nn.Module):
    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, dropout, use_bias=False, **kwargs):
        super(EncoderBlock, self).__init__(**kwargs)
        self.attention = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout,
                                            use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                 ffn_num_hiddens, num_heads, num_layers, dropout, use_bias=False, **kwargs):
        super(TransformerEncoder, self).__init__(**kwargs)
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module("block" + str(i),
                                 EncoderBlock(key_size, query_size, value_size, num_hiddens, norm_shape,
                                              ffn_num_input, ffn_num_hiddens, num_heads, dropout, use_bias))

    def forward(self, X, valid_lens, *args):
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        self.attention_weights = [None] * len(self.blks)
        for i, blk in enumerate(self.blks):
            X = blk(X, valid_lens)
            self.attention_weights[i] = blk.attention.attention.attention_weights
        return X


class DecoderBlock(nn.Module):
    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, dropout, i, **kwargs):
        super(DecoderBlock, self).__init__(**kwargs)
        self.i = i
        self.attention1 = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.attention2 = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm2 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm3 = AddNorm(norm_shape, dropout)

    def forward(self, X, state):
        enc_outputs, enc_valid_lens = state[0], state[1]
        if state[2][self.i] is None:
            key_values = X
        else:
            key_values = torch.cat((state[2][self.i], X), axis=1)
        state[2][self.i] = key_values
        if self.training:
            batch_size, num_steps, _ = X.shape
            dec_valid_lens = torch.arange(1, num_steps + 1, device=X.device).repeat(batch_size, 1)
        else:
            dec_valid_lens = None
        X2 = self.attention1(X, key_values, key_values, dec_valid_lens)
        Y = self.addnorm1(X, X2)
        Y2 = self.attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
        Z = self.addnorm2(Y, Y2)
        return self.addnorm3(Z, self.ffn(Z)), state


X = torch.ones((2, 10, 24))
valid_lens = torch.tensor([3, 2])
encoder_blk = EncoderBlock(24, 24, 24, 24, [24], 24, 48, 8, 0.5)
encoder_blk.eval()
decoder_blk = DecoderBlock(24, 24, 24, 24, [24], 24, 48, 8, 0.5, 0)
decoder_blk.eval()
state = [encoder_blk(X, valid_lens), valid_lens, [None]]
print("decoder blk", tuple(decoder_blk(X, state)[0].shape), tuple(state[2][0].shape))
enc = TransformerEncoder(50, 16, 16, 16, 16, [16], 16, 32, 4, 2, 0.1)
dec_blks = nn.ModuleList([DecoderBlock(16, 16, 16, 16, [16], 16, 32, 4, 0.1, i) for i in range(2)])
emb, dense = nn.Embedding(50, 16), nn.Linear(16, 50)
params = list(enc.parameters()) + list(dec_blks.parameters()) + list(emb.parameters()) + list(dense.parameters())
opt = torch.optim.Adam(params, lr=0.005)
src = torch.randint(1, 50, (4, 9))
tgt = torch.randint(1, 50, (4, 9))
src_lens = torch.tensor([9, 7, 5, 8])
for step in range(5):
    enc_out = enc(src, src_lens)
    state = [enc_out, src_lens, [None] * 2]
    Xd = emb(tgt) * math.sqrt(16)
    for blk in dec_blks:
        Xd, state = blk(Xd, state)
    l = F.cross_entropy(dense(Xd).reshape(-1, 50), tgt.roll(-1, 1).reshape(-1))
    opt.zero_grad()
    l.backward()
    opt.step()
    print("transformer step", step, r(l, 4))
print("enc attention", len(enc.attention_weights), tuple(enc.attention_weights[0].shape))


# ---- 15.8 BERT --------------------------------------------------------------------------------------------------
def get_tokens_and_segments(tokens_a, tokens_b=None):
    tokens = ['<cls>'] + tokens_a + ['<sep>']
    segments = [0] * (len(tokens_a) + 2)
    if tokens_b is not None:
        tokens += tokens_b + ['<sep>']
        segments += [1] * (len(tokens_b) + 1)
    return tokens, segments


print("tokens", get_tokens_and_segments(['a', 'b'], ['c']))


class BERTEncoder(nn.Module):
    def __init__(self, vocab_size, num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens, num_heads, num_layers,
                 dropout, max_len=1000, key_size=768, query_size=768, value_size=768, **kwargs):
        super(BERTEncoder, self).__init__(**kwargs)
        self.token_embedding = nn.Embedding(vocab_size, num_hiddens)
        self.segment_embedding = nn.Embedding(2, num_hiddens)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module(f"{i}", EncoderBlock(key_size, query_size, value_size, num_hiddens, norm_shape,
                                                      ffn_num_input, ffn_num_hiddens, num_heads, dropout, True))
        self.pos_embedding = nn.Parameter(torch.randn(1, max_len, num_hiddens))

    def forward(self, tokens, segments, valid_lens):
        X = self.token_embedding(tokens) + self.segment_embedding(segments)
        X = X + self.pos_embedding.data[:, :X.shape[1], :]
        for blk in self.blks:
            X = blk(X, valid_lens)
        return X


class MaskLM(nn.Module):
    def __init__(self, vocab_size, num_hiddens, num_inputs=768, **kwargs):
        super(MaskLM, self).__init__(**kwargs)
        self.mlp = nn.Sequential(nn.Linear(num_inputs, num_hiddens), nn.ReLU(), nn.LayerNorm(num_hiddens),
                                 nn.Linear(num_hiddens, vocab_size))

    def forward(self, X, pred_positions):
        num_pred_positions = pred_positions.shape[1]
        pred_positions = pred_positions.reshape(-1)
        batch_size = X.shape[0]
        batch_idx = torch.arange(0, batch_size)
        batch_idx = torch.repeat_interleave(batch_idx, num_pred_positions)
        masked_X = X[batch_idx, pred_positions]
        masked_X = masked_X.reshape((batch_size, num_pred_positions, -1))
        return self.mlp(masked_X)


class NextSentencePred(nn.Module):
    def __init__(self, num_inputs, **kwargs):
        super(NextSentencePred, self).__init__(**kwargs)
        self.output = nn.Linear(num_inputs, 2)

    def forward(self, X):
        return self.output(X)


class BERTModel(nn.Module):
    def __init__(self, vocab_size, num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens, num_heads, num_layers,
                 dropout, max_len=1000, key_size=768, query_size=768, value_size=768, hid_in_features=768,
                 mlm_in_features=768, nsp_in_features=768):
        super(BERTModel, self).__init__()
        self.encoder = BERTEncoder(vocab_size, num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens, num_heads,
                                   num_layers, dropout, max_len=max_len, key_size=key_size, query_size=query_size,
                                   value_size=value_size)
        self.hidden = nn.Sequential(nn.Linear(hid_in_features, num_hiddens), nn.Tanh())
        self.mlm = MaskLM(vocab_size, num_hiddens, mlm_in_features)
        self.nsp = NextSentencePred(nsp_in_features)

    def forward(self, tokens, segments, valid_lens=None, pred_positions=None):
        encoded_X = self.encoder(tokens, segments, valid_lens)
        if pred_positions is not None:
            mlm_Y_hat = self.mlm(encoded_X, pred_positions)
        else:
            mlm_Y_hat = None
        nsp_Y_hat = self.nsp(self.hidden(encoded_X[:, 0, :]))
        return encoded_X, mlm_Y_hat, nsp_Y_hat


vocab_size = 40
net = BERTModel(vocab_size, num_hiddens=32, norm_shape=[32], ffn_num_input=32, ffn_num_hiddens=64, num_heads=2,
                num_layers=2, dropout=0.2, key_size=32, query_size=32, value_size=32, hid_in_features=32,
                mlm_in_features=32, nsp_in_features=32, max_len=64)
tokens = torch.randint(0, vocab_size, (4, 12))
segments = torch.tensor([[0] * 6 + [1] * 6] * 4)
valid_lens_x = torch.tensor([12.0, 10.0, 9.0, 12.0])
pred_positions_X = torch.tensor([[1, 5, 2], [6, 1, 5], [2, 3, 4], [7, 8, 9]])
mlm_weights_X = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
mlm_Y = torch.randint(0, vocab_size, (4, 3))
nsp_y = torch.tensor([0, 1, 1, 0])
loss = nn.CrossEntropyLoss()


def _get_batch_loss_bert(net, loss, vocab_size, tokens_X, segments_X, valid_lens_x, pred_positions_X,
                         mlm_weights_X, mlm_Y, nsp_y):
    _, mlm_Y_hat, nsp_Y_hat = net(tokens_X, segments_X, valid_lens_x.reshape(-1), pred_positions_X)
    mlm_l = loss(mlm_Y_hat.reshape(-1, vocab_size), mlm_Y.reshape(-1)) * mlm_weights_X.reshape(-1, 1)
    mlm_l = mlm_l.sum() / (mlm_weights_X.sum() + 1e-8)
    nsp_l = loss(nsp_Y_hat, nsp_y)
    l = mlm_l + nsp_l
    return mlm_l, nsp_l, l


trainer = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(4):
    trainer.zero_grad()
    mlm_l, nsp_l, l = _get_batch_loss_bert(net, loss, vocab_size, tokens, segments, valid_lens_x, pred_positions_X,
                                           mlm_weights_X, mlm_Y, nsp_y)
    l.backward()
    trainer.step()
    print(f'bert step {step} MLM loss {mlm_l:.3f}, NSP loss {nsp_l:.3f}')
net.eval()
encoded, mlm_hat, nsp_hat = net(tokens, segments, valid_lens_x)
print("bert encoded", tuple(encoded.shape), mlm_hat, tuple(nsp_hat.shape), sum(p.numel() for p in net.parameters()))


# ---- 15.1-15.4 word2vec skip-gram with negative sampling ----------------------------------------------------
def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
    v = embed_v(center)
    u = embed_u(contexts_and_negatives)
    pred = torch.bmm(v, u.permute(0, 2, 1))
    return pred


embed = nn.Embedding(num_embeddings=20, embedding_dim=4)
print(f'Parameter embedding_weight ({embed.weight.shape}, dtype={embed.weight.dtype})')
print("skip_gram", tuple(skip_gram(torch.ones((2, 1), dtype=torch.long), torch.ones((2, 4), dtype=torch.long),
                                   embed, embed).shape))


class SigmoidBCELoss(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, inputs, target, mask=None):
        out = nn.functional.binary_cross_entropy_with_logits(inputs, target, weight=mask, reduction="none")
        return out.mean(dim=1)


loss = SigmoidBCELoss()
pred = torch.tensor([[1.1, -2.2, 3.3, -4.4]] * 2)
label = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
print("bce", rl(loss(pred, label, mask) * mask.shape[1] / mask.sum(axis=1)))

vocab_n, embed_size = 30, 8
net = nn.Sequential(nn.Embedding(num_embeddings=vocab_n, embedding_dim=embed_size),
                    nn.Embedding(num_embeddings=vocab_n, embedding_dim=embed_size))


def init_weights(m):
    if type(m) == nn.Embedding:
        nn.init.xavier_uniform_(m.weight)


net.apply(init_weights)
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
g = torch.Generator().manual_seed(5)
center = torch.randint(0, vocab_n, (32, 1), generator=g)
contexts_negatives = torch.randint(0, vocab_n, (32, 6), generator=g)
masks = (torch.arange(6)[None, :] < torch.randint(3, 7, (32, 1), generator=g)).float()
labels = torch.zeros(32, 6)
labels[:, :2] = 1
for epoch in range(6):
    optimizer.zero_grad()
    pred = skip_gram(center, contexts_negatives, net[0], net[1])
    l = (loss(pred.reshape(labels.shape).float(), labels.float(), masks) / masks.sum(axis=1) * masks.shape[1])
    l.sum().backward()
    optimizer.step()
print("word2vec loss", r(l.sum(), 4), r(l.mean(), 4))
W = net[0].weight.data
x = W[3]
cos = torch.mv(W, x) / torch.sqrt(torch.sum(W * W, dim=1) * torch.sum(x * x) + 1e-9)
topk = torch.topk(cos, k=4)[1].cpu().numpy().astype('int32')
print("similar", topk[0], topk.dtype, len(topk), rl(cos[topk[1:]], 3))


# ---- 12.3-12.10 optimization algorithms -------------------------------------------------------------------------
def f_2d(x1, x2):
    return 0.1 * x1 ** 2 + 2 * x2 ** 2


def train_2d(trainer, steps=20, f_grad=None):
    x1, x2, s1, s2 = -5, -2, 0, 0
    for i in range(steps):
        if f_grad:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
    return x1, x2


def f_2d_grad(x1, x2):
    return (0.2 * x1, 4 * x2)


def momentum_2d(x1, x2, v1, v2, f_grad, eta=0.4, beta=0.5):
    g1, g2 = f_grad(x1, x2)
    v1 = beta * v1 + g1
    v2 = beta * v2 + g2
    return x1 - eta * v1, x2 - eta * v2, v1, v2


def adagrad_2d(x1, x2, s1, s2, f_grad, eta=0.4):
    eps = 1e-6
    g1, g2 = f_grad(x1, x2)
    s1 += g1 ** 2
    s2 += g2 ** 2
    x1 -= eta / math.sqrt(s1 + eps) * g1
    x2 -= eta / math.sqrt(s2 + eps) * g2
    return x1, x2, s1, s2


print("momentum 2d", [r(v, 4) for v in train_2d(momentum_2d, f_grad=f_2d_grad)])
print("adagrad 2d", [r(v, 4) for v in train_2d(adagrad_2d, f_grad=f_2d_grad)])
c = torch.tensor(0.15 * math.pi)


def f_nc(x):
    return x * torch.cos(c * x)


def f_grad_nc(x):
    return torch.cos(c * x) - c * x * torch.sin(c * x)


x = 10.0
results = [x]
for i in range(10):
    x -= 2 * float(f_grad_nc(torch.tensor(x)))
    results.append(float(x))
print("gd nonconvex", r(results[-1], 4), r(f_nc(torch.tensor(results[-1])), 4))
x = torch.tensor(2.0, requires_grad=True)
h = torch.autograd.functional.hessian(lambda x: torch.cosh(c * x), x)
print("newton hessian", r(h, 4))

# the same synthetic regression for every optimizer, as d2l's airfoil data
g = torch.Generator().manual_seed(7)
features = torch.randn(200, 5, generator=g)
labels = features @ torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * torch.randn(200, generator=g)
data_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(features, labels), batch_size=20,
                                        shuffle=False)


def init_momentum_states(feature_dim):
    v_w = torch.zeros((feature_dim, 1))
    v_b = torch.zeros(1)
    return (v_w, v_b)


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams['momentum'] * v + p.grad
            p[:] -= hyperparams['lr'] * v
        p.grad.data.zero_()


def init_adagrad_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def adagrad(params, states, hyperparams):
    eps = 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_rmsprop_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams['gamma'], 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_adadelta_states(feature_dim):
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    delta_w, delta_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((s_w, delta_w), (s_b, delta_b))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams['rho'], 1e-5
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


def init_adam_states(feature_dim):
    v_w, v_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((v_w, s_w), (v_b, s_b))


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def train_ch11(trainer_fn, states, hyperparams, data_iter, feature_dim, num_epochs=2):
    w = torch.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True,
                     generator=torch.Generator().manual_seed(1))
    b = torch.zeros((1), requires_grad=True)
    net, loss = lambda X: linreg(X, w, b), squared_loss
    for _ in range(num_epochs):
        for X, y in data_iter:
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
    return float(loss(net(features), labels).mean())


def train_concise_ch11(trainer_fn, hyperparams, data_iter, num_epochs=2):
    net = nn.Sequential(nn.Linear(5, 1))
    nn.init.normal_(net[0].weight, std=0.01, generator=torch.Generator().manual_seed(1))
    nn.init.zeros_(net[0].bias)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction='none')
    for _ in range(num_epochs):
        for X, y in data_iter:
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
    return float(loss(net(features), labels.reshape(-1, 1)).mean() / 2)


print("scratch momentum", r(train_ch11(sgd_momentum, init_momentum_states(5), {'lr': 0.02, 'momentum': 0.5},
                                       data_iter, 5)))
print("concise momentum", r(train_concise_ch11(torch.optim.SGD, {'lr': 0.02, 'momentum': 0.5}, data_iter)))
print("scratch adagrad", r(train_ch11(adagrad, init_adagrad_states(5), {'lr': 0.1}, data_iter, 5)))
print("concise adagrad", r(train_concise_ch11(torch.optim.Adagrad, {'lr': 0.1}, data_iter)))
print("scratch rmsprop", r(train_ch11(rmsprop, init_rmsprop_states(5), {'lr': 0.01, 'gamma': 0.9}, data_iter, 5)))
print("concise rmsprop", r(train_concise_ch11(torch.optim.RMSprop, {'lr': 0.01, 'alpha': 0.9}, data_iter)))
print("scratch adadelta", r(train_ch11(adadelta, init_adadelta_states(5), {'rho': 0.9}, data_iter, 5)))
print("concise adadelta", r(train_concise_ch11(torch.optim.Adadelta, {'rho': 0.9}, data_iter)))
print("scratch adam", r(train_ch11(adam, init_adam_states(5), {'lr': 0.01, 't': 1}, data_iter, 5)))
print("concise adam", r(train_concise_ch11(torch.optim.Adam, {'lr': 0.01}, data_iter)))


# ---- 12.11 learning rate scheduling -----------------------------------------------------------------------------
class SquareRootScheduler:
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


class CosineScheduler:
    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0):
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        self.max_steps = self.max_update - self.warmup_steps

    def get_warmup_lr(self, epoch):
        increase = (self.base_lr_orig - self.warmup_begin_lr) * float(epoch) / float(self.warmup_steps)
        return self.warmup_begin_lr + increase

    def __call__(self, epoch):
        if epoch < self.warmup_steps:
            return self.get_warmup_lr(epoch)
        if epoch <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + math.cos(math.pi * (epoch - self.warmup_steps) / self.max_steps)) / 2
        return self.base_lr


sq = SquareRootScheduler(0.1)
cos_s = CosineScheduler(max_update=8, base_lr=0.3, final_lr=0.01, warmup_steps=2)
print("schedulers", [r(sq(t), 4) for t in range(4)], [r(cos_s(t), 4) for t in range(10)])
net = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
trainer = torch.optim.SGD(net.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.MultiStepLR(trainer, milestones=[2, 4], gamma=0.5)
lrs = []
for epoch in range(6):
    for X, y in data_iter:
        trainer.zero_grad()
        l = F.mse_loss(net(X).reshape(-1), y)
        l.backward()
        trainer.step()
    lrs.append(trainer.param_groups[0]['lr'])
    scheduler.step()
print("multistep", lrs, scheduler.get_last_lr(), r(l, 4), type(scheduler).__name__)
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
cos_s = CosineScheduler(max_update=8, base_lr=0.03, final_lr=0.01, warmup_steps=2)
for epoch in range(8):
    for param_group in trainer.param_groups:
        param_group['lr'] = cos_s(epoch)
    for X, y in data_iter:
        trainer.zero_grad()
        l = F.mse_loss(net(X).reshape(-1), y)
        l.backward()
        trainer.step()
print("custom cosine", r(trainer.param_groups[0]['lr'], 4), r(l, 4))
scheduler = torch.optim.lr_scheduler.LambdaLR(trainer, lr_lambda=lambda ep: 0.9 ** ep)
for _ in range(3):
    trainer.step()
    scheduler.step()
print("lambda lr", [r(v, 4) for v in scheduler.get_last_lr()], scheduler.last_epoch, sorted(scheduler.state_dict()))
