"""timm 1.0.29: ``timm.create_model`` with ``pretrained=False`` and small configurations of several architecture
families (ResNet, ResNet-D, ViT, ConvNeXt, Swin), each from the same seed:
parameter count, eval forward, one forward/backward in train mode (loss, gradient norm), ``default_cfg`` fields,
``reset_classifier`` and ``set_grad_checkpointing`` (same loss and gradients).
Prints values rounded, to compare between real torch and ``python -m torchlike run``.

The per-model check and the torchvision schemas timm's import needs on a CPU-only torch are in
tests/programs/_timm_common.py."""
from _timm_common import check_models

MODELS = [
    ("resnet18", 32, dict(layers=(1, 1, 1, 1))),
    ("resnet18d", 32, dict(layers=(1, 1, 1, 1))),
    ("vit_tiny_patch16_224", 32, dict(img_size=32, patch_size=8, depth=2)),
    ("convnext_atto", 32, dict(depths=(1, 1, 1, 1))),
    ("swin_tiny_patch4_window7_224", 32, dict(img_size=32, window_size=4, embed_dim=24, depths=(1, 1),
                                              num_heads=(1, 2))),
]

check_models(MODELS, checkpointing=("resnet18d", "vit_tiny_patch16_224", "convnext_atto"))
