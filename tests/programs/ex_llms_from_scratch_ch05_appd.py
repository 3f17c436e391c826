"""rasbt/LLMs-from-scratch-style chapter 5 and appendix D (own code, synthetic text, tiny sizes), importing
the earlier chapters' code as the book's ``gpt_train.py`` does with ``from previous_chapters import ...``:

- ch05: ``text_to_token_ids`` / ``token_ids_to_text``, the cross entropy by hand (``probas[idx, [0, 1, 2],
  targets[idx]]``, ``torch.log``, mean) vs ``F.cross_entropy`` on ``flatten(0, 1)``, perplexity,
  ``calc_loss_batch`` / ``calc_loss_loader`` (``float("nan")`` on an empty loader), ``train_model_simple``
  with ``AdamW(lr=4e-4, weight_decay=0.1)``, ``evaluate_model`` under ``no_grad``, the sampling demo
  (``torch.multinomial`` 1000 times under a seed, ``torch.bincount``), temperature scaling, top-k with
  ``torch.topk`` + ``torch.where(..., torch.tensor(float("-inf")), ...)``, ``generate`` with temperature,
  top-k and ``idx_next == eos_id``; ``torch.save`` of ``state_dict`` and of model + optimizer and their
  reload (``weights_only=True``, ``map_location``), and ``load_weights_into_gpt`` with ``assign``
  (``torch.nn.Parameter(torch.tensor(numpy_array))``, ``np.split`` and ``.T`` of a GPT-2 style dict of numpy
  arrays, including the shape-mismatch ``ValueError``);
- appendix D: linear warmup + cosine decay written by hand (``param_group["lr"] = lr``), gradient
  clipping with ``clip_grad_norm_`` and ``find_highest_gradient`` over ``param.grad.data``, tracked lrs.
"""
import math
import os
import tempfile

import numpy as np
import torch
from ex_llms_from_scratch_ch02_ch04 import (EOT_ID, GPT_CONFIG_124M, RAW_TEXT, TOKENIZER, GPTModel,
                                            create_dataloader_v1, generate_text_simple)

tokenizer = TOKENIZER


def text_to_token_ids(text, tokenizer):
    encoded = tokenizer.encode(text, allowed_special={'<|endoftext|>'})
    encoded_tensor = torch.tensor(encoded).unsqueeze(0)  # add batch dimension
    return encoded_tensor


def token_ids_to_text(token_ids, tokenizer):
    flat = token_ids.squeeze(0)  # remove batch dimension
    return tokenizer.decode(flat.tolist())


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
    return loss


def calc_loss_loader(data_loader, model, device, num_batches=None):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        # Reduce the number of batches to match the total number of batches in the data loader
        # if num_batches exceeds the number of batches in the data loader
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            total_loss += loss.item()
        else:
            break
    return total_loss / num_batches


def evaluate_model(model, train_loader, val_loader, device, eval_iter):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)
        val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)
    model.train()
    return train_loss, val_loss


def generate_and_print_sample(model, tokenizer, device, start_context):
    model.eval()
    context_size = model.pos_emb.weight.shape[0]
    encoded = text_to_token_ids(start_context, tokenizer).to(device)
    with torch.no_grad():
        token_ids = generate_text_simple(model=model, idx=encoded, max_new_tokens=8, context_size=context_size)
    decoded_text = token_ids_to_text(token_ids, tokenizer)
    print(decoded_text.replace("\n", " "))  # Compact print format
    model.train()


def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
                       eval_freq, eval_iter, start_context, tokenizer):
    # Initialize lists to track losses and tokens seen
    train_losses, val_losses, track_tokens_seen = [], [], []
    tokens_seen, global_step = 0, -1

    # Main training loop
    for epoch in range(num_epochs):
        model.train()  # Set model to training mode

        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()  # Reset loss gradients from previous batch iteration
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            loss.backward()  # Calculate loss gradients
            optimizer.step()  # Update model weights using loss gradients
            tokens_seen += input_batch.numel()
            global_step += 1

            # Optional evaluation step
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model(
                    model, train_loader, val_loader, device, eval_iter)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                track_tokens_seen.append(tokens_seen)
                print(f"Ep {epoch+1} (Step {global_step:06d}): "
                      f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")

        # Print a sample text after each epoch
        generate_and_print_sample(model, tokenizer, device, start_context)

    return train_losses, val_losses, track_tokens_seen


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):

    # For-loop is the same as before: Get logits, and only focus on last time step
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]

        # New: Filter logits with top_k sampling
        if top_k is not None:
            # Keep only top_k values
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)

        # New: Apply temperature scaling
        if temperature > 0.0:
            logits = logits / temperature

            # Apply softmax to get probabilities
            probs = torch.softmax(logits, dim=-1)  # (batch_size, context_len)

            # Sample from the distribution
            idx_next = torch.multinomial(probs, num_samples=1)  # (batch_size, 1)

        # Otherwise same as before: get idx of the vocab entry with the highest logits value
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)  # (batch_size, 1)

        if idx_next == eos_id:  # Stop generating early if end-of-sequence token is encountered and eos_id is specified
            break

        # Same as before: append sampled index to the running sequence
        idx = torch.cat((idx, idx_next), dim=1)  # (batch_size, num_tokens+1)

    return idx


