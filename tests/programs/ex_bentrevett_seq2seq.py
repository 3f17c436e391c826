"""bentrevett/pytorch-seq2seq tutorial 4 ("Packed Padded Sequences, Masking, Inference and BLEU")-style (own
code; a synthetic "reverse and shift" translation task in place of Multi30k, torchtext-free buckets): time-major
batches sorted by length, a bidirectional GRU encoder over ``nn.utils.rnn.pack_padded_sequence(embedded,
src_len.to('cpu'))`` / ``pad_packed_sequence`` whose final hidden states ``hidden[-2]``/``hidden[-1]`` go through
``tanh(fc(cat))``, additive attention (``repeat``, ``permute``, ``masked_fill(mask == 0, -1e10)``), a decoder
using ``torch.bmm`` and the ``(output == hidden).all()`` assertion, a ``Seq2Seq`` with ``create_mask`` and
teacher forcing from ``random.random()``, ``init_weights`` via ``apply`` (``normal_``/``constant_`` on
``param.data``), ``count_parameters``, Adam with ``CrossEntropyLoss(ignore_index=TRG_PAD_IDX)``, ``train`` /
``evaluate`` loops with ``clip_grad_norm_``, best-model ``torch.save``/``load_state_dict``, perplexity via
``math.exp``, and ``translate_sentence`` with legacy ``torch.LongTensor`` constructors and attention maps; also
tutorial 1's two-layer LSTM encoder/decoder (``nn.LSTM(n_layers, dropout)``) for a few steps."""
import math
import os
import random
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

SEED = 1234
random.seed(SEED)
torch.manual_seed(SEED)
torch.backends.cudnn.deterministic = True
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# ----------------------------------------------------------------------------- synthetic "fields"
PAD, SOS, EOS, UNK = "<pad>", "<sos>", "<eos>", "<unk>"
src_words = ["ein", "mann", "frau", "hund", "katze", "läuft", "sitzt", "auf", "der", "straße", "im", "park"]
trg_words = ["a", "man", "woman", "dog", "cat", "runs", "sits", "on", "the", "street", "in", "park"]


class Vocab:
    def __init__(self, words):
        self.itos = [UNK, PAD, SOS, EOS] + words
        self.stoi = {w: i for i, w in enumerate(self.itos)}


class Field:
    def __init__(self, words):
        self.vocab = Vocab(words)
        self.init_token, self.eos_token, self.pad_token = SOS, EOS, PAD


SRC, TRG = Field(src_words), Field(trg_words)


def make_pairs(n, rng):
    pairs = []
    for _ in range(n):
        idx = [rng.randrange(len(src_words)) for _ in range(rng.randint(2, 7))]
        pairs.append(([src_words[i] for i in idx], [trg_words[i] for i in reversed(idx)]))
    return pairs


def numericalize(tokens, field):
    return [field.vocab.stoi[SOS]] + [field.vocab.stoi[t] for t in tokens] + [field.vocab.stoi[EOS]]


class Batch:
    def __init__(self, pairs):
        pairs = sorted(pairs, key=lambda p: len(p[0]), reverse=True)  # sort_within_batch=True
        srcs = [numericalize(s, SRC) for s, _ in pairs]
        trgs = [numericalize(t, TRG) for _, t in pairs]
        src_len = torch.tensor([len(s) for s in srcs])
        src = torch.full((max(map(len, srcs)), len(srcs)), SRC.vocab.stoi[PAD], dtype=torch.long)
        trg = torch.full((max(map(len, trgs)), len(trgs)), TRG.vocab.stoi[PAD], dtype=torch.long)
        for j, (s, t) in enumerate(zip(srcs, trgs)):
            src[:len(s), j] = torch.tensor(s)
            trg[:len(t), j] = torch.tensor(t)
        self.src = (src.to(device), src_len.to(device))
        self.trg = trg.to(device)


def BucketIterator(pairs, batch_size, rng, shuffle=True):
    pairs = list(pairs)
    if shuffle:
        rng.shuffle(pairs)
    return [Batch(pairs[i:i + batch_size]) for i in range(0, len(pairs), batch_size)]


data_rng = random.Random(0)
train_data, valid_data, test_data = make_pairs(48, data_rng), make_pairs(16, data_rng), make_pairs(8, data_rng)
BATCH_SIZE = 16


