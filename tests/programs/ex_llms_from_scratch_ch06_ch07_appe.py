"""rasbt/LLMs-from-scratch-style chapters 6-7 and appendix E (own code, synthetic data in place of the SMS
spam collection and the instruction-data.json download, tiny sizes), importing the earlier chapters' code as
the book's notebooks do with ``from previous_chapters import ...``:

- ch06: a balanced spam/ham dataset split by a seeded shuffle, ``SpamDataset`` padding every text to the
  longest with the end-of-text id, ``DataLoader(shuffle=True, drop_last=True, num_workers=0)``, a GPT with
  "pretrained" weights (``load_weights_into_gpt``), all parameters frozen (``requires_grad = False``),
  ``out_head`` replaced by ``nn.Linear(emb_dim, 2)``, the last block and final norm unfrozen, the loss on
  the last token's logits, ``calc_accuracy_loader``, ``train_classifier_simple`` with AdamW over all
  parameters (frozen ones have no grad), ``classify_review`` and a state_dict round trip;
- ch07: ``format_input`` (Alpaca prompt), ``InstructionDataset``, the three collate drafts
  (``custom_collate_fn``: pad with 50256, targets shifted by one, all but the first pad in the targets set
  to -100 through ``torch.nonzero(mask).squeeze()``, ``allowed_max_length``), ``partial`` as ``collate_fn``,
  ``F.cross_entropy`` with ``ignore_index``, finetuning with ``train_model_simple``, generating responses
  with ``eos_id`` and writing them as JSON;
- appendix E: ``LoRALayer`` (``kaiming_uniform_(A, a=math.sqrt(5))``, ``B`` zeros), ``LinearWithLoRA``,
  ``replace_linear_with_lora`` (``named_children`` + ``setattr``, recursive), only LoRA parameters trainable,
  ``print(model)`` and finetuning the spam classifier.
"""
import json
import math
import os
import random
import tempfile
from functools import partial

import torch
from torch.utils.data import DataLoader, Dataset
from ex_llms_from_scratch_ch02_ch04 import (EOT_ID, GPT_CONFIG_124M, TOKENIZER, GPTModel, SimpleTokenizerV2,
                                            build_vocab)
from ex_llms_from_scratch_ch05_appd import (calc_loss_loader, fake_gpt2_params, generate, load_weights_into_gpt,
                                            text_to_token_ids, token_ids_to_text, train_model_simple)

tokenizer = TOKENIZER
BASE_CONFIG = dict(GPT_CONFIG_124M, drop_rate=0.0, qkv_bias=True, context_length=24)

_HAM = ["I", "had", "always", "thought", "Jack", "rather", "a", "good", "fellow", "enough", "so", "it", "was",
        "the", "height", "of", "his", "painting", "and", "he", "established", "himself", "on", "villa"]
_SPAM = ["rich", "widow", "glory", "great", "surprise", "cheap", "genius", "married", "dropped", "Riviera"]


