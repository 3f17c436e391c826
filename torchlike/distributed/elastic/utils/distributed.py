"""torch.distributed.elastic.utils.distributed's port helpers (torchtnt imports ``get_free_port``)."""
import logging
import socket
from contextlib import closing

logger = logging.getLogger(__name__)


def get_socket_with_port() -> socket.socket:
    """A listening socket bound to a free port on localhost (torch's: close it before handing the port on)."""
    addrs = socket.getaddrinfo(host="localhost", port=None, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM)
    for family, type_, proto, _, _ in addrs:
        s = socket.socket(family, type_, proto)
        try:
            s.bind(("localhost", 0))
            s.listen(0)
            return s
        except OSError as e:
            s.close()
            logger.warning("Socket creation attempt failed.", exc_info=e)
    raise RuntimeError("Failed to create a socket")


def get_free_port() -> int:
    """An unused port on localhost (not reserved: another process may take it after this returns)."""
    sock = get_socket_with_port()
    with closing(sock):
        return sock.getsockname()[1]
