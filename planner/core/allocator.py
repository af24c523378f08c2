"""PyTorch's CUDA caching allocator, as documented, replayed over a simulated step.

What ``c10/cuda/CUDACachingAllocator.cpp`` does (default settings: no expandable segments, no
``max_split_size_mb``, no power-of-two rounding), with the sizes taken from ``Assumptions``:

* every request is rounded up to a multiple of 512 bytes (``kMinBlockSize``; at least 512);
* requests up to 1 MiB (``kSmallSize``) are served from the small pool, larger ones from the
  large pool; pools never lend to each other;
* a request is served from the smallest cached free block of its pool that is large enough
  (best fit; ties by address);
* when none is, a new segment is reserved with ``cudaMalloc``: 2 MiB (``kSmallBuffer``) for a
  small request, 20 MiB (``kLargeBuffer``) for a request under 10 MiB (``kMinLargeAlloc``),
  otherwise the request rounded up to 2 MiB (``kRoundLarge``);
* a block larger than the request is split when what remains is at least 512 bytes (small
  pool) or more than 1 MiB (large pool); otherwise the whole block is handed out (and counted
  as allocated);
* a freed block is merged with free neighbours of its segment; segments are kept (reserved)
  until ``empty_cache()`` or an out-of-memory retry, which this simulation never needs.

``allocated`` is the sum of the blocks handed out (``torch.cuda.memory_allocated``);
``reserved`` the sum of segments (``torch.cuda.memory_reserved``). Python ints throughout.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import NamedTuple

import numpy as np


class AllocatorConfig(NamedTuple):
    block: int = 512  # kMinBlockSize
    small_size: int = 1 << 20  # kSmallSize
    small_buffer: int = 2 << 20  # kSmallBuffer
    large_buffer: int = 20 << 20  # kLargeBuffer
    min_large_alloc: int = 10 << 20  # kMinLargeAlloc
    round_large: int = 2 << 20  # kRoundLarge

    @classmethod
    def from_assumptions(cls, a) -> "AllocatorConfig":
        return cls(a.allocator_block_bytes, a.allocator_large_threshold_bytes,
                   a.allocator_segment_bytes, a.allocator_large_segment_bytes,
                   a.allocator_min_large_alloc_bytes, a.allocator_round_large_bytes)


class AllocatorStats(NamedTuple):
    peak_allocated: int
    peak_reserved: int
    segments: int


class CachingAllocator:
    """A replay of the allocator's bookkeeping (addresses are made up, sizes are real)."""

    def __init__(self, config: AllocatorConfig | None = None):
        self.c = config or AllocatorConfig()
        self.free_small: list[tuple[int, int]] = []  # (size, address), sorted
        self.free_large: list[tuple[int, int]] = []
        # address → [size, segment start, segment end, free?, small pool?]
        self.blocks: dict[int, list] = {}
        self.ends: dict[int, int] = {}  # block end → block start
        self.next_address = 0
        self.allocated = self.reserved = 0
        self.peak_allocated = self.peak_reserved = 0
        self.segments = 0

    def round_size(self, size: int) -> int:
        b = self.c.block
        return b if size < b else -(-size // b) * b

    def malloc(self, size: int) -> int:
        """Allocate ``size`` bytes; returns the block's address."""
        c = self.c
        size = self.round_size(size)
        small = size <= c.small_size
        pool = self.free_small if small else self.free_large
        i = bisect_left(pool, (size, -1))
        if i < len(pool):
            bsize, addr = pool.pop(i)
        else:
            if small:
                seg = c.small_buffer
            elif size < c.min_large_alloc:
                seg = c.large_buffer
            else:
                seg = -(-size // c.round_large) * c.round_large
            seg = max(seg, size)
            addr = self.next_address
            self.next_address += seg + c.small_buffer  # a gap: segments never touch
            self.blocks[addr] = [seg, addr, addr + seg, True, small]
            self.ends[addr + seg] = addr
            self.reserved += seg
            self.segments += 1
            self.peak_reserved = max(self.peak_reserved, self.reserved)
            bsize = seg
        block = self.blocks[addr]
        remaining = bsize - size
        split = remaining >= c.block if small else remaining > c.small_size
        if split:
            rest = addr + size
            self.blocks[rest] = [remaining, block[1], block[2], True, small]
            self.ends[rest + remaining] = rest
            insort(pool, (remaining, rest))
            block[0] = size
            self.ends[addr + size] = addr
        block[3] = False
        self.allocated += block[0]
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return addr

    def free(self, addr: int) -> None:
        block = self.blocks[addr]
        block[3] = True
        self.allocated -= block[0]
        small = block[4]
        pool = self.free_small if small else self.free_large
        # Merge with the next block of the same segment.
        nxt = addr + block[0]
        if nxt < block[2]:
            other = self.blocks.get(nxt)
            if other is not None and other[3]:
                pool.pop(bisect_left(pool, (other[0], nxt)))
                del self.blocks[nxt]
                del self.ends[nxt + other[0]]
                del self.ends[nxt]
                block[0] += other[0]
                self.ends[addr + block[0]] = addr
        # And with the previous one.
        if addr > block[1]:
            prev = self.ends.get(addr)
            if prev is not None:
                other = self.blocks[prev]
                if other[3]:
                    pool.pop(bisect_left(pool, (other[0], prev)))
                    del self.ends[addr]
                    del self.blocks[addr]
                    other[0] += block[0]
                    self.ends[prev + other[0]] = prev
                    addr, block = prev, other
        insort(pool, (block[0], addr))

    def stats(self) -> AllocatorStats:
        return AllocatorStats(self.peak_allocated, self.peak_reserved, self.segments)


def simulate_step(events, batch: int, assumptions, ws_points=(), ws_bytes=(), held=(),
                  steps: int = 2) -> AllocatorStats:
    """Replay ``steps`` steps of a ``StepEvents`` at ``batch`` through the allocator.

    The tensors alive from the first point to the last (weights, optimizer state) are allocated
    once, first, in layer order, then ``held`` (the cuBLAS workspace); then each step
    allocates, at each point, what it makes there, takes and gives back that point's
    convolution workspace, and frees what dies there. The peaks are over all steps (the second
    one starts with the first one's cached segments, as in a training loop).
    """
    alloc = events.alloc.tolist()
    free = events.free.tolist()
    sizes = [int(p) * batch + int(f) for p, f in zip(events.per_sample.tolist(),
                                                     events.fixed.tolist())]
    last = events.n_points - 1
    n_points = events.n_points
    persistent = [t for t in range(len(sizes)) if alloc[t] == 0 and free[t] == last and sizes[t]]
    persistent_set = set(persistent)
    starts: list[list[int]] = [[] for _ in range(n_points)]
    ends: list[list[int]] = [[] for _ in range(n_points)]
    for t, size in enumerate(sizes):
        if size and t not in persistent_set:
            starts[alloc[t]].append(t)
            ends[free[t]].append(t)
    ws_at = dict(zip(np.asarray(ws_points).tolist(), np.asarray(ws_bytes).tolist()))
    cuda = CachingAllocator(AllocatorConfig.from_assumptions(assumptions))
    for t in persistent:
        cuda.malloc(sizes[t])
    for size in held:
        if size:
            cuda.malloc(int(size))
    for _ in range(steps):
        addr: dict[int, int] = {}
        for point in range(n_points):
            for t in starts[point]:
                addr[t] = cuda.malloc(sizes[t])
            ws = ws_at.get(point)
            if ws:
                cuda.free(cuda.malloc(int(ws)))
            for t in ends[point]:
                cuda.free(addr.pop(t))
    return cuda.stats()
