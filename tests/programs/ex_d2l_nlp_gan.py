"""Dive into Deep Learning (d2l.ai, PyTorch edition), chapters 14-16 and 20 (computer vision fine-tuning, NLP
applications, GANs) in its own style (own code, synthetic data, no downloads, no d2l package): fine-tuning with
a 10x learning rate for the new head (named_parameters filtering, param groups), a transposed convolution from
scratch and its matrix form, token embeddings with knn/analogy through cosine similarity and topk, a BiRNN and a
textCNN sentiment classifier on frozen "pretrained" embeddings (weight.data.copy_, requires_grad = False,
Conv1d, AdaptiveAvgPool1d), decomposable attention for NLI, a GAN from scratch on Gaussian data and DCGAN's
generator/discriminator blocks. Prints one fact per line."""

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


def r(x, n=5):
    return float(f"{float(x):.{n}g}")


# ---- 14.2 fine-tuning: a new head with 10x the learning rate -------------------------------------------------
class TinyResNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


pretrained_net = TinyResNet(1000)
print("pretrained fc", pretrained_net.fc)
finetune_net = TinyResNet(1000)
finetune_net.load_state_dict(pretrained_net.state_dict())
finetune_net.fc = nn.Linear(finetune_net.fc.in_features, 2)
nn.init.xavier_uniform_(finetune_net.fc.weight)


def train_fine_tuning(net, learning_rate, num_epochs=3, param_group=True):
    g = torch.Generator().manual_seed(3)
    X = torch.randn(16, 3, 8, 8, generator=g)
    y = torch.randint(0, 2, (16,), generator=g)
    X[y == 1] += 0.5
    loss = nn.CrossEntropyLoss(reduction="none")
    if param_group:
        params_1x = [param for name, param in net.named_parameters() if name not in ["fc.weight", "fc.bias"]]
        trainer = torch.optim.SGD([{'params': params_1x},
                                   {'params': net.fc.parameters(), 'lr': learning_rate * 10}],
                                  lr=learning_rate, weight_decay=0.001)
    else:
        trainer = torch.optim.SGD(net.parameters(), lr=learning_rate, weight_decay=0.001)
    for epoch in range(num_epochs):
        net.train()
        trainer.zero_grad()
        l = loss(net(X), y)
        l.sum().backward()
        trainer.step()
    net.eval()
    with torch.no_grad():
        acc = (net(X).argmax(1) == y).float().mean()
    print("finetune", param_group, r(l.mean(), 4), r(acc, 3), [g['lr'] for g in trainer.param_groups],
          len(trainer.param_groups[0]['params']))


train_fine_tuning(finetune_net, 5e-3)
scratch_net = TinyResNet(2)
train_fine_tuning(scratch_net, 5e-2, param_group=False)


# ---- 14.10 transposed convolution --------------------------------------------------------------------------
def trans_conv(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] + h - 1, X.shape[1] + w - 1))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            Y[i: i + h, j: j + w] += X[i, j] * K
    return Y


X = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print("trans_conv", trans_conv(X, K).tolist())
X, K = X.reshape(1, 1, 2, 2), K.reshape(1, 1, 2, 2)
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
tconv.weight.data = K
print("ConvTranspose2d", tconv(X).tolist())
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, padding=1, bias=False)
tconv.weight.data = K
print("padding", tconv(X).tolist())
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, stride=2, bias=False)
tconv.weight.data = K
print("stride", tconv(X).tolist())
X = torch.rand(size=(1, 10, 16, 16))
conv = nn.Conv2d(10, 20, kernel_size=5, padding=2, stride=3)
tconv = nn.ConvTranspose2d(20, 10, kernel_size=5, padding=2, stride=3)
print("shape back", tconv(conv(X)).shape == X.shape)


def kernel2matrix(K):
    k, W = torch.zeros(5), torch.zeros((4, 9))
    k[:2], k[3:5] = K[0, :], K[1, :]
    W[0, :5], W[1, 1:6], W[2, 3:8], W[3, 4:] = k, k, k, k
    return W


def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


X = torch.arange(9.0).reshape(3, 3)
K = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
W = kernel2matrix(K)
Y = corr2d(X, K)
print("matrix form", W.tolist()[1], (Y == torch.matmul(W, X.reshape(-1)).reshape(2, 2)).all().item())
Z = trans_conv(Y, K)
print("transposed matrix", (Z == torch.matmul(W.T, Y.reshape(-1)).reshape(3, 3)).all().item())
print("bilinear", [r(v, 4) for v in F.interpolate(torch.arange(4.0).reshape(1, 1, 2, 2), scale_factor=2,
                                                    mode="bilinear", align_corners=False).reshape(-1)[:6].tolist()])


