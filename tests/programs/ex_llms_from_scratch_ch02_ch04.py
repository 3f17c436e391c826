"""rasbt/LLMs-from-scratch-style chapters 2-4 (own code, a synthetic short story in place of "The Verdict", a
word-level tokenizer in place of tiktoken, tiny sizes), as the book's ``gpt.py`` (which the later chapters
import as ``previous_chapters``) with its ``main()`` run when the file is run:

- ch02: ``SimpleTokenizerV2`` (``re.split`` on punctuation, ``<|unk|>``/``<|endoftext|>``), ``GPTDatasetV1``
  (sliding windows of ``torch.tensor`` chunks), ``create_dataloader_v1`` (``DataLoader`` with ``batch_size``,
  ``shuffle``, ``drop_last``, ``num_workers=0``), token + positional ``nn.Embedding`` of ``torch.arange``;
- ch03: attention by loops (``torch.empty`` filled by ``torch.dot``), ``inputs @ inputs.T``, softmax,
  ``SelfAttention_v1`` (``nn.Parameter(torch.rand(...))``) / ``_v2`` (``nn.Linear``), the simple
  ``tril`` mask renormalised and the ``triu`` + ``masked_fill(-torch.inf)`` mask, ``nn.Dropout(0.5)`` on ones,
  ``CausalAttention`` / ``MultiHeadAttentionWrapper`` / ``MultiHeadAttention`` with
  ``register_buffer('mask', torch.triu(...))``, ``masked_fill_``, ``.view/.transpose/.contiguous``;
- ch04: ``LayerNorm`` by hand (``var(unbiased=False)``), ``GELU``'s tanh formula by hand vs ``nn.GELU``'s,
  ``FeedForward``, the shortcut ``ExampleDeepNeuralNetwork`` and its gradient means, ``TransformerBlock``,
  ``GPTModel``, parameter counts, the model's size in MB and ``generate_text_simple``.
"""
import re

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

# ----------------------------------------------------------------------------- ch02: text and tokenizer
_WORDS = ["I", "had", "always", "thought", "Jack", "Gisburn", "rather", "a", "cheap", "genius", "--", "though",
          "good", "fellow", "enough", "so", "it", "was", "no", "great", "surprise", "to", "me", "hear", "that",
          "in", "the", "height", "of", "his", "glory", "he", "had", "dropped", "painting", "married", "rich",
          "widow", "and", "established", "himself", "villa", "on", "Riviera", "."]


def make_text(n_sentences=60, seed=0):
    """A deterministic short story (plain Python: the same text under every torch)."""
    state = seed * 7919 + 17
    sentences = []
    for _ in range(n_sentences):
        words = []
        for _ in range(10):
            state = (state * 1103515245 + 12345) % (2 ** 31)
            words.append(_WORDS[state % (len(_WORDS) - 1)])
        sentences.append(" ".join(words) + ".")
    return " ".join(sentences)


class SimpleTokenizerV2:
    def __init__(self, vocab):
        self.str_to_int = vocab
        self.int_to_str = {i: s for s, i in vocab.items()}

    def encode(self, text, allowed_special=None):
        preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', text)
        preprocessed = [item.strip() for item in preprocessed if item.strip()]
        preprocessed = [item if item in self.str_to_int else "<|unk|>" for item in preprocessed]
        ids = [self.str_to_int[s] for s in preprocessed]
        return ids

    def decode(self, ids):
        text = " ".join([self.int_to_str[i] for i in ids])
        # Replace spaces before the specified punctuations
        text = re.sub(r'\s+([,.:;?!"()\'])', r'\1', text)
        return text


def build_vocab(raw_text):
    preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', raw_text)
    preprocessed = [item.strip() for item in preprocessed if item.strip()]
    all_tokens = sorted(list(set(preprocessed)))
    all_tokens.extend(["<|endoftext|>", "<|unk|>"])
    return {token: integer for integer, token in enumerate(all_tokens)}


