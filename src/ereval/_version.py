"""The version of ereval, in a module of its own so that any module can read it without
importing the package (which lists every public name)."""

__version__ = "0.1.0"
