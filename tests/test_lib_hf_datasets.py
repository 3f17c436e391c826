"""Hugging Face datasets (an in-memory Dataset, .map returning tensors, the "torch" format for rows, columns and
slices, train_test_split/shuffle, torch DataLoaders with 0 and 2 workers, to_iterable_dataset, from_generator
with torch values, save_to_disk/load_from_disk, a small model trained from the batches, fingerprints of
functions using torch, map with num_proc=2, with_transform) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_hf_datasets_torch_format_loaders_and_training_match_torch():
    _, ours = lib_program_vs_torch("lib_hf_datasets.py", "torch", "datasets", timeout=600, rtol=1e-4)
    assert len(ours) == 41, ours
    assert ours[0] == "torch available True (2, 13, 0) True"  # find_spec and the metadata's version
    by = {line.split(" {")[0].split(" [")[0]: line for line in ours}
    assert "'x': 'Tensor:torch.float32:(4,)'" in by["row"] and "'y': 'Tensor:torch.int64:()'" in by["row"]
    assert by["typed"] == "typed {'a': 'torch.int64', 'b': 'torch.float32', 'c': 'torch.int64', 'd': 'torch.float32'}"
    assert by["workers 0 same True"] and by["iterable workers True"] and by["iterable isinstance True"]
    assert by["generator values"].startswith("generator values [-0.1468, 0.7861, 0.9468] [0, 1, 2, 3, 4, 5]")
    assert by["reloaded 40 torch"].endswith("Tensor:torch.float32:(4,) 3.0013")
    # from_generator hashed its torch-using generator; map fingerprints are deterministic (dill pickles the
    # torch module by name)
    assert ours[-3] == "fingerprints True False True"
    assert ours[-2].startswith("num_proc map 73.6281 Tensor:torch.float32:(40, 4) True")  # dill-pickled fn, 2 procs
