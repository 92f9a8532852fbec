"""The version, in a module of its own: every layer may read it without importing the package root (which holds the API)."""

__version__ = "0.2.0"