def assign(left, right):
    if left.shape != right.shape:
        raise ValueError(f"Shape mismatch. Left: {left.shape}, Right: {right.shape}")
    return torch.nn.Parameter(torch.tensor(right))


def load_weights_into_gpt(gpt, params):
    gpt.pos_emb.weight = assign(gpt.pos_emb.weight, params['wpe'])
    gpt.tok_emb.weight = assign(gpt.tok_emb.weight, params['wte'])

    for b in range(len(params["blocks"])):
        q_w, k_w, v_w = np.split(
            (params["blocks"][b]["attn"]["c_attn"])["w"], 3, axis=-1)
        gpt.trf_blocks[b].att.W_query.weight = assign(
            gpt.trf_blocks[b].att.W_query.weight, q_w.T)
        gpt.trf_blocks[b].att.W_key.weight = assign(
            gpt.trf_blocks[b].att.W_key.weight, k_w.T)
        gpt.trf_blocks[b].att.W_value.weight = assign(
            gpt.trf_blocks[b].att.W_value.weight, v_w.T)

        q_b, k_b, v_b = np.split(
            (params["blocks"][b]["attn"]["c_attn"])["b"], 3, axis=-1)
        gpt.trf_blocks[b].att.W_query.bias = assign(
            gpt.trf_blocks[b].att.W_query.bias, q_b)
        gpt.trf_blocks[b].att.W_key.bias = assign(
            gpt.trf_blocks[b].att.W_key.bias, k_b)
        gpt.trf_blocks[b].att.W_value.bias = assign(
            gpt.trf_blocks[b].att.W_value.bias, v_b)

        gpt.trf_blocks[b].att.out_proj.weight = assign(
            gpt.trf_blocks[b].att.out_proj.weight,
            params["blocks"][b]["attn"]["c_proj"]["w"].T)
        gpt.trf_blocks[b].att.out_proj.bias = assign(
            gpt.trf_blocks[b].att.out_proj.bias,
            params["blocks"][b]["attn"]["c_proj"]["b"])

        gpt.trf_blocks[b].ff.layers[0].weight = assign(
            gpt.trf_blocks[b].ff.layers[0].weight,
            params["blocks"][b]["mlp"]["c_fc"]["w"].T)
        gpt.trf_blocks[b].ff.layers[0].bias = assign(
            gpt.trf_blocks[b].ff.layers[0].bias,
            params["blocks"][b]["mlp"]["c_fc"]["b"])
        gpt.trf_blocks[b].ff.layers[2].weight = assign(
            gpt.trf_blocks[b].ff.layers[2].weight,
            params["blocks"][b]["mlp"]["c_proj"]["w"].T)
        gpt.trf_blocks[b].ff.layers[2].bias = assign(
            gpt.trf_blocks[b].ff.layers[2].bias,
            params["blocks"][b]["mlp"]["c_proj"]["b"])

        gpt.trf_blocks[b].norm1.scale = assign(
            gpt.trf_blocks[b].norm1.scale,
            params["blocks"][b]["ln_1"]["g"])
        gpt.trf_blocks[b].norm1.shift = assign(
            gpt.trf_blocks[b].norm1.shift,
            params["blocks"][b]["ln_1"]["b"])
        gpt.trf_blocks[b].norm2.scale = assign(
            gpt.trf_blocks[b].norm2.scale,
            params["blocks"][b]["ln_2"]["g"])
        gpt.trf_blocks[b].norm2.shift = assign(
            gpt.trf_blocks[b].norm2.shift,
            params["blocks"][b]["ln_2"]["b"])

    gpt.final_norm.scale = assign(gpt.final_norm.scale, params["g"])
    gpt.final_norm.shift = assign(gpt.final_norm.shift, params["b"])
    gpt.out_head.weight = assign(gpt.out_head.weight, params["wte"])


