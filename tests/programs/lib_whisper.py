"""openai-whisper with a tiny randomly initialised multilingual model (no weight download): the log-Mel
front end (``torch.stft`` with a Hann window, the packaged mel filter bank, ``pad_or_trim`` on tensors and
arrays), the encoder/decoder forward with SDPA and with the explicit attention path, language detection,
``whisper.decode`` greedy without and with timestamps, beam search and seeded temperature sampling,
``timing.find_alignment`` (cross-attention hooks, the sparse alignment-heads buffer, a median filter, DTW),
a few AdamW steps on the decoder with cross-entropy, and a state_dict round trip through ``torch.save``."""
import io

import numpy as np
import torch
import torch.nn.functional as F
import whisper
from whisper.decoding import detect_language
from whisper.model import ModelDimensions, Whisper, disable_sdpa
from whisper.timing import find_alignment
from whisper.tokenizer import get_tokenizer


def r(x, n=4):
    return round(float(x), n)


def build(seed, n_audio_ctx=100, n_text_ctx=64, n_state=64, n_layer=2):
    torch.manual_seed(seed)
    dims = ModelDimensions(n_mels=80, n_audio_ctx=n_audio_ctx, n_audio_state=n_state, n_audio_head=4,
                           n_audio_layer=n_layer, n_vocab=51865, n_text_ctx=n_text_ctx, n_text_state=n_state,
                           n_text_head=4, n_text_layer=n_layer)
    model = Whisper(dims)
    # the released checkpoints overwrite this torch.empty parameter; a fresh model must initialise it
    torch.nn.init.normal_(model.decoder.positional_embedding, std=0.02)
    torch.nn.init.normal_(model.decoder.token_embedding.weight, std=0.05)
    return model.eval()


def waveform(n):
    g = torch.Generator().manual_seed(1)
    t = torch.arange(n, dtype=torch.float32) / whisper.audio.SAMPLE_RATE
    chirp = torch.sin(2 * torch.pi * (220 + 400 * t) * t) * torch.linspace(0.2, 0.8, n)
    return chirp + 0.05 * torch.randn(n, generator=g)


def front_end():
    audio = waveform(31000)
    padded = whisper.pad_or_trim(audio, 32000)
    trimmed = whisper.pad_or_trim(waveform(40000), 32000)
    arr = whisper.pad_or_trim(audio.numpy(), 32000)
    print("pad_or_trim", tuple(padded.shape), r(padded[-1000:].abs().sum()), tuple(trimmed.shape),
          type(arr).__name__, arr.dtype, r(np.abs(arr - padded.numpy()).max()))
    mel = whisper.log_mel_spectrogram(padded)
    print("mel", tuple(mel.shape), mel.dtype, r(mel.mean()), r(mel.std()), r(mel.max()), r(mel.min()))
    mel128 = whisper.log_mel_spectrogram(audio.numpy(), n_mels=128, padding=1000)
    print("mel128", tuple(mel128.shape), r(mel128.mean()), r(mel128[:, :5].sum(), 3))
    batch = whisper.log_mel_spectrogram(torch.stack([padded, padded.flip(0)]))
    print("mel batch", tuple(batch.shape), r(batch[1].sum(), 2), r((batch[0] - mel).abs().max()))
    return mel


def forward(model, mel, tok):
    tokens = torch.tensor([list(tok.sot_sequence_including_notimestamps) + [440, 1500, 3000]])
    with torch.no_grad():
        feats = model.embed_audio(mel[None])
        logits = model.logits(tokens, feats)
        with disable_sdpa():
            logits_eager = model(mel[None], tokens)
    print("features", tuple(feats.shape), r(feats.mean()), r(feats.std()))
    print("logits", tuple(logits.shape), logits.dtype, r(logits.mean()), r(logits.std()),
          logits[0, -1].topk(3).indices.tolist())
    print("sdpa vs eager", r((logits - logits_eager).abs().max(), 3))
    return feats


def decoding(model, mel, feats):
    tokens, probs = model.detect_language(mel)
    top = sorted(probs.items(), key=lambda kv: -kv[1])[:3]
    print("language", int(tokens), [(k, r(v)) for k, v in top], r(sum(probs.values())))
    langs, _ = detect_language(model, torch.stack([mel, mel.flip(-1)]))
    print("language batch", langs.tolist())
    base = dict(language="en", fp16=False, sample_len=8)
    for name, opts in [("greedy", dict(without_timestamps=True)),
                       ("timestamps", dict(without_timestamps=False)),
                       ("beam", dict(without_timestamps=True, beam_size=2)),
                       ("prompt", dict(without_timestamps=True, prompt=[1000, 2000], suppress_blank=False))]:
        res = whisper.decode(model, mel, whisper.DecodingOptions(**base, **opts))
        print(name, res.tokens, r(res.avg_logprob), r(res.no_speech_prob), r(res.compression_ratio, 3))
    torch.manual_seed(3)
    res = whisper.decode(model, mel, whisper.DecodingOptions(**base, temperature=0.8, best_of=2, without_timestamps=True))
    print("sampled", res.tokens, r(res.avg_logprob))
    res = whisper.decode(model, feats[0], whisper.DecodingOptions(**base, without_timestamps=True))
    print("from features", res.tokens)


