"""Training programs in the full "script" form real repositories have, run unmodified under the drop-in runner:
argparse with defaults, a config dataclass, ``if __name__ == "__main__":``, ``logging.basicConfig`` to stdout
(so JAX's own log records must stay out of it), ``torch.backends.*`` / ``set_float32_matmul_precision`` /
deterministic flags, ``Dataset`` / ``DataLoader`` with custom collate functions and samplers (weighted, subset,
bucketing ``Sampler`` subclasses, ``BatchSampler``), gradient accumulation, early stopping, metrics in torch ops
(accuracy, F1, confusion matrices by ``bincount``, AUROC by sorting, ``quantile`` thresholds), checkpoints of
model / optimizer / scheduler / epoch / ``get_rng_state()`` saved to a temporary directory and resumed from, and a
final summary (parameter counts, ``print(model)``).

Families: a keyword spotter (``stft`` log-mel by hand, SpecAugment masks, Conv1d + GRU); a tabular MLP with
categorical embeddings, BatchNorm and k-fold CV; a Mask-R-CNN-style RoI head by hand (IoU, anchor matching,
smooth-L1, NMS, RoIAlign through ``grid_sample``); a packed-sequence bidirectional LSTM text classifier with
attention pooling; a seq2seq forecaster with teacher forcing and scheduled sampling; a spectral-norm GAN with
hinge loss and TTUR; Deep SVDD / autoencoder anomaly detection; knowledge distillation with temperature-scaled
KL and a hint loss through forward hooks; an image classifier with the generic plumbing (device selection,
random_split + ConcatDataset, DistributedSampler on one replica, worker_init_fn, weight_norm, activation
checkpointing of BatchNorm blocks, bfloat16 autocast with a disabled GradScaler, SWA with update_bn, fork_rng).

Each program (tests/programs/ex_script_*.py, own code) runs with plain python (real torch, the oracle) and under
``python -m torchlike run``; the printed lines must match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``),
and a few key lines exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_script_keyword_spotter.py", 1e-4),
    ("ex_script_tabular_kfold.py", 1e-4),
    ("ex_script_maskrcnn_roi_head.py", 1e-4),
    ("ex_script_packed_bilstm_textclf.py", 1e-4),
    ("ex_script_seq2seq_forecaster.py", 1e-4),
    ("ex_script_sngan_hinge_ttur.py", 1e-4),
    ("ex_script_anomaly_svdd_ae.py", 1e-4),
    ("ex_script_knowledge_distillation.py", 1e-4),
    ("ex_script_image_classifier_swa.py", 1e-4),
]
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_script_keyword_spotter.py": [
        "INFO kws: class counts [41, 21, 20, 14]",
        "batch (8, 1000) [580, 685, 796, 946] torch.int64",
        "specaug zeroed 1299 (8, 16, 32)",
        "load <All keys matched successfully> ['best', 'epoch', 'model', 'optimizer', 'rng', 'scheduler']",
        "  (gru): GRU(32, 32, batch_first=True)",
    ],
    "ex_script_tabular_kfold.py": [
        "precision high True",
        "data (240, 5) (240, 3) torch.int64 [120, 120]",
        "best fold 2 <All keys matched successfully> 5 [0.005]",
        "auroc check 0.6667",
        "params 1135 embedding 62 buffers ['embeddings.0.weight', 'embeddings.1.weight', 'embeddings.2.weight', 'mean']",
    ],
    "ex_script_maskrcnn_roi_head.py": [
        "deterministic True True",
        "iou [[1.0, 0.0, 0.0], [0.1429, 0.1429, 0.0]]",
        "nms [3, 2]",
        "anchors (128, 4) [[-1.0, -1.0, 5.0, 5.0], [-4.0, -4.0, 8.0, 8.0]]",
        "resume <All keys matched successfully> 4 ['_last_lr', '_schedulers']",
    ],
    "ex_script_packed_bilstm_textclf.py": [
        "vocab 40 ['<pad>', '<unk>', 'a', 'and', 'bank', 'chip'] [13, 1, 34]",
        "packed [8, 8, 8, 8] True",
        "restored epoch 4 lr [0.005] state steps [16]",
        "model has 12,675 trainable parameters",
        "  (lstm): LSTM(16, 16, num_layers=2, batch_first=True, dropout=0.1, bidirectional=True)",
    ],
    "ex_script_seq2seq_forecaster.py": [
        "windows 180 72",
        "batch {'x': (32, 24), 'y': (32, 8), 'loc': (32, 1), 'scale': (32, 1), 'series': (32,)} 1.0000",
        "tf schedule [0.75, 0.6825, 0.6063, 0.5246, 0.4416, 0.3617]",
        "  (decoder): GRUCell(5, 32)",
    ],
    "ex_script_sngan_hinge_ttur.py": [
        "sn params ['net.0.bias', 'net.0.weight_orig']",
        "sn buffers ['net.0.weight_u', 'net.0.weight_v']",
        "resumed at 15 4.0 (0.0, 0.9)",
        "params G 4994 D 4417",
    ],
    "ex_script_anomaly_svdd_ae.py": [
        "data (256, 12) (88, 12) 24",
        "nanquantile 2.0 torch.Size([8, 1])",
        "load <All keys matched successfully> 5 Counter({7: 1}) True",
        "amsgrad state ['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq', 'step']",
        "params 480 encoder 240",
    ],
    "ex_script_knowledge_distillation.py": [
        "batches 10 2 [16, 16]",
        "kd check 0.36156 0.36156",
        "hooks left 0 0",
        "teacher 28517 student 1357 compression 21.01x frozen True",
    ],
    "ex_script_image_classifier_swa.py": [
        "device cpu 0 True",
        "split 144 108 36 [96, 144]",
        "weight_norm ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']",
        "swalr {'anneal_epochs': 1, 'last_epoch': 2}",
        "resume 4 <All keys matched successfully> ['module.body.bn.bias', 'module.body.bn.num_batches_tracked']",
        "Total params: 2,904  Trainable params: 2,904",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][10:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_script_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name])