def fake_gpt2_params(cfg, seed=0):
    """What ``load_gpt2_params_from_tf_ckpt`` returns, filled with seeded numpy values (no download)."""
    rng = np.random.default_rng(seed)
    e, v, c = cfg["emb_dim"], cfg["vocab_size"], cfg["context_length"]

    def w(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)
    blocks = [{"attn": {"c_attn": {"w": w(e, 3 * e), "b": w(3 * e)}, "c_proj": {"w": w(e, e), "b": w(e)}},
               "mlp": {"c_fc": {"w": w(e, 4 * e), "b": w(4 * e)}, "c_proj": {"w": w(4 * e, e), "b": w(e)}},
               "ln_1": {"g": 1 + w(e), "b": w(e)}, "ln_2": {"g": 1 + w(e), "b": w(e)}}
              for _ in range(cfg["n_layers"])]
    return {"wte": w(v, e), "wpe": w(c, e), "blocks": blocks, "g": 1 + w(e), "b": w(e)}


def ch05(device, tmpdir):
    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.eval()  # Disable dropout during inference

    start_context = "I had always"
    token_ids = generate_text_simple(model=model, idx=text_to_token_ids(start_context, tokenizer),
                                     max_new_tokens=6, context_size=GPT_CONFIG_124M["context_length"])
    print("Output text:\n", token_ids_to_text(token_ids, tokenizer))

    inputs = torch.tensor([[16833, 3626, 6100], [40, 1107, 588]]) % GPT_CONFIG_124M["vocab_size"]
    targets = torch.tensor([[3626, 6100, 345], [1107, 588, 11311]]) % GPT_CONFIG_124M["vocab_size"]
    with torch.no_grad():
        logits = model(inputs)
    probas = torch.softmax(logits, dim=-1)  # Probability of each token in vocabulary
    print(probas.shape)  # Shape: (batch_size, num_tokens, vocab_size)
    token_ids = torch.argmax(probas, dim=-1, keepdim=True)
    print("Token IDs:\n", token_ids)
    print(f"Targets batch 1: {token_ids_to_text(targets[0], tokenizer)}")
    print(f"Outputs batch 1: {token_ids_to_text(token_ids[0].flatten(), tokenizer)}")
    text_idx = 0
    target_probas_1 = probas[text_idx, [0, 1, 2], targets[text_idx]]
    print("Text 1:", [round(p, 5) for p in target_probas_1.tolist()])
    text_idx = 1
    target_probas_2 = probas[text_idx, [0, 1, 2], targets[text_idx]]
    print("Text 2:", [round(p, 5) for p in target_probas_2.tolist()])
    log_probas = torch.log(torch.cat((target_probas_1, target_probas_2)))
    print([round(p, 4) for p in log_probas.tolist()])
    avg_log_probas = torch.mean(log_probas)
    neg_avg_log_probas = avg_log_probas * -1
    print(round(avg_log_probas.item(), 4), round(neg_avg_log_probas.item(), 4))
    print("Logits shape:", logits.shape)
    print("Targets shape:", targets.shape)
    logits_flat = logits.flatten(0, 1)
    targets_flat = targets.flatten()
    print("Flattened logits:", logits_flat.shape)
    print("Flattened targets:", targets_flat.shape)
    loss = torch.nn.functional.cross_entropy(logits_flat, targets_flat)
    print(round(loss.item(), 4), "perplexity", round(torch.exp(loss).item(), 3))

    text_data = RAW_TEXT
    total_characters = len(text_data)
    total_tokens = len(tokenizer.encode(text_data))
    print("Characters:", total_characters)
    print("Tokens:", total_tokens)
    train_ratio = 0.90
    split_idx = int(train_ratio * len(text_data))
    train_data = text_data[:split_idx]
    val_data = text_data[split_idx:]

    torch.manual_seed(123)
    train_loader = create_dataloader_v1(
        train_data, batch_size=2, max_length=GPT_CONFIG_124M["context_length"],
        stride=GPT_CONFIG_124M["context_length"], drop_last=True, shuffle=True, num_workers=0)
    val_loader = create_dataloader_v1(
        val_data, batch_size=2, max_length=GPT_CONFIG_124M["context_length"],
        stride=GPT_CONFIG_124M["context_length"], drop_last=False, shuffle=False, num_workers=0)
    print("Train loader:")
    shapes = [(tuple(x.shape), tuple(y.shape)) for x, y in train_loader]
    print(len(shapes), shapes[0], shapes[-1])
    print("\nValidation loader:")
    print([(tuple(x.shape), tuple(y.shape)) for x, y in val_loader])
    train_tokens = sum(input_batch.numel() for input_batch, target_batch in train_loader)
    val_tokens = sum(input_batch.numel() for input_batch, target_batch in val_loader)
    print("Training tokens:", train_tokens, "Validation tokens:", val_tokens, "All tokens:", train_tokens + val_tokens)

    model.to(device)  # no assignment model = model.to(device) necessary for nn.Module classes
    torch.manual_seed(123)  # For reproducibility due to the shuffling in the data loader
    with torch.no_grad():  # Disable gradient tracking for efficiency because we are not training, yet
        train_loss = calc_loss_loader(train_loader, model, device)
        val_loss = calc_loss_loader(val_loader, model, device)
    print(f"Training loss: {train_loss:.4f}")
    print(f"Validation loss: {val_loss:.4f}")
    empty = create_dataloader_v1(val_data[:20], batch_size=2, max_length=16, stride=16, shuffle=False)
    print("empty loader", len(empty), calc_loss_loader(empty, model, device))

    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.004, weight_decay=0.1)
    num_epochs = 3
    train_losses, val_losses, tokens_seen = train_model_simple(
        model, train_loader, val_loader, optimizer, device,
        num_epochs=num_epochs, eval_freq=5, eval_iter=2,
        start_context="I had always", tokenizer=tokenizer)
    print("tokens seen", tokens_seen[-3:], len(train_losses))

    # ---------------------------------------------------------------- decoding strategies
    model.to("cpu")
    model.eval()
    vocab = {"closer": 0, "every": 1, "effort": 2, "forward": 3, "inches": 4, "moves": 5, "pizza": 6,
             "toward": 7, "you": 8}
    inverse_vocab = {v: k for k, v in vocab.items()}
    next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
    probas = torch.softmax(next_token_logits, dim=0)
    next_token_id = torch.argmax(probas).item()
    print(inverse_vocab[next_token_id])
    torch.manual_seed(123)
    next_token_id = torch.multinomial(probas, num_samples=1).item()
    print(inverse_vocab[next_token_id])

    def print_sampled_tokens(probas):
        torch.manual_seed(123)  # Manual seed for reproducibility
        sample = [torch.multinomial(probas, num_samples=1).item() for i in range(1_000)]
        sampled_ids = torch.bincount(torch.tensor(sample), minlength=len(probas))
        for i, freq in enumerate(sampled_ids):
            print(f"{freq} x {inverse_vocab[i]}")
    print_sampled_tokens(probas)

    def softmax_with_temperature(logits, temperature):
        scaled_logits = logits / temperature
        return torch.softmax(scaled_logits, dim=0)
    temperatures = [1, 0.1, 5]  # Original, higher confidence, and lower confidence
    scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]
    for T, p in zip(temperatures, scaled_probas):
        print("T", T, [round(x, 4) for x in p.tolist()])
    print_sampled_tokens(scaled_probas[2])

    top_k = 3
    top_logits, top_pos = torch.topk(next_token_logits, top_k)
    print("Top logits:", top_logits)
    print("Top positions:", top_pos)
    new_logits = torch.where(
        condition=next_token_logits < top_logits[-1],
        input=torch.tensor(float("-inf")),
        other=next_token_logits
    )
    print(new_logits)
    topk_probas = torch.softmax(new_logits, dim=0)
    print(topk_probas)

    torch.manual_seed(123)
    token_ids = generate(model=model, idx=text_to_token_ids("I had always", tokenizer),
                         max_new_tokens=10, context_size=GPT_CONFIG_124M["context_length"], top_k=5,
                         temperature=1.4)
    print("Output text:\n", token_ids_to_text(token_ids, tokenizer))
    torch.manual_seed(7)
    token_ids = generate(model=model, idx=text_to_token_ids("Jack", tokenizer), max_new_tokens=12,
                         context_size=GPT_CONFIG_124M["context_length"], temperature=0.8, eos_id=EOT_ID)
    print("eos output", token_ids.tolist())
    token_ids = generate(model=model, idx=text_to_token_ids("Jack", tokenizer), max_new_tokens=5,
                         context_size=GPT_CONFIG_124M["context_length"])
    print("greedy output", token_ids.tolist())
    eos = token_ids[0, 2].item()
    token_ids = generate(model=model, idx=text_to_token_ids("Jack", tokenizer), max_new_tokens=5,
                         context_size=GPT_CONFIG_124M["context_length"], eos_id=eos)
    print("greedy stopped at eos", token_ids.tolist())

    # ---------------------------------------------------------------- loading and saving
    path = os.path.join(tmpdir, "model.pth")
    torch.save(model.state_dict(), path)
    model = GPTModel(GPT_CONFIG_124M)
    model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
    model.eval()
    with torch.no_grad():
        print("reloaded val loss", round(calc_loss_loader(val_loader, model, device), 4))

    path = os.path.join(tmpdir, "model_and_optimizer.pth")
    torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}, path)
    checkpoint = torch.load(path, weights_only=True)
    model = GPTModel(GPT_CONFIG_124M)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0005, weight_decay=0.1)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    st = optimizer.state_dict()
    print("optimizer state", len(st["state"]), sorted(st["state"][0].keys()), st["state"][0]["step"],
          st["param_groups"][0]["lr"], st["param_groups"][0]["weight_decay"])
    torch.manual_seed(123)
    train_losses, val_losses, tokens_seen = train_model_simple(
        model, train_loader, val_loader, optimizer, device, num_epochs=1, eval_freq=5, eval_iter=1,
        start_context="Jack", tokenizer=tokenizer)

    # ---------------------------------------------------------------- "pretrained" GPT-2 style weights
    model_configs = {
        "gpt2-small (124M)": {"emb_dim": 32, "n_layers": 2, "n_heads": 4},
        "gpt2-medium (355M)": {"emb_dim": 48, "n_layers": 3, "n_heads": 4},
    }
    model_name = "gpt2-small (124M)"
    NEW_CONFIG = GPT_CONFIG_124M.copy()
    NEW_CONFIG.update(model_configs[model_name])
    NEW_CONFIG.update({"context_length": 24, "qkv_bias": True})
    gpt = GPTModel(NEW_CONFIG)
    gpt.eval()
    params = fake_gpt2_params(NEW_CONFIG)
    print("Parameter dictionary keys:", params.keys())
    print(params["wte"].shape, params["wte"].dtype, round(float(params["wte"].sum()), 4))
    load_weights_into_gpt(gpt, params)
    gpt.to(device)
    print("tied", gpt.out_head.weight is gpt.tok_emb.weight, torch.equal(gpt.out_head.weight, gpt.tok_emb.weight))
    print("q weight", gpt.trf_blocks[0].att.W_query.weight.shape, gpt.trf_blocks[0].att.W_query.weight.dtype,
          gpt.trf_blocks[0].att.W_query.weight.is_contiguous(),
          type(gpt.trf_blocks[0].att.W_query.weight).__name__,
          round(gpt.trf_blocks[0].att.W_query.weight[3, :5].sum().item(), 5))
    print("n params", sum(p.numel() for p in gpt.parameters()), len(list(gpt.parameters())))
    torch.manual_seed(123)
    token_ids = generate(model=gpt, idx=text_to_token_ids("I had always", tokenizer).to(device),
                         max_new_tokens=8, context_size=NEW_CONFIG["context_length"], top_k=4, temperature=1.5)
    print("Output text:\n", token_ids_to_text(token_ids, tokenizer))
    with torch.no_grad():
        print("pretrained val loss", round(calc_loss_loader(val_loader, gpt, device), 4))
    try:
        assign(gpt.pos_emb.weight, params["wte"])
    except ValueError as e:
        print("ValueError", e)


