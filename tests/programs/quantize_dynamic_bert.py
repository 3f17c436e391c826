"""PyTorch's dynamic-quantization BERT tutorial in miniature: a small randomly initialised BertModel, its Linear
layers quantized with quantize_dynamic, the model printed, outputs compared with the float model's, and the
saved state_dict sizes (run under torch and under torchlike's runner by tests/test_quantized.py)."""
import io
import warnings

import torch
from transformers import BertConfig, BertModel

warnings.filterwarnings("ignore")
torch.manual_seed(0)
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=16)
model = BertModel(config).eval()
quantized = torch.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
print(quantized.encoder.layer[0].attention)
ids = torch.randint(0, 100, (2, 8))
with torch.no_grad():
    ref = model(ids).last_hidden_state
    out = quantized(ids).last_hidden_state
print("output", out.shape, out[0, :2, :4])
print("close to float model", torch.allclose(out, ref, atol=0.1))


def size(m):
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    return len(buf.getvalue())


print("smaller", size(quantized) < size(model) * 0.6)
print("weight", quantized.pooler.dense.weight().int_repr()[0, :6], quantized.pooler.dense.weight().q_scale())