# ---- 15.7 word similarity and analogy -----------------------------------------------------------------------
class TokenEmbedding:
    def __init__(self, idx_to_token, vectors):
        self.idx_to_token = ['<unk>'] + idx_to_token
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}
        self.idx_to_vec = torch.cat((torch.zeros(1, vectors.shape[1]), vectors), 0)
        self.unknown_idx = 0

    def __getitem__(self, tokens):
        indices = [self.token_to_idx.get(token, self.unknown_idx) for token in tokens]
        return self.idx_to_vec[torch.tensor(indices)]

    def __len__(self):
        return len(self.idx_to_token)


words = ["man", "woman", "king", "queen", "son", "daughter", "good", "bad", "great", "terrible", "movie", "film",
         "plot", "boring", "fun"]
g = torch.Generator().manual_seed(11)
gender = torch.randn(16, generator=g)
vecs = torch.randn(len(words), 16, generator=g)
for a, b in [(0, 1), (2, 3), (4, 5)]:
    vecs[b] = vecs[a] + gender
glove = TokenEmbedding(words, vecs)
print("embedding", len(glove), tuple(glove.idx_to_vec.shape), glove.token_to_idx['king'], glove.idx_to_token[3])


def knn(W, x, k):
    cos = torch.mv(W, x.reshape(-1,)) / (torch.sqrt(torch.sum(W * W, axis=1) + 1e-9) * torch.sqrt((x * x).sum()))
    _, topk = torch.topk(cos, k=k)
    return topk, [cos[int(i)] for i in topk]


def get_similar_tokens(query_token, k, embed):
    topk, cos = knn(embed.idx_to_vec, embed[[query_token]], k + 1)
    return [(embed.idx_to_token[int(i)], round(float(c), 3)) for i, c in zip(topk[1:], cos[1:])]


def get_analogy(token_a, token_b, token_c, embed):
    vecs = embed[[token_a, token_b, token_c]]
    x = vecs[1] - vecs[0] + vecs[2]
    topk, cos = knn(embed.idx_to_vec, x, 1)
    return embed.idx_to_token[int(topk[0])]


print("similar", get_similar_tokens('good', 3, glove))
print("analogy", get_analogy('man', 'woman', 'son', glove), get_analogy('man', 'woman', 'king', glove))


# ---- 16.2 / 16.3 sentiment: BiRNN and textCNN on frozen embeddings ----------------------------------------
vocab = ['<unk>', '<pad>'] + words
pos_words, neg_words = ["good", "great", "fun"], ["bad", "terrible", "boring"]
neutral = ["movie", "film", "plot", "man", "woman"]
g = torch.Generator().manual_seed(12)


def sample_review(label):
    ws = [neutral[int(i)] for i in torch.randint(0, len(neutral), (6,), generator=g)]
    side = pos_words if label else neg_words
    ws[int(torch.randint(0, 6, (1,), generator=g))] = side[int(torch.randint(0, 3, (1,), generator=g))]
    return [vocab.index(w) for w in ws] + [1, 1]


labels = torch.randint(0, 2, (48,), generator=g)
features = torch.tensor([sample_review(int(v)) for v in labels])
print("reviews", tuple(features.shape), features[0].tolist(), labels[:8].tolist())
train_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(features, labels), batch_size=16,
                                         shuffle=True)
embeds = torch.cat((torch.zeros(2, 16), vecs), 0)


class BiRNN(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, **kwargs):
        super(BiRNN, self).__init__(**kwargs)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.encoder = nn.LSTM(embed_size, num_hiddens, num_layers=num_layers, bidirectional=True)
        self.decoder = nn.Linear(4 * num_hiddens, 2)

    def forward(self, inputs):
        embeddings = self.embedding(inputs.T)
        self.encoder.flatten_parameters()
        outputs, _ = self.encoder(embeddings)
        encoding = torch.cat((outputs[0], outputs[-1]), dim=1)
        outs = self.decoder(encoding)
        return outs


def init_weights(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)
    if type(module) == nn.LSTM:
        for param in module._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(module._parameters[param])