RAW_TEXT = make_text()
VOCAB = build_vocab(RAW_TEXT)
TOKENIZER = SimpleTokenizerV2(VOCAB)
EOT_ID = VOCAB["<|endoftext|>"]


class GPTDatasetV1(Dataset):
    def __init__(self, txt, tokenizer, max_length, stride):
        self.input_ids = []
        self.target_ids = []

        # Tokenize the entire text
        token_ids = tokenizer.encode(txt, allowed_special={"<|endoftext|>"})

        # Use a sliding window to chunk the book into overlapping sequences of max_length
        for i in range(0, len(token_ids) - max_length, stride):
            input_chunk = token_ids[i:i + max_length]
            target_chunk = token_ids[i + 1: i + max_length + 1]
            self.input_ids.append(torch.tensor(input_chunk))
            self.target_ids.append(torch.tensor(target_chunk))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def create_dataloader_v1(txt, batch_size=4, max_length=256, stride=128, shuffle=True, drop_last=True,
                         num_workers=0):
    tokenizer = TOKENIZER
    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)
    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                            num_workers=num_workers)
    return dataloader


# ----------------------------------------------------------------------------- ch03: attention
class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)  # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))  # New

    def forward(self, x):
        b, num_tokens, d_in = x.shape  # New batch dimension b
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2)  # Changed transpose
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)  # New

        context_vec = attn_weights @ values
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape

        keys = self.W_key(x)  # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional projection

        return context_vec


# ----------------------------------------------------------------------------- ch04: the GPT model
GPT_CONFIG_124M = {
    "vocab_size": len(VOCAB),  # Vocabulary size (50257 in the book)
    "context_length": 16,      # Context length (1024)
    "emb_dim": 32,             # Embedding dimension (768)
    "n_heads": 4,              # Number of attention heads (12)
    "n_layers": 2,             # Number of layers (12)
    "drop_rate": 0.1,          # Dropout rate
    "qkv_bias": False          # Query-Key-Value bias
}


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(
            torch.sqrt(torch.tensor(2.0 / torch.pi)) *
            (x + 0.044715 * torch.pow(x, 3))
        ))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
            GELU(),
            nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
        )

    def forward(self, x):
        return self.layers(x)


class ExampleDeepNeuralNetwork(nn.Module):
    def __init__(self, layer_sizes, use_shortcut):
        super().__init__()
        self.use_shortcut = use_shortcut
        self.layers = nn.ModuleList([
            nn.Sequential(nn.Linear(layer_sizes[0], layer_sizes[1]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[1], layer_sizes[2]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[2], layer_sizes[3]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[3], layer_sizes[4]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[4], layer_sizes[5]), GELU())
        ])

    def forward(self, x):
        for layer in self.layers:
            # Compute the output of the current layer
            layer_output = layer(x)
            # Check if shortcut can be applied
            if self.use_shortcut and x.shape == layer_output.shape:
                x = x + layer_output
            else:
                x = layer_output
        return x


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(
            d_in=cfg["emb_dim"],
            d_out=cfg["emb_dim"],
            context_length=cfg["context_length"],
            num_heads=cfg["n_heads"],
            dropout=cfg["drop_rate"],
            qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        # Shortcut connection for attention block
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)  # Shape [batch_size, num_tokens, emb_size]
        x = self.drop_shortcut(x)
        x = x + shortcut  # Add the original input back

        # Shortcut connection for feed-forward block
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        x = x + shortcut  # Add the original input back

        return x


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])

        self.trf_blocks = nn.Sequential(
            *[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])

        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds  # Shape [batch_size, num_tokens, emb_size]
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)
        return logits


