"""pytorch/examples language_translation-style seq2seq ``nn.Transformer`` (the PyTorch tutorial's structure):
``TokenEmbedding`` scaled by ``sqrt(emb_size)``, a sinusoidal ``PositionalEncoding`` buffer, sequence-first
tensors, ``generate_square_subsequent_mask`` built with ``triu``/``masked_fill`` as a float mask next to boolean
key-padding masks (torch's mismatched-mask deprecation warning), ``pad_sequence`` collation with BOS/EOS,
``xavier_uniform_`` on every matrix, ``CrossEntropyLoss(ignore_index=PAD_IDX)``, Adam with
``betas=(0.9, 0.98), eps=1e-9``, evaluation, greedy decoding through ``model.encode`` / ``model.decode`` and the
encoder's eval-mode outputs with a padding mask (torch's fast path leaves padded positions zero). A
synthetic "translation" (reverse the sentence and map each word); small sizes; prints rounded numbers one fact
per line."""
import math
import warnings

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import Transformer
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

DEVICE = torch.device('cpu')
UNK_IDX, PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2, 3
special_symbols = ['<unk>', '<pad>', '<bos>', '<eos>']


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 5000):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)

        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super(TokenEmbedding, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers: int, num_decoder_layers: int, emb_size: int, nhead: int,
                 src_vocab_size: int, tgt_vocab_size: int, dim_feedforward: int = 512, dropout: float = 0.1):
        super(Seq2SeqTransformer, self).__init__()
        self.transformer = Transformer(d_model=emb_size,
                                       nhead=nhead,
                                       num_encoder_layers=num_encoder_layers,
                                       num_decoder_layers=num_decoder_layers,
                                       dim_feedforward=dim_feedforward,
                                       dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src: Tensor, trg: Tensor, src_mask: Tensor, tgt_mask: Tensor, src_padding_mask: Tensor,
                tgt_padding_mask: Tensor, memory_key_padding_mask: Tensor):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src: Tensor, src_mask: Tensor):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    return mask


def create_mask(src, tgt):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]

    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)

    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


# a synthetic corpus: the target is the source reversed, each word id shifted (vocabularies of 20 words)
SRC_VOCAB_SIZE = TGT_VOCAB_SIZE = 24
g = torch.Generator().manual_seed(0)
pairs = []
for _ in range(96):
    n = int(torch.randint(3, 8, (1,), generator=g))
    src = torch.randint(4, 24, (n,), generator=g)
    pairs.append((src.tolist(), [4 + (int(w) - 4 + 7) % 20 for w in reversed(src.tolist())]))
train_iter, val_iter = pairs[:80], pairs[80:]


# function to add BOS/EOS and create tensor for input sequence indices
def tensor_transform(token_ids):
    return torch.cat((torch.tensor([BOS_IDX]),
                      torch.tensor(token_ids),
                      torch.tensor([EOS_IDX])))


# function to collate data samples into batch tensors
def collate_fn(batch):
    src_batch, tgt_batch = [], []
    for src_sample, tgt_sample in batch:
        src_batch.append(tensor_transform(src_sample))
        tgt_batch.append(tensor_transform(tgt_sample))

    src_batch = pad_sequence(src_batch, padding_value=PAD_IDX)
    tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX)
    return src_batch, tgt_batch


def train_epoch(model, optimizer):
    model.train()
    losses = 0
    train_dataloader = DataLoader(train_iter, batch_size=BATCH_SIZE, collate_fn=collate_fn)

    for src, tgt in train_dataloader:
        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)

        tgt_input = tgt[:-1, :]

        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)

        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)

        optimizer.zero_grad()

        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()

        optimizer.step()
        losses += loss.item()

    return losses / len(list(train_dataloader))


def evaluate(model):
    model.eval()
    losses = 0

    val_dataloader = DataLoader(val_iter, batch_size=BATCH_SIZE, collate_fn=collate_fn)

    for src, tgt in val_dataloader:
        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)

        tgt_input = tgt[:-1, :]

        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)

        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)

        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        losses += loss.item()

    return losses / len(list(val_dataloader))


# function to generate output sequence using greedy algorithm
def greedy_decode(model, src, src_mask, max_len, start_symbol):
    src = src.to(DEVICE)
    src_mask = src_mask.to(DEVICE)

    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
    for i in range(max_len-1):
        memory = memory.to(DEVICE)
        tgt_mask = (generate_square_subsequent_mask(ys.size(0))
                    .type(torch.bool)).to(DEVICE)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()

        ys = torch.cat([ys,
                        torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


# actual function to translate input sentence into target language
def translate(model: torch.nn.Module, src_sentence):
    model.eval()
    src = tensor_transform(src_sentence).view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    tgt_tokens = greedy_decode(
        model, src, src_mask, max_len=num_tokens + 5, start_symbol=BOS_IDX).flatten()
    return [int(t) for t in tgt_tokens if int(t) not in (BOS_IDX, EOS_IDX)]


if __name__ == "__main__":
    torch.manual_seed(0)

    EMB_SIZE = 32
    NHEAD = 4
    FFN_HID_DIM = 64
    BATCH_SIZE = 16
    NUM_ENCODER_LAYERS = 2
    NUM_DECODER_LAYERS = 2

    transformer = Seq2SeqTransformer(NUM_ENCODER_LAYERS, NUM_DECODER_LAYERS, EMB_SIZE,
                                     NHEAD, SRC_VOCAB_SIZE, TGT_VOCAB_SIZE, FFN_HID_DIM)

    for p in transformer.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)

    transformer = transformer.to(DEVICE)

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)

    optimizer = torch.optim.Adam(transformer.parameters(), lr=0.001, betas=(0.9, 0.98), eps=1e-9)
    print("params", sum(p.numel() for p in transformer.parameters()), "mask",
          generate_square_subsequent_mask(3).tolist())

    NUM_EPOCHS = 6
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for epoch in range(1, NUM_EPOCHS+1):
            train_loss = train_epoch(transformer, optimizer)
            val_loss = evaluate(transformer)
            print((f"Epoch: {epoch}, Train loss: {train_loss:.4f}, Val loss: {val_loss:.4f}"))
    print("warnings", sorted({str(w.message)[:70] for w in caught}))

    for src_sentence, tgt_sentence in val_iter[:3]:
        print("translate", src_sentence, "->", translate(transformer, src_sentence), "expected", tgt_sentence)

    # the encoder in eval mode with a padding mask (torch's fast path: padded positions come out zero)
    src, _ = collate_fn(val_iter[:4])
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    with torch.no_grad():
        memory = transformer.transformer.encoder(transformer.positional_encoding(transformer.src_tok_emb(src)),
                                                 src_key_padding_mask=src_padding_mask)
    print("eval memory", tuple(memory.shape), round(memory.abs().sum().item(), 3),
          "zero rows at padding", int((memory.abs().sum(-1) == 0).sum().item()), int(src_padding_mask.sum().item()))

    # the same with batch_first=True, where torch's eval fast path (nested tensors) runs: padded rows are zero
    torch.manual_seed(2)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(EMB_SIZE, NHEAD, FFN_HID_DIM, batch_first=True), 2).eval()
    x = transformer.src_tok_emb(src).transpose(0, 1).detach()
    with torch.no_grad():
        out = enc(x, src_key_padding_mask=src_padding_mask)
    print("fast path memory", tuple(out.shape), round(out.abs().sum().item(), 3),
          "zero rows at padding", int((out.abs().sum(-1) == 0).sum().item()), int(src_padding_mask.sum().item()))