# ----------------------------------------------------------------------------- the model
class Encoder(nn.Module):
    def __init__(self, input_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, emb_dim)
        self.rnn = nn.GRU(emb_dim, enc_hid_dim, bidirectional=True)
        self.fc = nn.Linear(enc_hid_dim * 2, dec_hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src, src_len):
        # src = [src len, batch size]
        embedded = self.dropout(self.embedding(src))
        # need to explicitly put lengths on cpu!
        packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, src_len.to('cpu'))
        packed_outputs, hidden = self.rnn(packed_embedded)
        # packed_outputs is a packed sequence containing all hidden states; hidden is from the final non-padded element
        outputs, _ = nn.utils.rnn.pad_packed_sequence(packed_outputs)
        # outputs = [src len, batch size, hid dim * num directions]
        hidden = torch.tanh(self.fc(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)))
        return outputs, hidden


class Attention(nn.Module):
    def __init__(self, enc_hid_dim, dec_hid_dim):
        super().__init__()
        self.attn = nn.Linear((enc_hid_dim * 2) + dec_hid_dim, dec_hid_dim)
        self.v = nn.Linear(dec_hid_dim, 1, bias=False)

    def forward(self, hidden, encoder_outputs, mask):
        src_len = encoder_outputs.shape[0]
        # repeat decoder hidden state src_len times
        hidden = hidden.unsqueeze(1).repeat(1, src_len, 1)
        encoder_outputs = encoder_outputs.permute(1, 0, 2)
        energy = torch.tanh(self.attn(torch.cat((hidden, encoder_outputs), dim=2)))
        attention = self.v(energy).squeeze(2)
        attention = attention.masked_fill(mask == 0, -1e10)
        return F.softmax(attention, dim=1)


class Decoder(nn.Module):
    def __init__(self, output_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout, attention):
        super().__init__()
        self.output_dim = output_dim
        self.attention = attention
        self.embedding = nn.Embedding(output_dim, emb_dim)
        self.rnn = nn.GRU((enc_hid_dim * 2) + emb_dim, dec_hid_dim)
        self.fc_out = nn.Linear((enc_hid_dim * 2) + dec_hid_dim + emb_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, encoder_outputs, mask):
        input = input.unsqueeze(0)
        embedded = self.dropout(self.embedding(input))
        a = self.attention(hidden, encoder_outputs, mask)
        a = a.unsqueeze(1)
        encoder_outputs = encoder_outputs.permute(1, 0, 2)
        weighted = torch.bmm(a, encoder_outputs)
        weighted = weighted.permute(1, 0, 2)
        rnn_input = torch.cat((embedded, weighted), dim=2)
        output, hidden = self.rnn(rnn_input, hidden.unsqueeze(0))
        # seq len, n layers and n directions will always be 1 in this decoder, therefore:
        assert (output == hidden).all()
        embedded = embedded.squeeze(0)
        output = output.squeeze(0)
        weighted = weighted.squeeze(0)
        prediction = self.fc_out(torch.cat((output, weighted, embedded), dim=1))
        return prediction, hidden.squeeze(0), a.squeeze(1)


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, src_pad_idx, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.src_pad_idx = src_pad_idx
        self.device = device

    def create_mask(self, src):
        mask = (src != self.src_pad_idx).permute(1, 0)
        return mask

    def forward(self, src, src_len, trg, teacher_forcing_ratio=0.5):
        batch_size = src.shape[1]
        trg_len = trg.shape[0]
        trg_vocab_size = self.decoder.output_dim
        # tensor to store decoder outputs
        outputs = torch.zeros(trg_len, batch_size, trg_vocab_size).to(self.device)
        encoder_outputs, hidden = self.encoder(src, src_len)
        # first input to the decoder is the <sos> tokens
        input = trg[0, :]
        mask = self.create_mask(src)
        for t in range(1, trg_len):
            output, hidden, _ = self.decoder(input, hidden, encoder_outputs, mask)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[t] if teacher_force else top1
        return outputs


INPUT_DIM = len(SRC.vocab.itos)
OUTPUT_DIM = len(TRG.vocab.itos)
ENC_EMB_DIM = 16
DEC_EMB_DIM = 16
ENC_HID_DIM = 24
DEC_HID_DIM = 24
ENC_DROPOUT = 0.5
DEC_DROPOUT = 0.5
SRC_PAD_IDX = SRC.vocab.stoi[SRC.pad_token]

