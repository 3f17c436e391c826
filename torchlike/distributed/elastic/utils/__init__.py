"""torch.distributed.elastic.utils: the port helpers libraries import from ``.distributed``."""
from .distributed import get_free_port, get_socket_with_port
