"""torch.utils.serialization.config: ``torch.save``/``torch.load`` settings with torch 2.13's defaults, read by
``torchlike.serialization`` (the getters/setters there: default load byte order, mmap flags, CRC-32).

>>> import torchlike.utils.serialization.config as config
>>> config.load.mmap, config.save.storage_alignment
(False, 64)
>>> with config.patch({"load.mmap": True}):
...     config.load.mmap
True
"""
import sys

from ..._config_module import SettingsModule, SubConfig

load = SubConfig(mmap=False, endianness=None, mmap_flags=None if sys.platform == "win32" else 2,
                 calculate_storage_offsets=False)
save = SubConfig(compute_crc32=True, use_pinned_memory_for_d2h=False, storage_alignment=64)

sys.modules[__name__].__class__ = SettingsModule