def make_sms(n, seed=0):
    """(label, text) pairs: spam texts are mostly made of the spam words (plain Python: the same data under
    every torch)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        spam = i % 4 == 0
        k = rng.randint(4, 11)
        words = [rng.choice(_SPAM if spam and rng.random() < 0.7 else _HAM) for _ in range(k)]
        rows.append(("spam" if spam else "ham", " ".join(words) + "."))
    return rows


def create_balanced_dataset(rows):
    # Count the instances of "spam"
    spam = [r for r in rows if r[0] == "spam"]
    num_spam = len(spam)
    # Randomly sample "ham" instances to match the number of "spam" instances
    ham = [r for r in rows if r[0] == "ham"]
    ham_subset = random.Random(123).sample(ham, num_spam)
    # Combine ham "subset" with "spam"
    return ham_subset + spam


def random_split(rows, train_frac, validation_frac):
    # Shuffle the entire DataFrame
    rows = list(rows)
    random.Random(123).shuffle(rows)
    # Calculate split indices
    train_end = int(len(rows) * train_frac)
    validation_end = train_end + int(len(rows) * validation_frac)
    # Split the DataFrame
    return rows[:train_end], rows[train_end:validation_end], rows[validation_end:]


class SpamDataset(Dataset):
    def __init__(self, rows, tokenizer, max_length=None, pad_token_id=50256):
        self.data = [{"Label": 1 if label == "spam" else 0, "Text": text} for label, text in rows]

        # Pre-tokenize texts
        self.encoded_texts = [tokenizer.encode(row["Text"]) for row in self.data]

        if max_length is None:
            self.max_length = self._longest_encoded_length()
        else:
            self.max_length = max_length
            # Truncate sequences if they are longer than max_length
            self.encoded_texts = [encoded_text[:self.max_length] for encoded_text in self.encoded_texts]

        # Pad sequences to the longest sequence
        self.encoded_texts = [
            encoded_text + [pad_token_id] * (self.max_length - len(encoded_text))
            for encoded_text in self.encoded_texts
        ]

    def __getitem__(self, index):
        encoded = self.encoded_texts[index]
        label = self.data[index]["Label"]
        return (
            torch.tensor(encoded, dtype=torch.long),
            torch.tensor(label, dtype=torch.long)
        )

    def __len__(self):
        return len(self.data)

    def _longest_encoded_length(self):
        max_length = 0
        for encoded_text in self.encoded_texts:
            encoded_length = len(encoded_text)
            if encoded_length > max_length:
                max_length = encoded_length
        return max_length


def calc_accuracy_loader(data_loader, model, device, num_batches=None):
    model.eval()
    correct_predictions, num_examples = 0, 0

    if num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            input_batch, target_batch = input_batch.to(device), target_batch.to(device)

            with torch.no_grad():
                logits = model(input_batch)[:, -1, :]  # Logits of last output token
            predicted_labels = torch.argmax(logits, dim=-1)

            num_examples += predicted_labels.shape[0]
            correct_predictions += (predicted_labels == target_batch).sum().item()
        else:
            break
    return correct_predictions / num_examples


def calc_loss_batch_cls(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)[:, -1, :]  # Logits of last output token
    loss = torch.nn.functional.cross_entropy(logits, target_batch)
    return loss


def calc_loss_loader_cls(data_loader, model, device, num_batches=None):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            loss = calc_loss_batch_cls(input_batch, target_batch, model, device)
            total_loss += loss.item()
        else:
            break
    return total_loss / num_batches


def evaluate_model_cls(model, train_loader, val_loader, device, eval_iter):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader_cls(train_loader, model, device, num_batches=eval_iter)
        val_loss = calc_loss_loader_cls(val_loader, model, device, num_batches=eval_iter)
    model.train()
    return train_loss, val_loss


def train_classifier_simple(model, train_loader, val_loader, optimizer, device, num_epochs, eval_freq, eval_iter):
    # Initialize lists to track losses and examples seen
    train_losses, val_losses, train_accs, val_accs = [], [], [], []
    examples_seen, global_step = 0, -1

    # Main training loop
    for epoch in range(num_epochs):
        model.train()  # Set model to training mode

        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()  # Reset loss gradients from previous batch iteration
            loss = calc_loss_batch_cls(input_batch, target_batch, model, device)
            loss.backward()  # Calculate loss gradients
            optimizer.step()  # Update model weights using loss gradients
            examples_seen += input_batch.shape[0]  # New: track examples instead of tokens
            global_step += 1

            # Optional evaluation step
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model_cls(model, train_loader, val_loader, device, eval_iter)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                print(f"Ep {epoch+1} (Step {global_step:06d}): "
                      f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")

        # Calculate accuracy after each epoch
        train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=eval_iter)
        val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=eval_iter)
        print(f"Training accuracy: {train_accuracy*100:.2f}% | ", end="")
        print(f"Validation accuracy: {val_accuracy*100:.2f}%")
        train_accs.append(train_accuracy)
        val_accs.append(val_accuracy)

    return train_losses, val_losses, train_accs, val_accs, examples_seen


def classify_review(text, model, tokenizer, device, max_length=None, pad_token_id=50256):
    model.eval()

    # Prepare inputs to the model
    input_ids = tokenizer.encode(text)
    supported_context_length = model.pos_emb.weight.shape[0]
    # Note: In the book, this was originally written as pos_emb.weight.shape[1] by mistake

    # Truncate sequences if they too long
    input_ids = input_ids[:min(max_length, supported_context_length)]

    # Pad sequences to the longest sequence
    input_ids += [pad_token_id] * (max_length - len(input_ids))
    input_tensor = torch.tensor(input_ids, device=device).unsqueeze(0)  # add batch dimension

    # Model inference
    with torch.no_grad():
        logits = model(input_tensor)[:, -1, :]  # Logits of the last output token
    predicted_label = torch.argmax(logits, dim=-1).item()

    # Return the classified result
    return "spam" if predicted_label == 1 else "not spam"


def spam_loaders():
    rows = make_sms(160)
    balanced_df = create_balanced_dataset(rows)
    print("balanced", len(balanced_df), sum(r[0] == "spam" for r in balanced_df))
    train_df, validation_df, test_df = random_split(balanced_df, 0.7, 0.1)
    print("split", len(train_df), len(validation_df), len(test_df))
    train_dataset = SpamDataset(train_df, max_length=None, tokenizer=tokenizer, pad_token_id=EOT_ID)
    print("train_dataset.max_length", train_dataset.max_length)
    val_dataset = SpamDataset(validation_df, max_length=train_dataset.max_length, tokenizer=tokenizer,
                              pad_token_id=EOT_ID)
    test_dataset = SpamDataset(test_df, max_length=train_dataset.max_length, tokenizer=tokenizer,
                               pad_token_id=EOT_ID)
    num_workers = 0
    batch_size = 8
    torch.manual_seed(123)
    train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True,
                              num_workers=num_workers, drop_last=True)
    val_loader = DataLoader(dataset=val_dataset, batch_size=batch_size, num_workers=num_workers, drop_last=False)
    test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, num_workers=num_workers,
                             drop_last=False)
    return train_dataset, train_loader, val_loader, test_loader


def pretrained_model(device):
    torch.manual_seed(123)
    model = GPTModel(BASE_CONFIG)
    load_weights_into_gpt(model, fake_gpt2_params(BASE_CONFIG, seed=1))
    model.to(device)
    model.eval()
    return model


def ch06(device, tmpdir):
    train_dataset, train_loader, val_loader, test_loader = spam_loaders()
    print("Train loader:")
    for input_batch, target_batch in train_loader:
        pass
    print("Input batch dimensions:", input_batch.shape)
    print("Label batch dimensions", target_batch.shape, target_batch.dtype)
    print(f"{len(train_loader)} training batches")
    print(f"{len(val_loader)} validation batches")
    print(f"{len(test_loader)} test batches")

    model = pretrained_model(device)
    print(sum(p.numel() for p in model.parameters()))
    for param in model.parameters():
        param.requires_grad = False
    torch.manual_seed(123)
    num_classes = 2
    model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
    for param in model.trf_blocks[-1].parameters():
        param.requires_grad = True
    for param in model.final_norm.parameters():
        param.requires_grad = True
    print("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad),
          [n for n, p in model.named_parameters() if p.requires_grad][:3])

    inputs = tokenizer.encode("Do you have time")
    inputs = torch.tensor(inputs).unsqueeze(0)
    print("Inputs:", inputs)
    print("Inputs dimensions:", inputs.shape)  # shape: (batch_size, num_tokens)
    with torch.no_grad():
        outputs = model(inputs)
    print("Outputs:\n", outputs.shape)
    print("Last output token:", [round(v, 4) for v in outputs[:, -1, :].flatten().tolist()])
    probas = torch.softmax(outputs[:, -1, :], dim=-1)
    label = torch.argmax(probas)
    print("Class label:", label.item())

    torch.manual_seed(123)  # For reproducibility due to the shuffling in the training data loader
    train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=10)
    val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=10)
    test_accuracy = calc_accuracy_loader(test_loader, model, device, num_batches=10)
    print(f"Training accuracy: {train_accuracy*100:.2f}%")
    print(f"Validation accuracy: {val_accuracy*100:.2f}%")
    print(f"Test accuracy: {test_accuracy*100:.2f}%")
    with torch.no_grad():  # Disable gradient tracking for efficiency because we are not training, yet
        train_loss = calc_loss_loader_cls(train_loader, model, device, num_batches=5)
        val_loss = calc_loss_loader_cls(val_loader, model, device, num_batches=5)
    print(f"Training loss: {train_loss:.3f}")
    print(f"Validation loss: {val_loss:.3f}")

    torch.manual_seed(123)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.1)
    num_epochs = 3
    train_losses, val_losses, train_accs, val_accs, examples_seen = train_classifier_simple(
        model, train_loader, val_loader, optimizer, device, num_epochs=num_epochs, eval_freq=5, eval_iter=5)
    print("examples seen", examples_seen, len(optimizer.state), model.trf_blocks[0].att.W_query.weight.grad)
    train_accuracy = calc_accuracy_loader(train_loader, model, device)
    val_accuracy = calc_accuracy_loader(val_loader, model, device)
    test_accuracy = calc_accuracy_loader(test_loader, model, device)
    print(f"Training accuracy: {train_accuracy*100:.2f}%")
    print(f"Validation accuracy: {val_accuracy*100:.2f}%")
    print(f"Test accuracy: {test_accuracy*100:.2f}%")

    text_1 = "rich widow glory, great surprise cheap genius."
    print(classify_review(text_1, model, tokenizer, device, max_length=train_dataset.max_length,
                          pad_token_id=EOT_ID))
    text_2 = "I had always thought Jack was a good fellow."
    print(classify_review(text_2, model, tokenizer, device, max_length=train_dataset.max_length,
                          pad_token_id=EOT_ID))

    path = os.path.join(tmpdir, "review_classifier.pth")
    torch.save(model.state_dict(), path)
    model_state_dict = torch.load(path, map_location=device, weights_only=True)
    model.load_state_dict(model_state_dict)
    print("reloaded", round(calc_accuracy_loader(val_loader, model, device), 4),
          model.out_head.weight.requires_grad, model.tok_emb.weight.requires_grad)


# ----------------------------------------------------------------------------- ch07
def format_input(entry):
    instruction_text = (
        f"Below is an instruction that describes a task. "
        f"Write a response that appropriately completes the request."
        f"\n\n### Instruction:\n{entry['instruction']}"
    )
    input_text = f"\n\n### Input:\n{entry['input']}" if entry["input"] else ""
    return instruction_text + input_text


def make_instructions(n, seed=0):
    rng = random.Random(seed)
    words = _HAM + _SPAM
    data = []
    for i in range(n):
        kind = i % 3
        w = [rng.choice(words) for _ in range(rng.randint(1, 3))]
        if kind == 0:
            data.append({"instruction": "Repeat the words.", "input": " ".join(w), "output": " ".join(w) + "."})
        elif kind == 1:
            data.append({"instruction": "Reverse the words.", "input": " ".join(w),
                         "output": " ".join(reversed(w)) + "."})
        else:
            data.append({"instruction": f"Name the first word of {w[0]}.", "input": "",
                         "output": f"The first word is {w[0]}."})
    return data


class InstructionDataset(Dataset):
    def __init__(self, data, tokenizer):
        self.data = data

        # Pre-tokenize texts
        self.encoded_texts = []
        for entry in data:
            instruction_plus_input = format_input(entry)
            response_text = f"\n\n### Response:\n{entry['output']}"
            full_text = instruction_plus_input + response_text
            self.encoded_texts.append(tokenizer.encode(full_text))

    def __getitem__(self, index):
        return self.encoded_texts[index]

    def __len__(self):
        return len(self.data)


def custom_collate_draft_1(batch, pad_token_id=50256, device="cpu"):
    # Find the longest sequence in the batch
    # and increase the max length by +1, which will add one extra
    # padding token below
    batch_max_length = max(len(item)+1 for item in batch)

    # Pad and prepare inputs
    inputs_lst = []

    for item in batch:
        new_item = item.copy()
        # Add an <|endoftext|> token
        new_item += [pad_token_id]
        # Pad sequences to batch_max_length
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        # Via padded[:-1], we remove the extra padded token
        # that has been added via the +1 setting in batch_max_length
        # (the extra padding token will be relevant in later codes)
        inputs = torch.tensor(padded[:-1])
        inputs_lst.append(inputs)

    # Convert list of inputs to tensor and transfer to target device
    inputs_tensor = torch.stack(inputs_lst).to(device)
    return inputs_tensor


def custom_collate_draft_2(batch, pad_token_id=50256, device="cpu"):
    # Find the longest sequence in the batch
    batch_max_length = max(len(item)+1 for item in batch)

    # Pad and prepare inputs
    inputs_lst, targets_lst = [], []

    for item in batch:
        new_item = item.copy()
        # Add an <|endoftext|> token
        new_item += [pad_token_id]
        # Pad sequences to max_length
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        inputs = torch.tensor(padded[:-1])  # Truncate the last token for inputs
        targets = torch.tensor(padded[1:])  # Shift +1 to the right for targets
        inputs_lst.append(inputs)
        targets_lst.append(targets)

    # Convert list of inputs to tensor and transfer to target device
    inputs_tensor = torch.stack(inputs_lst).to(device)
    targets_tensor = torch.stack(targets_lst).to(device)
    return inputs_tensor, targets_tensor


def custom_collate_fn(batch, pad_token_id=50256, ignore_index=-100, allowed_max_length=None, device="cpu"):
    # Find the longest sequence in the batch
    batch_max_length = max(len(item)+1 for item in batch)

    # Pad and prepare inputs and targets
    inputs_lst, targets_lst = [], []

    for item in batch:
        new_item = item.copy()
        # Add an <|endoftext|> token
        new_item += [pad_token_id]
        # Pad sequences to max_length
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        inputs = torch.tensor(padded[:-1])  # Truncate the last token for inputs
        targets = torch.tensor(padded[1:])  # Shift +1 to the right for targets

        # New: Replace all but the first padding tokens in targets by ignore_index
        mask = targets == pad_token_id
        indices = torch.nonzero(mask).squeeze()
        if indices.numel() > 1:
            targets[indices[1:]] = ignore_index

        # New: Optionally truncate to maximum sequence length
        if allowed_max_length is not None:
            inputs = inputs[:allowed_max_length]
            targets = targets[:allowed_max_length]

        inputs_lst.append(inputs)
        targets_lst.append(targets)

    # Convert list of inputs and targets to tensors and transfer to target device
    inputs_tensor = torch.stack(inputs_lst).to(device)
    targets_tensor = torch.stack(targets_lst).to(device)

    return inputs_tensor, targets_tensor


def ch07(device, tmpdir):
    data = make_instructions(48)
    print("Number of entries:", len(data))
    print("Example entry:\n", data[1])
    model_input = format_input(data[50 % len(data)])
    desired_response = f"\n\n### Response:\n{data[50 % len(data)]['output']}"
    print((model_input + desired_response).replace("\n", "|"))

    train_portion = int(len(data) * 0.85)  # 85% for training
    test_portion = int(len(data) * 0.1)    # 10% for testing
    train_data = data[:train_portion]
    test_data = data[train_portion:train_portion + test_portion]
    val_data = data[train_portion + test_portion:]
    print("Training set length:", len(train_data))
    print("Validation set length:", len(val_data))
    print("Test set length:", len(test_data))

    inputs_1 = [0, 1, 2, 3, 4]
    inputs_2 = [5, 6]
    inputs_3 = [7, 8, 9]
    batch = (inputs_1, inputs_2, inputs_3)
    print(custom_collate_draft_1(batch))
    inputs, targets = custom_collate_draft_2(batch)
    print(inputs)
    print(targets)
    inputs, targets = custom_collate_fn(batch)
    print(inputs)
    print(targets)
    inputs, targets = custom_collate_fn(batch, allowed_max_length=3)
    print(inputs.tolist(), targets.tolist())
    inputs, targets = custom_collate_fn(([1, 2, 3], [4, 5, 6]))  # (one pad each: nonzero(...).squeeze() is 0-d)
    print(inputs.tolist(), targets.tolist())

    logits_1 = torch.tensor(
        [[-1.0, 1.0],  # 1st training example
         [-0.5, 1.5]]  # 2nd training example
    )
    targets_1 = torch.tensor([0, 1])
    loss_1 = torch.nn.functional.cross_entropy(logits_1, targets_1)
    print(loss_1)
    logits_2 = torch.tensor(
        [[-1.0, 1.0],
         [-0.5, 1.5],
         [-0.5, 1.5]]  # New 3rd training example
    )
    targets_2 = torch.tensor([0, 1, 1])
    loss_2 = torch.nn.functional.cross_entropy(logits_2, targets_2)
    print(loss_2)
    targets_3 = torch.tensor([0, 1, -100])
    loss_3 = torch.nn.functional.cross_entropy(logits_2, targets_3)
    print(loss_3)
    print("loss_1 == loss_3:", loss_1 == loss_3)
    targets_4 = torch.tensor([-100, -100, -100])
    print("all ignored", torch.nn.functional.cross_entropy(logits_2, targets_4))

    # a tokenizer over the prompts (the book's tiktoken covers them; SimpleTokenizerV2 needs a vocabulary)
    all_text = " ".join(format_input(e) + f"\n\n### Response:\n{e['output']}" for e in data)
    vocab = build_vocab(all_text)
    tok = SimpleTokenizerV2(vocab)
    pad_id = vocab["<|endoftext|>"]
    cfg = dict(BASE_CONFIG, vocab_size=len(vocab), context_length=48)
    print("instruction vocab", len(vocab), pad_id)

    customized_collate_fn = partial(custom_collate_fn, pad_token_id=pad_id, device=device,
                                    allowed_max_length=cfg["context_length"])
    num_workers = 0
    batch_size = 8
    torch.manual_seed(123)
    train_dataset = InstructionDataset(train_data, tok)
    train_loader = DataLoader(train_dataset, batch_size=batch_size, collate_fn=customized_collate_fn, shuffle=True,
                              drop_last=True, num_workers=num_workers)
    val_dataset = InstructionDataset(val_data, tok)
    val_loader = DataLoader(val_dataset, batch_size=batch_size, collate_fn=customized_collate_fn, shuffle=False,
                            drop_last=False, num_workers=num_workers)
    test_dataset = InstructionDataset(test_data, tok)
    test_loader = DataLoader(test_dataset, batch_size=batch_size, collate_fn=customized_collate_fn, shuffle=False,
                             drop_last=False, num_workers=num_workers)
    print("test batches", len(test_loader), [tuple(x.shape) for x, _ in test_loader])
    print("Train loader:")
    for inputs, targets in train_loader:
        print(inputs.shape, targets.shape, int((targets == -100).sum()), inputs.dtype)
    print(inputs[0].tolist())
    print(targets[0].tolist())

    torch.manual_seed(123)
    model = GPTModel(cfg)
    load_weights_into_gpt(model, fake_gpt2_params(cfg, seed=2))
    model.eval()
    torch.manual_seed(123)
    input_text = format_input(val_data[0])
    token_ids = generate(model=model, idx=text_to_token_ids(input_text, tok), max_new_tokens=4,
                         context_size=cfg["context_length"], eos_id=pad_id)
    generated_text = token_ids_to_text(token_ids, tok)
    response_text = generated_text[len(token_ids_to_text(text_to_token_ids(input_text, tok), tok)):].strip()
    print("untrained response:", response_text)

    model.to(device)
    torch.manual_seed(123)
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device, num_batches=5)
        val_loss = calc_loss_loader(val_loader, model, device, num_batches=5)
    print("Training loss:", round(train_loss, 4))
    print("Validation loss:", round(val_loss, 4))

    torch.manual_seed(123)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.1)
    num_epochs = 3
    train_losses, val_losses, tokens_seen = train_model_simple(
        model, train_loader, val_loader, optimizer, device, num_epochs=num_epochs, eval_freq=4, eval_iter=2,
        start_context="Repeat the words.", tokenizer=tok)

    torch.manual_seed(123)
    for i, entry in enumerate(test_data[:2]):
        input_text = format_input(entry)
        token_ids = generate(model=model, idx=text_to_token_ids(input_text, tok).to(device), max_new_tokens=5,
                             context_size=cfg["context_length"], eos_id=pad_id)
        generated_text = token_ids_to_text(token_ids, tok)
        prompt = token_ids_to_text(text_to_token_ids(input_text, tok), tok)
        response_text = generated_text[len(prompt):].replace("### Response:", "").strip()
        test_data[i]["model_response"] = response_text
        print(f"Correct response:\n>> {entry['output']}")
        print(f"Model response:\n>> {response_text.strip()}")
    path = os.path.join(tmpdir, "instruction-data-with-response.json")
    with open(path, "w") as file:
        json.dump(test_data, file, indent=4)  # "indent" for pretty-printing
    with open(path) as file:
        print(json.load(file)[0])
    file_name = os.path.join(tmpdir, "gpt2-small124M-sft.pth")
    torch.save(model.state_dict(), file_name)
    print("saved", len(torch.load(file_name, weights_only=True)))


# ----------------------------------------------------------------------------- appendix E
class LoRALayer(torch.nn.Module):
    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # similar to standard weight initialization
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha

    def forward(self, x):
        x = self.alpha * (x @ self.A @ self.B)
        return x


class LinearWithLoRA(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(
            linear.in_features, linear.out_features, rank, alpha
        )

    def forward(self, x):
        return self.linear(x) + self.lora(x)


def replace_linear_with_lora(model, rank, alpha):
    for name, module in model.named_children():
        if isinstance(module, torch.nn.Linear):
            # Replace the Linear layer with LinearWithLoRA
            setattr(model, name, LinearWithLoRA(module, rank, alpha))
        else:
            # Recursively apply the same function to child modules
            replace_linear_with_lora(module, rank, alpha)


def appendix_e(device):
    train_dataset, train_loader, val_loader, test_loader = spam_loaders()
    model = pretrained_model(device)
    torch.manual_seed(123)
    num_classes = 2
    model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
    model.to(device)  # no assignment model = model.to(device) necessary for nn.Module classes
    torch.manual_seed(123)
    train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=10)
    print(f"Training accuracy: {train_accuracy*100:.2f}%")

    total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Total trainable parameters before: {total_params:,}")
    for param in model.parameters():
        param.requires_grad = False
    total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Total trainable parameters after: {total_params:,}")
    torch.manual_seed(123)
    replace_linear_with_lora(model, rank=4, alpha=8)
    total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Total trainable LoRA parameters: {total_params:,}")
    print(model)
    print(round(model.trf_blocks[0].att.W_query.lora.A.sum().item(), 4),
          model.trf_blocks[0].att.W_query.lora.A.shape, model.out_head.lora.B.shape)
    print([n for n, p in model.named_parameters() if p.requires_grad][:4])

    torch.manual_seed(123)
    train_accuracy = calc_accuracy_loader(train_loader, model, device, num_batches=10)
    val_accuracy = calc_accuracy_loader(val_loader, model, device, num_batches=10)
    print(f"Training accuracy: {train_accuracy*100:.2f}%")
    print(f"Validation accuracy: {val_accuracy*100:.2f}%")

    torch.manual_seed(123)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.1)
    train_losses, val_losses, train_accs, val_accs, examples_seen = train_classifier_simple(
        model, train_loader, val_loader, optimizer, device, num_epochs=2, eval_freq=5, eval_iter=5)
    print("B norm", round(model.trf_blocks[1].ff.layers[0].lora.B.norm().item(), 4),
          model.trf_blocks[1].ff.layers[0].linear.weight.grad)
    test_accuracy = calc_accuracy_loader(test_loader, model, device)
    print(f"Test accuracy: {test_accuracy*100:.2f}%")


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with tempfile.TemporaryDirectory() as tmpdir:
        ch06(device, tmpdir)
        ch07(device, tmpdir)
    appendix_e(device)


if __name__ == "__main__":
    main()
