"""torch.distributed.launcher.api: the ``LaunchConfig`` dataclass with torch's fields and defaults.

>>> c = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2)
>>> c.rdzv_configs, c.max_restarts, c.shutdown_timeout
({'timeout': 900}, 3, 30)
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..._missing import module_getattr

__getattr__ = module_getattr("torch.distributed.launcher.api")


@dataclass
class LaunchConfig:
    """The rendezvous and worker configuration of an elastic launch (torch's fields; ``logs_specs`` and
    ``numa_options`` stay None: torchlike has no elastic agent to read them)."""

    min_nodes: int
    max_nodes: int
    nproc_per_node: int
    logs_specs: Any = None
    run_id: str = ""
    role: str = "default_role"
    rdzv_endpoint: str = ""
    rdzv_backend: str = "etcd"
    rdzv_configs: dict[str, Any] = field(default_factory=dict)
    rdzv_timeout: int = -1
    max_restarts: int = 3
    monitor_interval: float = 0.1
    start_method: str = "spawn"
    log_line_prefix_template: str | None = None
    metrics_cfg: dict[str, str] = field(default_factory=dict)
    local_addr: str | None = None
    event_log_handler: str = "null"
    numa_options: Any = None
    signals_to_handle: str = "SIGTERM,SIGINT,SIGHUP,SIGQUIT"
    duplicate_stdout_filters: list[str] | None = None
    duplicate_stderr_filters: list[str] | None = None
    virtual_local_rank: bool = False
    shutdown_timeout: int | None = None

    def __post_init__(self):
        if self.rdzv_timeout != -1:
            self.rdzv_configs["timeout"] = self.rdzv_timeout
        elif "timeout" not in self.rdzv_configs:
            self.rdzv_configs["timeout"] = 900
        if self.shutdown_timeout is None:
            self.shutdown_timeout = int(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", "30"))
        elif self.shutdown_timeout < 0:
            raise ValueError(f"shutdown_timeout must be non-negative, got {self.shutdown_timeout}")