def train(net, tag, num_epochs=4, lr=0.01):
    trainer = torch.optim.Adam(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss(reduction="none")
    for epoch in range(num_epochs):
        total, correct, lsum = 0, 0, 0.0
        for X, y in train_iter:
            trainer.zero_grad()
            y_hat = net(X)
            l = loss(y_hat, y)
            l.sum().backward()
            trainer.step()
            lsum += float(l.sum())
            correct += int((y_hat.argmax(1) == y).sum())
            total += len(y)
    print(tag, "loss", r(lsum / total, 4), "acc", r(correct / total, 3))


def predict_sentiment(net, tokens):
    seq = torch.tensor([vocab.index(w) for w in tokens])
    label = torch.argmax(net(seq.reshape(1, -1)), dim=1)
    return 'positive' if label == 1 else 'negative'


net = BiRNN(len(vocab), 16, 16, 2)
net.apply(init_weights)
net.embedding.weight.data.copy_(embeds)
net.embedding.weight.requires_grad = False
print("frozen", net.embedding.weight.requires_grad, sum(p.numel() for p in net.parameters() if p.requires_grad))
train(net, "birnn")
print("birnn says", predict_sentiment(net, ["movie", "good", "film"]), predict_sentiment(net, ["plot", "boring"]))


class TextCNN(nn.Module):
    def __init__(self, vocab_size, embed_size, kernel_sizes, num_channels, **kwargs):
        super(TextCNN, self).__init__(**kwargs)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.constant_embedding = nn.Embedding(vocab_size, embed_size)
        self.dropout = nn.Dropout(0.5)
        self.decoder = nn.Linear(sum(num_channels), 2)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.relu = nn.ReLU()
        self.convs = nn.ModuleList()
        for c, k in zip(num_channels, kernel_sizes):
            self.convs.append(nn.Conv1d(2 * embed_size, c, k))

    def forward(self, inputs):
        embeddings = torch.cat((self.embedding(inputs), self.constant_embedding(inputs)), dim=2)
        embeddings = embeddings.permute(0, 2, 1)
        encoding = torch.cat([torch.squeeze(self.relu(self.pool(conv(embeddings))), dim=-1)
                              for conv in self.convs], dim=1)
        outputs = self.decoder(self.dropout(encoding))
        return outputs


def corr1d(X, K):
    w = K.shape[0]
    Y = torch.zeros((X.shape[0] - w + 1))
    for i in range(Y.shape[0]):
        Y[i] = (X[i: i + w] * K).sum()
    return Y


def corr1d_multi_in(X, K):
    return sum(corr1d(x, k) for x, k in zip(X, K))


X = torch.tensor([[0, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7], [2, 3, 4, 5, 6, 7, 8]])
K = torch.tensor([[1, 2], [3, 4], [-1, -3]])
print("corr1d", corr1d(X[0], K[0]).tolist(), corr1d_multi_in(X, K).tolist(), corr1d_multi_in(X, K).dtype)
net = TextCNN(len(vocab), 16, [2, 3], [8, 8])


def init_cnn(module):
    if type(module) in (nn.Linear, nn.Conv1d):
        nn.init.xavier_uniform_(module.weight)


net.apply(init_cnn)
net.embedding.weight.data.copy_(embeds)
net.constant_embedding.weight.data.copy_(embeds)
net.constant_embedding.weight.requires_grad = False
train(net, "textcnn")
net.eval()
print("textcnn says", predict_sentiment(net, ["film", "fun", "plot"]), predict_sentiment(net, ["plot", "bad", "movie"]))
print(net)


# ---- 16.5 natural language inference: decomposable attention -------------------------------------------------
def mlp(num_inputs, num_hiddens, flatten):
    net = []
    net.append(nn.Dropout(0.2))
    net.append(nn.Linear(num_inputs, num_hiddens))
    net.append(nn.ReLU())
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    net.append(nn.Dropout(0.2))
    net.append(nn.Linear(num_hiddens, num_hiddens))
    net.append(nn.ReLU())
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    return nn.Sequential(*net)


class Attend(nn.Module):
    def __init__(self, num_inputs, num_hiddens, **kwargs):
        super(Attend, self).__init__(**kwargs)
        self.f = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B):
        f_A = self.f(A)
        f_B = self.f(B)
        e = torch.bmm(f_A, f_B.permute(0, 2, 1))
        beta = torch.bmm(F.softmax(e, dim=-1), B)
        alpha = torch.bmm(F.softmax(e.permute(0, 2, 1), dim=-1), A)
        return beta, alpha


class Compare(nn.Module):
    def __init__(self, num_inputs, num_hiddens, **kwargs):
        super(Compare, self).__init__(**kwargs)
        self.g = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B, beta, alpha):
        V_A = self.g(torch.cat([A, beta], dim=2))
        V_B = self.g(torch.cat([B, alpha], dim=2))
        return V_A, V_B


