"""scenebench: trustworthy evaluation and scalable benchmark data for 3D scene understanding."""

from scenebench.protocol import DEFAULT_PROTOCOL, PROTOCOLS

__version__ = "0.2.0"
__all__ = ["DEFAULT_PROTOCOL", "PROTOCOLS", "__version__"]