def find_highest_gradient(model):
    max_grad = None
    for param in model.parameters():
        if param.grad is not None:
            grad_values = param.grad.data.flatten()
            max_grad_param = grad_values.max()
            if max_grad is None or max_grad_param > max_grad:
                max_grad = max_grad_param
    return max_grad


def train_model(model, train_loader, val_loader, optimizer, device,
                n_epochs, eval_freq, eval_iter, start_context, tokenizer,
                warmup_steps, initial_lr=3e-05, min_lr=1e-6):

    train_losses, val_losses, track_tokens_seen, track_lrs = [], [], [], []
    tokens_seen, global_step = 0, -1

    # Retrieve the maximum learning rate from the optimizer
    peak_lr = optimizer.param_groups[0]["lr"]

    # Calculate the total number of iterations in the training process
    total_training_steps = len(train_loader) * n_epochs

    # Calculate the learning rate increment during the warmup phase
    lr_increment = (peak_lr - initial_lr) / warmup_steps

    for epoch in range(n_epochs):
        model.train()
        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()
            global_step += 1

            # Adjust the learning rate based on the current phase (warmup or cosine annealing)
            if global_step < warmup_steps:
                # Linear warmup
                lr = initial_lr + global_step * lr_increment
            else:
                # Cosine annealing after warmup
                progress = ((global_step - warmup_steps) /
                            (total_training_steps - warmup_steps))
                lr = min_lr + (peak_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * progress))

            # Apply the calculated learning rate to the optimizer
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr
            track_lrs.append(lr)  # Store the current learning rate

            # Calculate and backpropagate the loss
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            loss.backward()

            # Apply gradient clipping after the warmup phase to avoid exploding gradients
            if global_step >= warmup_steps:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)

            optimizer.step()
            tokens_seen += input_batch.numel()

            # Periodically evaluate the model on the training and validation sets
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model(
                    model, train_loader, val_loader,
                    device, eval_iter
                )
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                track_tokens_seen.append(tokens_seen)
                # Print the current losses
                print(f"Ep {epoch+1} (Iter {global_step:06d}): "
                      f"Train loss {train_loss:.3f}, "
                      f"Val loss {val_loss:.3f}"
                      )

        # Generate and print a sample from the model to monitor progress
        generate_and_print_sample(model, tokenizer, device, start_context)

    return train_losses, val_losses, track_tokens_seen, track_lrs