class Aggregate(nn.Module):
    def __init__(self, num_inputs, num_hiddens, num_outputs, **kwargs):
        super(Aggregate, self).__init__(**kwargs)
        self.h = mlp(num_inputs, num_hiddens, flatten=True)
        self.linear = nn.Linear(num_hiddens, num_outputs)

    def forward(self, V_A, V_B):
        V_A = V_A.sum(dim=1)
        V_B = V_B.sum(dim=1)
        Y_hat = self.linear(self.h(torch.cat([V_A, V_B], dim=1)))
        return Y_hat


class DecomposableAttention(nn.Module):
    def __init__(self, vocab, embed_size, num_hiddens, num_inputs_attend=16, num_inputs_compare=32,
                 num_inputs_agg=32, **kwargs):
        super(DecomposableAttention, self).__init__(**kwargs)
        self.embedding = nn.Embedding(len(vocab), embed_size)
        self.attend = Attend(num_inputs_attend, num_hiddens)
        self.compare = Compare(num_inputs_compare, num_hiddens)
        self.aggregate = Aggregate(num_inputs_agg, num_hiddens, num_outputs=3)

    def forward(self, X):
        premises, hypotheses = X
        A = self.embedding(premises)
        B = self.embedding(hypotheses)
        beta, alpha = self.attend(A, B)
        V_A, V_B = self.compare(A, B, beta, alpha)
        Y_hat = self.aggregate(V_A, V_B)
        return Y_hat


net = DecomposableAttention(vocab, 16, 16)
net.embedding.weight.data.copy_(embeds)
g = torch.Generator().manual_seed(13)
premises = torch.randint(2, len(vocab), (24, 6), generator=g)
hypotheses = torch.randint(2, len(vocab), (24, 5), generator=g)
nli_y = torch.randint(0, 3, (24,), generator=g)
trainer = torch.optim.Adam(net.parameters(), lr=0.003)
loss = nn.CrossEntropyLoss(reduction="none")
for epoch in range(5):
    net.train()
    trainer.zero_grad()
    l = loss(net([premises, hypotheses]), nli_y)
    l.sum().backward()
    trainer.step()
net.eval()
print("nli loss", r(l.mean(), 4), "pred", net([premises[:4], hypotheses[:4]]).argmax(dim=1).tolist())


# ---- 20.1 GAN from scratch ---------------------------------------------------------------------------------
X = torch.normal(0.0, 1, (256, 2))
A = torch.tensor([[1, 2], [-0.1, 0.5]])
b = torch.tensor([1, 2])
data = torch.matmul(X, A) + b
print(f'The covariance matrix is\n{torch.matmul(A.T, A)}')
batch_size = 32
data_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=batch_size, shuffle=True)
net_G = nn.Sequential(nn.Linear(2, 2))
net_D = nn.Sequential(nn.Linear(2, 5), nn.Tanh(), nn.Linear(5, 3), nn.Tanh(), nn.Linear(3, 1))


def update_D(X, Z, net_D, net_G, loss, trainer_D):
    batch_size = X.shape[0]
    ones = torch.ones((batch_size,), device=X.device)
    zeros = torch.zeros((batch_size,), device=X.device)
    trainer_D.zero_grad()
    real_Y = net_D(X)
    fake_X = net_G(Z)
    fake_Y = net_D(fake_X.detach())
    loss_D = (loss(real_Y, ones.reshape(real_Y.shape)) + loss(fake_Y, zeros.reshape(fake_Y.shape))) / 2
    loss_D.backward()
    trainer_D.step()
    return loss_D


def update_G(Z, net_D, net_G, loss, trainer_G):
    batch_size = Z.shape[0]
    ones = torch.ones((batch_size,), device=Z.device)
    trainer_G.zero_grad()
    fake_X = net_G(Z)
    fake_Y = net_D(fake_X)
    loss_G = loss(fake_Y, ones.reshape(fake_Y.shape))
    loss_G.backward()
    trainer_G.step()
    return loss_G