def generate_text_simple(model, idx, max_new_tokens, context_size):
    # idx is (B, T) array of indices in the current context
    for _ in range(max_new_tokens):

        # Crop current context if it exceeds the supported context size
        idx_cond = idx[:, -context_size:]

        # Get the predictions
        with torch.no_grad():
            logits = model(idx_cond)

        # Focus only on the last time step
        # (batch, n_token, vocab_size) becomes (batch, vocab_size)
        logits = logits[:, -1, :]

        # Get the idx of the vocab entry with the highest logits value
        idx_next = torch.argmax(logits, dim=-1, keepdim=True)  # (batch, 1)

        # Append sampled index to the running sequence
        idx = torch.cat((idx, idx_next), dim=1)  # (batch, n_tokens+1)

    return idx


def r(t, n=4):
    """A tensor's values rounded, as a flat list (one printed fact)."""
    return [round(v, n) for v in t.detach().flatten().tolist()]


def print_gradients(model, x):
    # Forward pass
    output = model(x)
    target = torch.tensor([[0.]])

    # Calculate loss based on how close the target and output are
    loss = nn.MSELoss()
    loss = loss(output, target)

    # Backward pass to calculate the gradients
    loss.backward()

    for name, param in model.named_parameters():
        if 'weight' in name:
            # Print the mean absolute gradient of the weights
            print(f"{name} has gradient mean of {param.grad.abs().mean().item():.6g}")


def ch02():
    print("Total number of character:", len(RAW_TEXT))
    print(RAW_TEXT[:60])
    print("vocab size", len(VOCAB), "eot", EOT_ID)
    ids = TOKENIZER.encode("Jack had always thought -- a villa. Hello, do you like tea?")
    print(ids)
    print(TOKENIZER.decode(ids))
    text = " <|endoftext|> ".join(("I had a genius.", "In the sunlit terraces of the palace."))
    print(TOKENIZER.decode(TOKENIZER.encode(text)))

    enc_text = TOKENIZER.encode(RAW_TEXT)
    print(len(enc_text))
    enc_sample = enc_text[50:]
    context_size = 4
    x = enc_sample[:context_size]
    y = enc_sample[1:context_size + 1]
    print(f"x: {x}")
    print(f"y:      {y}")
    for i in range(1, context_size + 1):
        context = enc_sample[:i]
        desired = enc_sample[i]
        print(TOKENIZER.decode(context), "---->", TOKENIZER.decode([desired]))

    dataloader = create_dataloader_v1(RAW_TEXT, batch_size=1, max_length=4, stride=1, shuffle=False)
    data_iter = iter(dataloader)
    first_batch = next(data_iter)
    print(first_batch)
    second_batch = next(data_iter)
    print(second_batch)

    dataloader = create_dataloader_v1(RAW_TEXT, batch_size=8, max_length=4, stride=4, shuffle=False)
    data_iter = iter(dataloader)
    inputs, targets = next(data_iter)
    print("Inputs:\n", inputs)
    print("\nTargets:\n", targets)
    print("len(dataloader)", len(dataloader), len(dataloader.dataset))

    torch.manual_seed(123)
    shuffled = create_dataloader_v1(RAW_TEXT, batch_size=8, max_length=4, stride=4, shuffle=True)
    print("shuffled first batch", next(iter(shuffled))[0][:, 0].tolist())
    print("batches", [tuple(b[0].shape) for b in shuffled][-2:])

    input_ids = torch.tensor([2, 3, 5, 1])
    vocab_size = 6
    output_dim = 3
    torch.manual_seed(123)
    embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
    print(embedding_layer.weight)
    print(embedding_layer(torch.tensor([3])))
    print(embedding_layer(input_ids))

    vocab_size = len(VOCAB)
    output_dim = 16
    token_embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
    max_length = 4
    dataloader = create_dataloader_v1(RAW_TEXT, batch_size=8, max_length=max_length, stride=max_length,
                                      shuffle=False)
    data_iter = iter(dataloader)
    inputs, targets = next(data_iter)
    print("Token IDs:\n", inputs)
    print("\nInputs shape:\n", inputs.shape)
    token_embeddings = token_embedding_layer(inputs)
    print(token_embeddings.shape)
    context_length = max_length
    pos_embedding_layer = torch.nn.Embedding(context_length, output_dim)
    pos_embeddings = pos_embedding_layer(torch.arange(max_length))
    print(pos_embeddings.shape)
    input_embeddings = token_embeddings + pos_embeddings
    print(input_embeddings.shape, round(input_embeddings.sum().item(), 4), round(input_embeddings.std().item(), 5))