def alignment(model, mel, tok):
    text = tok.encode(" hello world, this is a test")
    words = find_alignment(model, tok, text, mel, num_frames=mel.shape[-1])
    print("alignment heads", model.alignment_heads.indices().T.tolist())
    print("words", [(w.word, float(w.start), float(w.end), r(w.probability * 1e5, 3)) for w in words])


def train(model, mel, tok):
    torch.manual_seed(5)
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    model.train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3, weight_decay=0.01)
    seq = list(tok.sot_sequence_including_notimestamps) + tok.encode(" the quick brown fox") + [tok.eot]
    target = torch.tensor([seq, seq[:3] + seq[4:] + [tok.eot]])
    inp, out = target[:, :-1], target[:, 1:].clone()
    out[:, :2] = -100
    mels = torch.stack([mel, mel * 0.9])
    for step in range(8):
        logits = model(mels, inp)
        loss = F.cross_entropy(logits.transpose(1, 2), out, ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print("train", step, r(loss.item()), r(gnorm, 3))
    model.eval()
    print("frozen", all(p.grad is None for p in model.encoder.parameters()),
          model.decoder.token_embedding.weight.grad.abs().sum().item() > 0)
    res = whisper.decode(model, mel, whisper.DecodingOptions(language="en", fp16=False, sample_len=8,
                                                             without_timestamps=True))
    print("trained greedy", res.tokens, repr(res.text), r(res.avg_logprob))


def transcribe():
    """whisper.transcribe needs the full 30-second window (1500 audio positions): a one-layer model."""
    model = build(11, n_audio_ctx=1500, n_text_ctx=16, n_state=32, n_layer=1)
    audio = waveform(48000).numpy()
    torch.manual_seed(12)
    out = whisper.transcribe(model, audio, temperature=(0.0, 0.5), fp16=False, word_timestamps=True,
                             condition_on_previous_text=False, verbose=None)
    print("transcribe", out["language"], len(out["segments"]), repr(out["text"][:40]))
    for seg in out["segments"]:
        print("segment", seg["id"], seg["seek"], r(seg["start"]), r(seg["end"]), seg["tokens"], r(seg["temperature"]),
              r(seg["avg_logprob"]), r(seg["no_speech_prob"]), len(seg.get("words", [])))


def explicit_attention_step(model, mel, tok):
    """One loss and gradient through the explicit attention path (mask added to q@k^T, softmax)."""
    tokens = torch.tensor([list(tok.sot_sequence_including_notimestamps) + tok.encode(" a b c")])
    model.zero_grad()
    with disable_sdpa():
        eager = F.cross_entropy(model(mel[None], tokens)[0, :-1], tokens[0, 1:])
    eager.backward()
    g_eager = model.decoder.blocks[0].attn.query.weight.grad.clone()
    model.zero_grad()
    fused = F.cross_entropy(model(mel[None], tokens)[0, :-1], tokens[0, 1:])
    fused.backward()
    g_fused = model.decoder.blocks[0].attn.query.weight.grad
    print("explicit attention", r(eager.item()), r(fused.item()), r(g_eager.abs().sum(), 3),
          r((g_eager - g_fused).abs().max(), 3))


def save_load(model, mel, tok):
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf, weights_only=True)
    fresh = build(9)
    missing = fresh.load_state_dict(state)
    tokens = torch.tensor([list(tok.sot_sequence)])
    with torch.no_grad():
        same = torch.equal(fresh(mel[None], tokens), model(mel[None], tokens))
    print("state_dict", len(state), list(state)[:3], missing, same)


def main():
    model = build(0)
    print("params", sum(p.numel() for p in model.parameters()), model.is_multilingual, model.num_languages)
    tok = get_tokenizer(model.is_multilingual, num_languages=model.num_languages, language="en", task="transcribe")
    print("tokenizer", tok.sot_sequence, tok.eot, tok.no_timestamps, tok.timestamp_begin)
    mel = front_end()
    mel = mel[:, :200]
    feats = forward(model, mel, tok)
    decoding(model, mel, feats)
    alignment(model, mel, tok)
    train(model, mel, tok)
    explicit_attention_step(model, mel, tok)
    transcribe()
    save_load(model, mel, tok)


if __name__ == "__main__":
    main()