attn = Attention(ENC_HID_DIM, DEC_HID_DIM)
enc = Encoder(INPUT_DIM, ENC_EMB_DIM, ENC_HID_DIM, DEC_HID_DIM, ENC_DROPOUT)
dec = Decoder(OUTPUT_DIM, DEC_EMB_DIM, ENC_HID_DIM, DEC_HID_DIM, DEC_DROPOUT, attn)
model = Seq2Seq(enc, dec, SRC_PAD_IDX, device).to(device)


def init_weights(m):
    for name, param in m.named_parameters():
        if 'weight' in name:
            nn.init.normal_(param.data, mean=0, std=0.01)
        else:
            nn.init.constant_(param.data, 0)


model.apply(init_weights)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f'The model has {count_parameters(model):,} trainable parameters')
optimizer = optim.Adam(model.parameters(), lr=5e-3)
TRG_PAD_IDX = TRG.vocab.stoi[TRG.pad_token]
criterion = nn.CrossEntropyLoss(ignore_index=TRG_PAD_IDX)


def train(model, iterator, optimizer, criterion, clip):
    model.train()
    epoch_loss = 0
    for i, batch in enumerate(iterator):
        src, src_len = batch.src
        trg = batch.trg
        optimizer.zero_grad()
        output = model(src, src_len, trg)
        # trg = [trg len, batch size]; output = [trg len, batch size, output dim]
        output_dim = output.shape[-1]
        output = output[1:].view(-1, output_dim)
        trg = trg[1:].view(-1)
        loss = criterion(output, trg)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item()
        if i == 0:
            print(f"\tfirst batch loss {loss.item():.4f} grad norm {norm.item():.4f}")
    return epoch_loss / len(iterator)


def evaluate(model, iterator, criterion):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for i, batch in enumerate(iterator):
            src, src_len = batch.src
            trg = batch.trg
            output = model(src, src_len, trg, 0)  # turn off teacher forcing
            output_dim = output.shape[-1]
            output = output[1:].view(-1, output_dim)
            trg = trg[1:].view(-1)
            loss = criterion(output, trg)
            epoch_loss += loss.item()
    return epoch_loss / len(iterator)


def epoch_time(start_time, end_time):
    elapsed_time = end_time - start_time
    elapsed_mins = int(elapsed_time / 60)
    elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
    return elapsed_mins, elapsed_secs


# packing facts on one batch
b0 = BucketIterator(train_data, BATCH_SIZE, random.Random(1), shuffle=False)[0]
emb = model.encoder.embedding(b0.src[0])
packed = nn.utils.rnn.pack_padded_sequence(emb, b0.src[1].to('cpu'))
print("packed", type(packed).__name__, packed.data.shape, packed.batch_sizes.tolist(), packed.sorted_indices)
unpacked, lens = nn.utils.rnn.pad_packed_sequence(packed)
print("unpacked", unpacked.shape, lens.tolist(), torch.equal(unpacked, emb * (b0.src[0] != SRC_PAD_IDX)[..., None]))

N_EPOCHS = 2
CLIP = 1
model_path = os.path.join(tempfile.mkdtemp(), 'tut4-model.pt')
best_valid_loss = float('inf')
iter_rng = random.Random(2)
valid_iterator = BucketIterator(valid_data, BATCH_SIZE, iter_rng, shuffle=False)
for epoch in range(N_EPOCHS):
    start_time = time.time()
    train_iterator = BucketIterator(train_data, BATCH_SIZE, iter_rng)
    train_loss = train(model, train_iterator, optimizer, criterion, CLIP)
    valid_loss = evaluate(model, valid_iterator, criterion)
    end_time = time.time()
    epoch_mins, epoch_secs = epoch_time(start_time, end_time)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), model_path)
    print(f'Epoch: {epoch + 1:02}')
    print(f'\tTrain Loss: {train_loss:.3f} | Train PPL: {math.exp(train_loss):7.3f}')
    print(f'\t Val. Loss: {valid_loss:.3f} |  Val. PPL: {math.exp(valid_loss):7.3f}')

model.load_state_dict(torch.load(model_path))
test_loss = evaluate(model, BucketIterator(test_data, BATCH_SIZE, iter_rng, shuffle=False), criterion)
print(f'| Test Loss: {test_loss:.3f} | Test PPL: {math.exp(test_loss):7.3f} |')


