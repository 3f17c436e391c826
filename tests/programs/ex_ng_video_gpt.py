"""karpathy/ng-video-lecture-style (own code, a synthetic text in place of tinyshakespeare, tiny sizes): the
"mathematical trick in self-attention" warm-up (bag-of-words by loops, by ``torch.tril`` matmul and by
``masked_fill(-inf)`` + softmax, checked with ``torch.allclose``), ``bigram.py`` (an ``nn.Embedding`` logits
table, ``F.cross_entropy`` on ``view(B*T, C)``) and ``gpt.py`` (per-head ``Head`` modules with a ``tril``
buffer, ``MultiHeadAttention`` via ``torch.cat``, ``FeedFoward`` as ``nn.Sequential``, pre-LayerNorm blocks in an
``nn.Sequential``, position embeddings of ``torch.arange(T, device=device)``, dropout 0.2, ``_init_weights``
through ``apply``, ``get_batch`` with ``torch.randint`` + ``torch.stack``, ``estimate_loss`` under
``@torch.no_grad()`` with ``model.eval()``, AdamW, and ``multinomial`` generation decoded to text)."""
import torch
import torch.nn as nn
from torch.nn import functional as F

# hyperparameters
batch_size = 8  # how many independent sequences will we process in parallel?
block_size = 16  # what is the maximum context length for predictions?
max_iters = 30
eval_interval = 10
learning_rate = 3e-3
device = 'cuda' if torch.cuda.is_available() else 'cpu'
eval_iters = 4
n_embd = 32
n_head = 4
n_layer = 2
dropout = 0.2
# ------------

torch.manual_seed(1337)

words = ["the", "king", "queen", "shall", "speak", "of", "love", "and", "war", "first", "citizen", "before",
         "we", "proceed", "any", "further", "hear", "me", "all", "resolved", "rather", "to", "die", "than", "famish"]
g = torch.Generator().manual_seed(0)
text = "\n".join(" ".join(words[int(i)] for i in torch.randint(len(words), (9,), generator=g)).capitalize() + "."
                 for _ in range(80))

# here are all the unique characters that occur in this text
chars = sorted(list(set(text)))
vocab_size = len(chars)
print(''.join(chars).replace("\n", "\\n"), vocab_size, len(text))
# create a mapping from characters to integers
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for i, ch in enumerate(chars)}
encode = lambda s: [stoi[c] for c in s]  # encoder: take a string, output a list of integers  # noqa: E731
decode = lambda l: ''.join([itos[i] for i in l])  # decoder: take a list of integers, output a string  # noqa: E731,E741

# Train and test splits
data = torch.tensor(encode(text), dtype=torch.long)
print(data.shape, data.dtype, data[:20].tolist())
n = int(0.9 * len(data))  # first 90% will be train, rest val
train_data = data[:n]
val_data = data[n:]

# ----------------------------------------------------------------------------- the lecture's warm-ups
x = train_data[:block_size + 1]
for t in range(3):
    context = train_data[:t + 1]
    target = train_data[t + 1]
    print(f"when input is {context} the target: {target}")

B, T, C = 4, 8, 2  # batch, time, channels
xt = torch.randn(B, T, C)
xbow = torch.zeros((B, T, C))
for b in range(B):
    for t in range(T):
        xprev = xt[b, :t + 1]  # (t,C)
        xbow[b, t] = torch.mean(xprev, 0)
wei = torch.tril(torch.ones(T, T))
wei = wei / wei.sum(1, keepdim=True)
xbow2 = wei @ xt  # (B, T, T) @ (B, T, C) ----> (B, T, C)
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float('-inf'))
wei = F.softmax(wei, dim=-1)
xbow3 = wei @ xt
# (the lecture compares with the default tolerance; means and matmuls differ in the last bit, see
# docs/differences.md on summation order, so the check allows an absolute 1e-6)
print("xbow", torch.allclose(xbow, xbow2, atol=1e-6), torch.allclose(xbow, xbow3, atol=1e-6), round(xbow[0, -1, 0].item(), 5))
# version 4: self-attention!
B, T, C = 4, 8, 32
xt = torch.randn(B, T, C)
head_size = 16
key = nn.Linear(C, head_size, bias=False)
query = nn.Linear(C, head_size, bias=False)
value = nn.Linear(C, head_size, bias=False)
k = key(xt)  # (B, T, 16)
q = query(xt)  # (B, T, 16)
wei = q @ k.transpose(-2, -1) * head_size ** -0.5  # (B, T, 16) @ (B, 16, T) ---> (B, T, T)
wei = wei.masked_fill(tril == 0, float('-inf'))
wei = F.softmax(wei, dim=-1)
out = wei @ value(xt)
print("self-attention", out.shape, [round(v, 4) for v in wei[0, 2].tolist()[:3]], round(k.var().item(), 4),
      round(q.var().item(), 4), round(wei.var().item(), 4))
print("softmax sharpening", [round(v, 4) for v in torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]) * 8,
                                                                 dim=-1).tolist()])


