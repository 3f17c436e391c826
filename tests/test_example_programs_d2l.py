"""Dive into Deep Learning (d2l.ai, PyTorch edition), the book thousands of learners run chapter by chapter,
re-created as stand-alone programs in its style (own code, synthetic data, no downloads, no d2l package) and run
unmodified under the drop-in runner:
- ex_d2l_basics.py: preliminaries, linear and softmax regression from scratch and concise, MLP, dropout from
  scratch, weight decay, initialization, builders' guide;
- ex_d2l_cnn.py: corr2d and pooling from scratch, LeNet, AlexNet, VGG, NiN, GoogLeNet's Inception, batch norm from
  scratch, ResNet, DenseNet;
- ex_d2l_rnn.py: text partitioning, an RNN from scratch with gradient clipping and detach_ of the state,
  RNN/GRU/LSTM/deep/bidirectional, a GRU seq2seq with sequence_mask, MaskedSoftmaxCELoss, greedy prediction, BLEU;
- ex_d2l_attention_opt.py: Nadaraya-Watson, masked_softmax, additive/dot-product/multi-head attention, a Bahdanau
  decoder, positional encoding, Transformer blocks, a BERT MLM+NSP step, word2vec skip-gram with negative
  sampling, optimizers from scratch next to torch.optim, MultiStepLR, a custom cosine schedule, LambdaLR;
- ex_d2l_nlp_gan.py: fine-tuning with a 10x head learning rate, transposed convolution from scratch, embedding
  similarity/analogy, BiRNN and textCNN sentiment on frozen embeddings, decomposable attention, a GAN from
  scratch and DCGAN blocks;
- ex_d2l_v1_framework.py: d2l 1.0's object-oriented Module/DataModule/Trainer (save_hyperparameters through
  inspect, @add_to_class).

Each program in tests/programs/ex_d2l_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must match,
numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import program_matches_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_d2l_basics.py", 1e-4),
    ("ex_d2l_cnn.py", 1e-4),
    ("ex_d2l_rnn.py", 1e-4),
    ("ex_d2l_attention_opt.py", 1e-4),
    ("ex_d2l_nlp_gan.py", 1e-4),
    # the clipped concise model's validation loss prints 7 significant digits; the last one is float32 rounding
    ("ex_d2l_v1_framework.py", 1e-5),
]
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_d2l_basics.py": [
        "item tensor([3.5000]) 3.5 3.5 3",
        "dropout .5 (2, 8) torch.float32 [0.0, 1.0]",
        "lazy before UninitializedParameter",
        "named [('0.weight', (8, 4)), ('0.bias', (8,)), ('2.weight', (1, 8)), ('2.bias', (1,))]",
        "wd concise 3 9.1683 80.098 [3, 0]",
        "  (3): Dropout(p=0.2, inplace=False)",
        "relu grad [0.0, 0.0, 1.0, 1.0] 80.0 -0.10000000894069672 4.440892098500626e-16",
    ],
    "ex_d2l_cnn.py": [
        "corr2d [[19.0, 25.0], [37.0, 43.0]]",
        "pad (8, 8) (8, 8) (4, 4) (2, 2)",
        "maxpool [[[[10.0]]]] [[[[5.0, 7.0], [13.0, 15.0]]]]",
        "AvgPool2d output shape: \t torch.Size([1, 16, 5, 5])",
        "bn state keys ['gamma', 'beta']",
        "densenet params 2322 49",
    ],
    "ex_d2l_rnn.py": [
        "one_hot torch.Size([2, 19]) torch.int64",
        "scratch out (10, 19) 1 (2, 32)",
        "  (rnn): LSTM(19, 32, num_layers=2, bidirectional=True)",
        "lstm params [('weight_ih_l0', (128, 19)), ('weight_hh_l0', (128, 32)), ('bias_ih_l0', (128,)), "
        "('bias_hh_l0', (128,))] 39891",
        "sequence_mask [[1, 0, 0], [4, 5, 0]]",
        "masked ce [2.303, 1.151, 0.0]",
        "go . => oge ., bleu 1.000",
    ],
    "ex_d2l_attention_opt.py": [
        "masked_softmax 2d [[3, 1], [2, 0]]",
        "additive [[[2.0, 3.0, 4.0, 5.0]], [[10.0, 11.0, 12.000000953674316, 13.0]]]",
        "mha (2, 4, 16) 12.28 (8, 4, 6)",
        "enc attention 2 (16, 9, 9)",
        "Parameter embedding_weight (torch.Size([20, 4]), dtype=torch.float32)",
        "similar 3 int32 4 [0.6, 0.462, 0.363]",
        "multistep [0.05, 0.05, 0.025, 0.025, 0.0125, 0.0125] [0.0125] 0.18 MultiStepLR",
        "lambda lr [0.008267] 3 ['_get_lr_called_within_step', '_is_initial', '_last_lr', '_step_count', "
        "'base_lrs', 'last_epoch', 'lr_lambdas']",
    ],
    "ex_d2l_nlp_gan.py": [
        "finetune True 0.5547 0.75 [0.005, 0.05] 3",
        "stride [[[[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 2.0, 3.0], [0.0, 2.0, 0.0, 3.0], [4.0, 6.0, 6.0, 9.0]]]]",
        "analogy daughter queen",
        "frozen False 10882",
        "corr1d [2.0, 5.0, 8.0, 11.0, 14.0, 17.0] [2.0, 8.0, 14.0, 20.0, 26.0, 32.0] torch.float32",
        "    (1): Conv1d(32, 8, kernel_size=(3,), stride=(1,))",
        "leaky [-0.0, -0.34, -0.68, -1.02, -1.36, -1.7] 30",
        "betas (0.5, 0.999) tuple",
    ],
    "ex_d2l_v1_framework.py": [
        "['lr', 'num_inputs', 'sigma'] 2",
        "['b', 'batch_size', 'noise', 'num_train', 'num_val', 'w'] 4 32",
        "dict_keys(['num_inputs', 'num_hiddens', 'sigma'])",
        "100 torch.Size([2, 32]) torch.Size([2, 32]) torch.Size([2, 100, 32])",
        "hparams ['lr', 'num_outputs'] ['gradient_clip_val', 'max_epochs', 'num_gpus'] 10 4",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_d2l_program_matches_torch(name, rtol):
    program_matches_torch(name, rtol, KEY_LINES[name])