def translate_sentence(sentence, src_field, trg_field, model, device, max_len=12):
    model.eval()
    tokens = [token.lower() for token in sentence]
    tokens = [src_field.init_token] + tokens + [src_field.eos_token]
    src_indexes = [src_field.vocab.stoi[token] for token in tokens]
    src_tensor = torch.LongTensor(src_indexes).unsqueeze(1).to(device)
    src_len = torch.LongTensor([len(src_indexes)])
    with torch.no_grad():
        encoder_outputs, hidden = model.encoder(src_tensor, src_len)
    mask = model.create_mask(src_tensor)
    trg_indexes = [trg_field.vocab.stoi[trg_field.init_token]]
    attentions = torch.zeros(max_len, 1, len(src_indexes)).to(device)
    for i in range(max_len):
        trg_tensor = torch.LongTensor([trg_indexes[-1]]).to(device)
        with torch.no_grad():
            output, hidden, attention = model.decoder(trg_tensor, hidden, encoder_outputs, mask)
        attentions[i] = attention
        pred_token = output.argmax(1).item()
        trg_indexes.append(pred_token)
        if pred_token == trg_field.vocab.stoi[trg_field.eos_token]:
            break
    trg_tokens = [trg_field.vocab.itos[i] for i in trg_indexes]
    return trg_tokens[1:], attentions[:len(trg_tokens) - 1]


src, trg = test_data[0]
print(f'src = {src}')
print(f'trg = {trg}')
translation, attention = translate_sentence(src, SRC, TRG, model, device)
print(f'predicted trg = {translation}')
print("attention", attention.shape, attention.dtype, [round(v, 4) for v in attention.squeeze(1).sum(1).tolist()],
      round(attention.squeeze(1).max().item(), 4))


# ----------------------------------------------------------------------------- tutorial 1: LSTM seq2seq
class LSTMEncoder(nn.Module):
    def __init__(self, input_dim, emb_dim, hid_dim, n_layers, dropout):
        super().__init__()
        self.hid_dim = hid_dim
        self.n_layers = n_layers
        self.embedding = nn.Embedding(input_dim, emb_dim)
        self.rnn = nn.LSTM(emb_dim, hid_dim, n_layers, dropout=dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        embedded = self.dropout(self.embedding(src))
        outputs, (hidden, cell) = self.rnn(embedded)
        return hidden, cell


class LSTMDecoder(nn.Module):
    def __init__(self, output_dim, emb_dim, hid_dim, n_layers, dropout):
        super().__init__()
        self.output_dim = output_dim
        self.embedding = nn.Embedding(output_dim, emb_dim)
        self.rnn = nn.LSTM(emb_dim, hid_dim, n_layers, dropout=dropout)
        self.fc_out = nn.Linear(hid_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, cell):
        input = input.unsqueeze(0)
        embedded = self.dropout(self.embedding(input))
        output, (hidden, cell) = self.rnn(embedded, (hidden, cell))
        prediction = self.fc_out(output.squeeze(0))
        return prediction, hidden, cell


class LSTMSeq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device
        assert encoder.hid_dim == decoder.hid_dim if hasattr(decoder, "hid_dim") else True

    def forward(self, src, trg, teacher_forcing_ratio=0.5):
        batch_size = trg.shape[1]
        trg_len = trg.shape[0]
        outputs = torch.zeros(trg_len, batch_size, self.decoder.output_dim).to(self.device)
        hidden, cell = self.encoder(src)
        input = trg[0, :]
        for t in range(1, trg_len):
            output, hidden, cell = self.decoder(input, hidden, cell)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[t] if teacher_force else top1
        return outputs


m1 = LSTMSeq2Seq(LSTMEncoder(INPUT_DIM, 16, 24, 2, 0.5), LSTMDecoder(OUTPUT_DIM, 16, 24, 2, 0.5), device)
for name, param in m1.named_parameters():
    nn.init.uniform_(param.data, -0.08, 0.08)
opt1 = optim.Adam(m1.parameters())
for it, batch in enumerate(BucketIterator(train_data, BATCH_SIZE, iter_rng)[:2]):
    src, _ = batch.src
    trg = batch.trg
    opt1.zero_grad()
    output = m1(src, trg)
    loss = criterion(output[1:].view(-1, output.shape[-1]), trg[1:].view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(m1.parameters(), CLIP)
    opt1.step()
    print(f"lstm seq2seq step {it} loss {loss.item():.4f}")