def ch03():
    inputs = torch.tensor(
        [[0.43, 0.15, 0.89],  # Your     (x^1)
         [0.55, 0.87, 0.66],  # journey  (x^2)
         [0.57, 0.85, 0.64],  # starts   (x^3)
         [0.22, 0.58, 0.33],  # with     (x^4)
         [0.77, 0.25, 0.10],  # one      (x^5)
         [0.05, 0.80, 0.55]]  # step     (x^6)
    )
    query = inputs[1]  # 2nd input token is the query
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)  # dot product (transpose not necessary here since they are 1-dim vectors)
    print(r(attn_scores_2))
    res = 0.
    for idx, element in enumerate(inputs[0]):
        res += inputs[0][idx] * query[idx]
    print(round(res.item(), 4), round(torch.dot(inputs[0], query).item(), 4))
    attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()
    print("Attention weights:", r(attn_weights_2_tmp), "Sum:", round(attn_weights_2_tmp.sum().item(), 4))

    def softmax_naive(x):
        return torch.exp(x) / torch.exp(x).sum(dim=0)
    attn_weights_2_naive = softmax_naive(attn_scores_2)
    print("Attention weights:", r(attn_weights_2_naive))
    attn_weights_2 = torch.softmax(attn_scores_2, dim=0)
    print("Attention weights:", r(attn_weights_2), "Sum:", round(attn_weights_2.sum().item(), 4))
    context_vec_2 = torch.zeros(query.shape)
    for i, x_i in enumerate(inputs):
        context_vec_2 += attn_weights_2[i] * x_i
    print(r(context_vec_2))

    attn_scores = torch.empty(6, 6)
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_j)
    attn_scores2 = inputs @ inputs.T
    print(r(attn_scores), torch.allclose(attn_scores, attn_scores2))
    attn_weights = torch.softmax(attn_scores, dim=-1)
    print("All row sums:", r(attn_weights.sum(dim=-1)))
    all_context_vecs = attn_weights @ inputs
    print(r(all_context_vecs))
    print("Previous 2nd context vector:", r(context_vec_2), torch.allclose(all_context_vecs[1], context_vec_2))

    x_2 = inputs[1]
    d_in = inputs.shape[1]
    d_out = 2
    torch.manual_seed(123)
    W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    query_2 = x_2 @ W_query
    keys = inputs @ W_key
    values = inputs @ W_value
    print(r(query_2), "keys.shape:", keys.shape, "values.shape:", values.shape)
    keys_2 = keys[1]
    attn_score_22 = query_2.dot(keys_2)
    print(round(attn_score_22.item(), 4))
    attn_scores_2 = query_2 @ keys.T
    d_k = keys.shape[1]
    attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
    print(r(attn_weights_2), r(attn_weights_2 @ values))

    torch.manual_seed(123)
    sa_v1 = SelfAttention_v1(d_in, d_out)
    print(r(sa_v1(inputs)))
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(d_in, d_out)
    print(r(sa_v2(inputs)))

    queries = sa_v2.W_query(inputs)
    keys = sa_v2.W_key(inputs)
    attn_scores = queries @ keys.T
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
    context_length = attn_scores.shape[0]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    print(mask_simple)
    masked_simple = attn_weights * mask_simple
    row_sums = masked_simple.sum(dim=-1, keepdim=True)
    masked_simple_norm = masked_simple / row_sums
    print(r(masked_simple_norm))
    mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    print(masked)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
    print(r(attn_weights), torch.allclose(attn_weights, masked_simple_norm))

    torch.manual_seed(123)
    dropout = torch.nn.Dropout(0.5)  # dropout rate of 50%
    example = torch.ones(6, 6)  # create a matrix of ones
    print(dropout(example))
    torch.manual_seed(123)
    print(r(dropout(attn_weights)))

    batch = torch.stack((inputs, inputs), dim=0)
    print(batch.shape)
    torch.manual_seed(123)
    context_length = batch.shape[1]
    ca = CausalAttention(d_in, d_out, context_length, 0.0)
    context_vecs = ca(batch)
    print(r(context_vecs), "context_vecs.shape:", context_vecs.shape)
    print([n for n, _ in ca.named_buffers()], list(ca.state_dict().keys()))

    torch.manual_seed(123)
    mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)
    context_vecs = mha(batch)
    print(r(context_vecs), "context_vecs.shape:", context_vecs.shape)

    a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],
                        [0.8993, 0.0390, 0.9268, 0.7388],
                        [0.7179, 0.7058, 0.9156, 0.4340]],

                       [[0.0772, 0.3565, 0.1479, 0.5331],
                        [0.4066, 0.2318, 0.4545, 0.9737],
                        [0.4606, 0.5159, 0.4220, 0.5786]]]])
    print(r(a @ a.transpose(2, 3)))
    first_head = a[0, 0, :, :]
    first_res = first_head @ first_head.T
    print("First head:\n", r(first_res))
    second_head = a[0, 1, :, :]
    second_res = second_head @ second_head.T
    print("\nSecond head:\n", r(second_res))

    torch.manual_seed(123)
    batch_size, context_length, d_in = batch.shape
    d_out = 2
    mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads=2)
    context_vecs = mha(batch)
    print(r(context_vecs), "context_vecs.shape:", context_vecs.shape)

    # with dropout, in train mode and in eval mode, and a backward pass through the in-place masked_fill_
    torch.manual_seed(123)
    mha = MultiHeadAttention(d_in=8, d_out=8, context_length=6, dropout=0.3, num_heads=2, qkv_bias=True)
    x = torch.randn(2, 5, 8, requires_grad=True)
    out = mha(x)
    out.pow(2).sum().backward()
    print("mha dropout", round(out.sum().item(), 4), round(x.grad.abs().sum().item(), 4),
          round(mha.W_query.weight.grad.norm().item(), 4))
    mha.eval()
    print("mha eval", round(mha(x).sum().item(), 4), mha.training, mha.dropout.training)


