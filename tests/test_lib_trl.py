"""Hugging Face TRL 1.16 (SFT, reward modelling, DPO with a reference model, GRPO with a Python and a model
reward, RLOO) on a tiny config-built GPT-2 and a locally built word-level tokenizer, under the drop-in runner,
compared line by line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_trl_sft_reward_dpo_grpo_rloo_like_torch():
    _, ours = lib_program_vs_torch("lib_trl.py", "trl", "datasets", "tokenizers", timeout=900, rtol=1e-3)
    line = {" ".join(t.split(" ")[:3]): t for t in ours}
    assert ours[0] == "tokenizer 32 [4, 5, 7, 9, 4, 10] ['tokenizer.json', 'tokenizer_config.json']", ours[0]
    assert line["sft params (28544,"] == "sft params (28544, 28544)"
    assert line["sft batch ['attention_mask',"].endswith("(4, 12) 28 20"), line
    assert sum(t.startswith("sft step ") for t in ours) == 3
    assert line["sft files ['config.json',"] == ("sft files ['config.json', 'generation_config.json', "
                                                 "'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']")
    assert line["sft reload -0.86"].endswith(" True"), line["sft reload -0.86"]
    assert line["sft_pc batch (4,"] == "sft_pc batch (4, 7) 20 28"
    assert line["reward params (28576,"] == "reward params (28576, 28576)"
    assert line["reward step 3"].startswith("reward step 3 loss=0.39"), line["reward step 3"]
    assert line["dpo step 1"].startswith("dpo step 1 loss=0.6931 rewards/chosen=0.0000"), line["dpo step 1"]
    assert line["dpo ref unchanged"] == "dpo ref unchanged True"
    assert sum(t.startswith("grpo step ") for t in ours) == 4 and sum(t.startswith("rloo step ") for t in ours) == 2
    assert line["grpo sample the"] == "grpo sample the cat sat ran red moon where no", line["grpo sample the"]
    assert len(ours) == 34, ours