# ----------------------------------------------------------------------------- bigram.py
class BigramLanguageModel(nn.Module):

    def __init__(self, vocab_size):
        super().__init__()
        # each token directly reads off the logits for the next token from a lookup table
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        # idx and targets are both (B,T) tensor of integers
        logits = self.token_embedding_table(idx)  # (B,T,C)
        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            loss = F.cross_entropy(logits, targets)
        return logits, loss

    def generate(self, idx, max_new_tokens):
        # idx is (B, T) array of indices in the current context
        for _ in range(max_new_tokens):
            logits, loss = self(idx)
            logits = logits[:, -1, :]  # becomes (B, C)
            probs = F.softmax(logits, dim=-1)  # (B, C)
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T+1)
        return idx


# data loading
def get_batch(split):
    # generate a small batch of data of inputs x and targets y
    data = train_data if split == 'train' else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    x, y = x.to(device), y.to(device)
    return x, y


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


model = BigramLanguageModel(vocab_size)
m = model.to(device)
xb, yb = get_batch('train')
logits, loss = m(xb, yb)
print("bigram", logits.shape, round(loss.item(), 4))
optimizer = torch.optim.AdamW(m.parameters(), lr=1e-2)
for steps in range(20):
    xb, yb = get_batch('train')
    logits, loss = m(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if steps % 5 == 0:
        print(steps, round(loss.item(), 4))
losses = estimate_loss()
print(f"bigram: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
print(repr(decode(m.generate(idx=torch.zeros((1, 1), dtype=torch.long), max_new_tokens=30)[0].tolist())))


# ----------------------------------------------------------------------------- gpt.py
class Head(nn.Module):
    """ one head of self-attention """

    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size)))

        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        # input of size (batch, time-step, channels)
        # output of size (batch, time-step, head size)
        B, T, C = x.shape
        k = self.key(x)  # (B,T,hs)
        q = self.query(x)  # (B,T,hs)
        # compute attention scores ("affinities")
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T)
        wei = self.dropout(wei)
        # perform the weighted aggregation of the values
        v = self.value(x)  # (B,T,hs)
        out = wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
        return out


class MultiHeadAttention(nn.Module):
    """ multiple heads of self-attention in parallel """

    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(head_size * num_heads, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        out = self.dropout(self.proj(out))
        return out


class FeedFoward(nn.Module):
    """ a simple linear layer followed by a non-linearity """

    def __init__(self, n_embd):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    """ Transformer block: communication followed by computation """

    def __init__(self, n_embd, n_head):
        # n_embd: embedding dimension, n_head: the number of heads we'd like
        super().__init__()
        head_size = n_embd // n_head
        self.sa = MultiHeadAttention(n_head, head_size)
        self.ffwd = FeedFoward(n_embd)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        x = x + self.ffwd(self.ln2(x))
        return x


class GPTLanguageModel(nn.Module):

    def __init__(self):
        super().__init__()
        # each token directly reads off the logits for the next token from a lookup table
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head=n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)  # final layer norm
        self.lm_head = nn.Linear(n_embd, vocab_size)

        # better init, not covered in the original GPT video, but important, will cover in followup video
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.shape

        # idx and targets are both (B,T) tensor of integers
        tok_emb = self.token_embedding_table(idx)  # (B,T,C)
        pos_emb = self.position_embedding_table(torch.arange(T, device=device))  # (T,C)
        x = tok_emb + pos_emb  # (B,T,C)
        x = self.blocks(x)  # (B,T,C)
        x = self.ln_f(x)  # (B,T,C)
        logits = self.lm_head(x)  # (B,T,vocab_size)

        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            loss = F.cross_entropy(logits, targets)

        return logits, loss

    def generate(self, idx, max_new_tokens):
        # idx is (B, T) array of indices in the current context
        for _ in range(max_new_tokens):
            # crop idx to the last block_size tokens
            idx_cond = idx[:, -block_size:]
            # get the predictions
            logits, loss = self(idx_cond)
            # focus only on the last time step
            logits = logits[:, -1, :]  # becomes (B, C)
            # apply softmax to get probabilities
            probs = F.softmax(logits, dim=-1)  # (B, C)
            # sample from the distribution
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            # append sampled index to the running sequence
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T+1)
        return idx


model = GPTLanguageModel()
m = model.to(device)
# print the number of parameters in the model
print(sum(p.numel() for p in m.parameters()) / 1e6, 'M parameters')

# create a PyTorch optimizer
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

for iter in range(max_iters):

    # every once in a while evaluate the loss on train and val sets
    if iter % eval_interval == 0 or iter == max_iters - 1:
        losses = estimate_loss()
        print(f"step {iter}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")

    # sample a batch of data
    xb, yb = get_batch('train')

    # evaluate the loss
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(f"iter {iter} loss {loss.item():.4f}")

# generate from the model
context = torch.zeros((1, 1), dtype=torch.long, device=device)
print(repr(decode(m.generate(context, max_new_tokens=40)[0].tolist())))
print("training flag", model.training, model.blocks[0].sa.heads[0].tril.shape,
      len(model.state_dict()), "tril in state", "blocks.0.sa.heads.0.tril" in model.state_dict())
