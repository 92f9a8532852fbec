"""scenebench: trustworthy evaluation and scalable benchmark data for 3D scene understanding."""

__version__ = "0.1.0"

PROTOCOLS = ("strict", "official")
DEFAULT_PROTOCOL = "strict"