def appendix_d(device):
    text_data = RAW_TEXT
    split_idx = int(0.9 * len(text_data))
    torch.manual_seed(123)
    train_loader = create_dataloader_v1(text_data[:split_idx], batch_size=2, max_length=16, stride=16,
                                        drop_last=True, shuffle=True, num_workers=0)
    val_loader = create_dataloader_v1(text_data[split_idx:], batch_size=2, max_length=16, stride=16,
                                      drop_last=False, shuffle=False, num_workers=0)
    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.to(device)

    n_epochs = 15
    initial_lr = 0.0001
    peak_lr = 0.01
    total_steps = len(train_loader) * n_epochs
    warmup_steps = int(0.2 * total_steps)  # 20% warmup
    lr_increment = (peak_lr - initial_lr) / warmup_steps
    print("steps", total_steps, warmup_steps, round(lr_increment, 8))

    optimizer = torch.optim.AdamW(model.parameters(), weight_decay=0.1)
    global_step = -1
    track_lrs = []
    min_lr = 0.1 * initial_lr
    for epoch in range(n_epochs):
        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()
            global_step += 1
            if global_step < warmup_steps:
                lr = initial_lr + global_step * lr_increment
            else:
                progress = ((global_step - warmup_steps) / (total_steps - warmup_steps))
                lr = min_lr + (peak_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * progress))
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr
            track_lrs.append(optimizer.param_groups[0]["lr"])
            # Calculate loss and update weights
            # ...
    print("lrs", [round(x, 6) for x in track_lrs[::40]], len(track_lrs))

    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.to(device)
    loss = calc_loss_batch(*next(iter(train_loader)), model, device)
    loss.backward()
    print("max grad", round(find_highest_gradient(model).item(), 5))
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    print("total norm", round(total.item(), 4), total.dtype, total.shape)
    print("max grad after clipping", round(find_highest_gradient(model).item(), 5))
    print("norm after clipping", round(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]).item(), 4))

    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.to(device)
    peak_lr = 0.005
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=0.1)
    n_epochs = 2
    train_losses, val_losses, tokens_seen, lrs = train_model(
        model, train_loader, val_loader, optimizer, device, n_epochs=n_epochs,
        eval_freq=6, eval_iter=1, start_context="I had always",
        tokenizer=tokenizer, warmup_steps=5,
        initial_lr=1e-5, min_lr=1e-5
    )
    print("lrs", [round(x, 7) for x in lrs[::4]], round(optimizer.param_groups[0]["lr"], 8))
    print("final weight sum", round(sum(p.sum().item() for p in model.parameters()), 3))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print("device", device)
    with tempfile.TemporaryDirectory() as tmpdir:
        ch05(device, tmpdir)
    appendix_d(device)


if __name__ == "__main__":
    main()
