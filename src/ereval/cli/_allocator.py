"""A command's C allocator set to keep the memory the command frees, for reuse.

A command frees and allocates arrays of megabytes over and over: chunks of keys
hashed or compared, blocks of records, the temporaries of each step (an array of
10^7 cells is 80 MB). By default glibc's ``malloc`` maps each block of more than
32 MB from the kernel on its own, and unmaps it when it is freed; a thread other
than the first allocates from a heap of its own, which maps a large block the same
way; and the free space at the top of the main heap goes back to the kernel. Each
block allocated again is then mapped and zeroed by the kernel again, a page fault
per 4 KB.

:func:`keep_freed_memory` makes every block come from one heap (no block mapped on
its own, one arena for all threads), so a freed block is reused in place, and keeps
up to :data:`TOP_PAD` of free memory at the top of that heap. It does nothing where
the C library is not glibc, or where the user set the allocator (``MALLOC_*`` or
``GLIBC_TUNABLES`` variables). Free space below the top of the heap stays with the
process until the command ends, so the peak may rise by what the command freed
there and the kernel could have given to another library meanwhile (see the
figures in ``docs/metrics.md``).
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["TOP_PAD", "keep_freed_memory"]

# glibc's mallopt() parameters (malloc.h)
_M_TOP_PAD = -2
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8

#: Free memory kept at the top of the heap when it shrinks.
TOP_PAD = 64 << 20


def keep_freed_memory() -> bool:
    """Set glibc's ``malloc`` to keep freed memory for reuse (see the module); whether
    it did (``False`` on another C library, or where the user set the allocator)."""
    if "GLIBC_TUNABLES" in os.environ or any(k.startswith("MALLOC_") for k in os.environ):
        return False  # the user's choice
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        return False
    if not libc.startswith("glibc"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt() returns 1 on success; the arenas first, before another thread allocates
    return all(
        mallopt(p, v) for p, v in ((_M_ARENA_MAX, 1), (_M_MMAP_MAX, 0), (_M_TOP_PAD, TOP_PAD))
    )
