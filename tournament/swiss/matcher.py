"""A maximum-weight matching over players, with weights as Python integers of any size.

The matcher is bbpPairings' blossom algorithm as compiled in ``py4swiss`` (``ComputerDutchOptimality``):
it keeps its matching between calls and re-examines only the vertices whose edges changed, which is what
makes pairing bracket by bracket affordable. Its weights are fixed-width unsigned integers
(``DynamicUint``); this wrapper converts ours, all of one width, and caches the conversions.
"""

from __future__ import annotations

from py4swiss.dynamicuint import DynamicUint
from py4swiss.matching_computer import ComputerDutchOptimality

_CHUNK = 32
_MASK = (1 << _CHUNK) - 1


class Matcher:
    def __init__(self, size: int, bits: int, record: int = 0) -> None:
        """``bits``: every edge weight is below ``2**bits``. As in bbpPairings, the matcher's maximum is
        all ones one bit wider, and the integers carry two bits more for the matcher's own sums."""
        top = DynamicUint(1)
        top.shift_grow(bits + 2)
        self._zero = top & 0
        self._parts = (bits + 3 + _CHUNK - 1) // _CHUNK
        self._max = self._dyn((1 << (bits + 1)) - 1)
        self._cache: dict[int, DynamicUint] = {0: self._zero}
        self._computer = ComputerDutchOptimality(size, self._max)
        for _ in range(size):
            self._computer.add_vertex()
        self.size = size
        self._matching: list[int] = list(range(size))
        self._record = record  # remember the integer weights set between vertices below this
        self._recorded: dict[tuple[int, int], int] = {}

    def _dyn(self, value: int) -> DynamicUint:
        out = DynamicUint(self._zero)
        for part in range(self._parts - 1, -1, -1):
            out <<= _CHUNK
            out |= (value >> (part * _CHUNK)) & _MASK
        return out

    def weight(self, value: int) -> DynamicUint:
        found = self._cache.get(value)
        if found is None:
            found = self._dyn(value)
            if len(self._cache) < 200_000:
                self._cache[value] = found
        return found

    def set(self, u: int, v: int, value: int) -> None:
        self._computer.set_edge_weight(u, v, self.weight(value))
        if u < self._record and v < self._record:
            self._recorded[min(u, v), max(u, v)] = value

    def recorded(self, u: int, v: int) -> int | None:
        """The last weight :meth:`set` between ``u`` and ``v`` (both below ``record``), if any."""
        return self._recorded.get((min(u, v), max(u, v)))

    def set_weight(self, u: int, v: int, weight: DynamicUint) -> None:
        """``set`` for a weight already converted by :meth:`weight`."""
        self._computer.set_edge_weight(u, v, weight)

    def compute(self) -> None:
        self._computer.compute_matching()
        self._matching = self._computer.get_matching()

    def matching(self) -> list[int]:
        return self._matching

    def finalize(self, u: int, v: int) -> None:
        """Fix ``u`` with ``v``: their edge at the maximum, every other edge of theirs removed."""
        zero, computer = self._zero, self._computer
        for k in range(self.size):
            if k != u:
                computer.set_edge_weight(u, k, self._max if k == v else zero)
            if k != v:
                computer.set_edge_weight(v, k, self._max if k == u else zero)
