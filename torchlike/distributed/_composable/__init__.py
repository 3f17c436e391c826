"""``torch.distributed._composable``: the older home of FSDP2 (``_composable.fsdp``)."""