def ch04():
    torch.manual_seed(123)
    batch_example = torch.randn(2, 5)
    layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU())
    out = layer(batch_example)
    print(r(out))
    mean = out.mean(dim=-1, keepdim=True)
    var = out.var(dim=-1, keepdim=True)
    print("Mean:\n", r(mean))
    print("Variance:\n", r(var))
    out_norm = (out - mean) / torch.sqrt(var)
    torch.set_printoptions(sci_mode=False)
    print("Normalized layer outputs:\n", r(out_norm))
    print("Mean:\n", out_norm.mean(dim=-1, keepdim=True).abs().max().item() < 1e-6)
    print("Variance:\n", r(out_norm.var(dim=-1, keepdim=True)))
    torch.set_printoptions(profile="default")

    ln = LayerNorm(emb_dim=5)
    out_ln = ln(batch_example)
    mean = out_ln.mean(dim=-1, keepdim=True)
    var = out_ln.var(dim=-1, unbiased=False, keepdim=True)
    print("Mean:", mean.abs().max().item() < 1e-6, "Variance:", r(var))
    print("vs nn.LayerNorm", torch.allclose(out_ln, nn.LayerNorm(5)(batch_example), atol=1e-6))

    gelu, relu = GELU(), nn.ReLU()
    x = torch.linspace(-3, 3, 100)
    y_gelu, y_relu = gelu(x), relu(x)
    print("gelu", round(y_gelu.sum().item(), 4), round(y_relu.sum().item(), 4),
          torch.allclose(y_gelu, nn.GELU(approximate="tanh")(x), atol=1e-6),
          round((y_gelu - nn.GELU()(x)).abs().max().item(), 5))

    ffn = FeedForward(GPT_CONFIG_124M)
    x = torch.rand(2, 3, GPT_CONFIG_124M["emb_dim"])
    out = ffn(x)
    print(out.shape, round(out.sum().item(), 4))

    layer_sizes = [3, 3, 3, 3, 3, 1]
    sample_input = torch.tensor([[1., 0., -1.]])
    torch.manual_seed(123)
    model_without_shortcut = ExampleDeepNeuralNetwork(layer_sizes, use_shortcut=False)
    print_gradients(model_without_shortcut, sample_input)
    torch.manual_seed(123)
    model_with_shortcut = ExampleDeepNeuralNetwork(layer_sizes, use_shortcut=True)
    print_gradients(model_with_shortcut, sample_input)

    torch.manual_seed(123)
    x = torch.rand(2, 4, GPT_CONFIG_124M["emb_dim"])  # Shape: [batch_size, num_tokens, emb_dim]
    block = TransformerBlock(GPT_CONFIG_124M)
    output = block(x)
    print("Input shape:", x.shape)
    print("Output shape:", output.shape, round(output.sum().item(), 3))

    batch = []
    txt1 = "Every effort moves you"
    txt2 = "Every day holds a"
    txt1, txt2 = "I had always thought", "Jack was a cheap"
    batch.append(torch.tensor(TOKENIZER.encode(txt1)))
    batch.append(torch.tensor(TOKENIZER.encode(txt2)))
    batch = torch.stack(batch, dim=0)
    print(batch)

    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    out = model(batch)
    print("Input batch:\n", batch)
    print("\nOutput shape:", out.shape, round(out.sum().item(), 3), round(out.std().item(), 5))

    total_params = sum(p.numel() for p in model.parameters())
    print(f"Total number of parameters: {total_params:,}")
    print("Token embedding layer shape:", model.tok_emb.weight.shape)
    print("Output layer shape:", model.out_head.weight.shape)
    total_params_gpt2 = total_params - sum(p.numel() for p in model.out_head.parameters())
    print(f"Number of trainable parameters considering weight tying: {total_params_gpt2:,}")
    total_size_bytes = total_params * 4
    total_size_mb = total_size_bytes / (1024 * 1024)
    print(f"Total size of the model: {total_size_mb:.2f} MB")
    print("per-block", sum(p.numel() for p in model.trf_blocks[0].att.parameters()),
          sum(p.numel() for p in model.trf_blocks[0].ff.parameters()))
    print("buffers", [n for n, _ in model.named_buffers()][:2], len(model.state_dict()))

    start_context = "I had always"
    encoded = TOKENIZER.encode(start_context)
    print("encoded:", encoded)
    encoded_tensor = torch.tensor(encoded).unsqueeze(0)  # A
    print("encoded_tensor.shape:", encoded_tensor.shape)
    model.eval()  # A
    out = generate_text_simple(model=model, idx=encoded_tensor, max_new_tokens=6,
                               context_size=GPT_CONFIG_124M["context_length"])
    print("Output:", out)
    print("Output length:", len(out[0]))
    decoded_text = TOKENIZER.decode(out.squeeze(0).tolist())
    print(decoded_text)
    long = torch.tensor([TOKENIZER.encode(RAW_TEXT)[:20]])
    out = generate_text_simple(model=model, idx=long, max_new_tokens=4,
                               context_size=GPT_CONFIG_124M["context_length"])
    print("cropped context", out[0, -6:].tolist(), out.shape)


def main():
    ch02()
    ch03()
    ch04()


if __name__ == "__main__":
    main()
