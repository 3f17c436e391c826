"""webdataset 1.0.2 under the drop-in runner, compared line by line with real torch: ShardWriter writing .pth
(torch.save), .npy, .cls, .json and PNG samples; WebDataset decoding them (torch.load, "torchrgb" images),
seeded shuffling and batching through torch's DataLoader (in-process and with two worker processes splitting the
shards), the explicit DataPipeline, WebLoader rebatching, and a model trained on the stream."""
from conftest import lib_program_vs_torch


def test_webdataset_like_torch():
    _, ours = lib_program_vs_torch("lib_webdataset.py", "webdataset", "PIL", timeout=600, rtol=1e-4)
    assert len(ours) == 13, ours
    assert ours[1].startswith("sample Tensor torch.float32 "), ours[1]
    assert ours[2].startswith("image Tensor (3, 4, 4) torch.float32 "), ours[2]
    assert ours[3] == "count 48", ours[3]
    assert ours[9] == "workers 48 True ['s0000', 's0001', 's0002']", ours[9]