def train_gan(net_D, net_G, data_iter, num_epochs, lr_D, lr_G, latent_dim, data):
    loss = nn.BCEWithLogitsLoss(reduction='sum')
    for w in net_D.parameters():
        nn.init.normal_(w, 0, 0.02)
    for w in net_G.parameters():
        nn.init.normal_(w, 0, 0.02)
    trainer_D = torch.optim.Adam(net_D.parameters(), lr=lr_D)
    trainer_G = torch.optim.Adam(net_G.parameters(), lr=lr_G)
    for epoch in range(num_epochs):
        metric = [0.0, 0.0, 0]
        for (X,) in data_iter:
            batch_size = X.shape[0]
            Z = torch.normal(0, 1, size=(batch_size, latent_dim))
            metric[0] += float(update_D(X, Z, net_D, net_G, loss, trainer_D))
            metric[1] += float(update_G(Z, net_D, net_G, loss, trainer_G))
            metric[2] += batch_size
        loss_D, loss_G = metric[0] / metric[2], metric[1] / metric[2]
        print(f'gan epoch {epoch + 1} loss_D {loss_D:.3f}, loss_G {loss_G:.3f}')
    Z = torch.normal(0, 1, size=(100, latent_dim))
    fake_X = net_G(Z).detach().numpy()
    print("fake mean", [round(float(v), 2) for v in fake_X.mean(0)], fake_X.dtype)


train_gan(net_D, net_G, data_iter, 4, 0.05, 0.005, 2, data[:100])


# ---- 20.2 DCGAN blocks ----------------------------------------------------------------------------------------
class G_block(nn.Module):
    def __init__(self, out_channels, in_channels=3, kernel_size=4, strides=2, padding=1, **kwargs):
        super(G_block, self).__init__(**kwargs)
        self.conv2d_trans = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, strides, padding,
                                               bias=False)
        self.batch_norm = nn.BatchNorm2d(out_channels)
        self.activation = nn.ReLU()

    def forward(self, X):
        return self.activation(self.batch_norm(self.conv2d_trans(X)))


class D_block(nn.Module):
    def __init__(self, out_channels, in_channels=3, kernel_size=4, strides=2, padding=1, alpha=0.2, **kwargs):
        super(D_block, self).__init__(**kwargs)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, strides, padding, bias=False)
        self.batch_norm = nn.BatchNorm2d(out_channels)
        self.activation = nn.LeakyReLU(alpha, inplace=True)

    def forward(self, X):
        return self.activation(self.batch_norm(self.conv2d(X)))


x = torch.zeros((2, 3, 16, 16))
g_blk = G_block(20)
print("G_block", g_blk(x).shape)
x = torch.zeros((2, 3, 1, 1))
g_blk = G_block(20, strides=1, padding=0)
print("G_block 1x1", g_blk(x).shape)
alphas = [0, .2, .4, .6, .8, 1]
x = torch.arange(-2, 1, 0.1)
Y = [nn.LeakyReLU(alpha)(x).detach().numpy() for alpha in alphas]
print("leaky", [round(float(y[3]), 4) for y in Y], len(x))
x = torch.zeros((2, 3, 16, 16))
d_blk = D_block(20)
print("D_block", d_blk(x).shape)
n_G, n_D = 8, 8
net_G = nn.Sequential(G_block(in_channels=16, out_channels=n_G * 2, strides=1, padding=0),
                      G_block(in_channels=n_G * 2, out_channels=n_G),
                      nn.ConvTranspose2d(in_channels=n_G, out_channels=3, kernel_size=4, stride=2, padding=1,
                                         bias=False),
                      nn.Tanh())
net_D = nn.Sequential(D_block(n_D), D_block(in_channels=n_D, out_channels=n_D * 2),
                      nn.Conv2d(in_channels=n_D * 2, out_channels=1, kernel_size=4, bias=False))
Z = torch.normal(0, 1, size=(4, 16, 1, 1))
fake = net_G(Z)
print("dcgan G", fake.shape, "D", net_D(fake).shape)
trainer_hp = {'lr': 0.005, 'betas': [0.5, 0.999]}
trainer_D = torch.optim.Adam(net_D.parameters(), **trainer_hp)
trainer_G = torch.optim.Adam(net_G.parameters(), **trainer_hp)
loss = nn.BCEWithLogitsLoss(reduction='sum')
real = torch.rand(4, 3, 16, 16) * 2 - 1
for step in range(3):
    Z = torch.normal(0, 1, size=(4, 16, 1, 1))
    lD = update_D(real, Z, net_D, net_G, loss, trainer_D)
    lG = update_G(Z, net_D, net_G, loss, trainer_G)
    print("dcgan step", step, r(lD, 4), r(lG, 4))
print("betas", trainer_D.param_groups[0]['betas'], type(trainer_D.param_groups[0]['betas']).__name__)
