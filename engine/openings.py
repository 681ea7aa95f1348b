"""The 26 renju openings, their 52-opening extension and the Yamaguchi table.

Data: ``engine/data/openings.json`` (names, canonical stones, seed 000's 打点
table). An opening is B1 on h8, W2 on a neighbour of h8 and B3 in the central
5×5; under the 8 symmetries of the board about h8 every such placement is one
of the 26 (13 direct 直指, W2 orthogonal; 13 indirect 斜指, W2 diagonal).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from engine.errors import EngineError
from engine.notation import Point

CENTER = Point(7, 7)
DATA_FILE = Path(__file__).parent / "data" / "openings.json"

# The 8 linear maps of the square grid, on offsets (dx, dy) from h8.
LINEAR_MAPS: tuple[tuple[int, int, int, int], ...] = (
    (1, 0, 0, 1),  # identity
    (0, -1, 1, 0),  # rotate 90° counter-clockwise
    (-1, 0, 0, -1),  # rotate 180°
    (0, 1, -1, 0),  # rotate 90° clockwise
    (-1, 0, 0, 1),  # mirror in the column through h8
    (1, 0, 0, -1),  # mirror in the row through h8
    (0, 1, 1, 0),  # mirror in the h8-i9 diagonal
    (0, -1, -1, 0),  # mirror in the h8-g9 diagonal
)
SYMMETRY_NAMES = (
    "identity",
    "rotate 90 ccw",
    "rotate 180",
    "rotate 90 cw",
    "mirror column h",
    "mirror row 8",
    "mirror diagonal",
    "mirror anti-diagonal",
)


def apply_map(index: int, dx: int, dy: int) -> tuple[int, int]:
    a, b, c, d = LINEAR_MAPS[index]
    return a * dx + b * dy, c * dx + d * dy


def offset(point: Point) -> tuple[int, int]:
    return point.col - CENTER.col, point.row - CENTER.row


def from_offset(dx: int, dy: int) -> Point:
    return Point(CENTER.col + dx, CENTER.row + dy)


class Verdict(StrEnum):
    """The seed 000 打点 table's judgement for an opening and N fifth-move offers."""

    BLACK_WINS = "black_wins"
    BLACK_BETTER = "black_better"
    BALANCED = "balanced"
    WHITE_BETTER = "white_better"
    WHITE_WINS = "white_wins"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Opening:
    """One of the 26 openings (numbers 1–26) or of the 26 extra ones (27–52)."""

    number: int
    code: str
    kind: str  # "direct" or "indirect"
    kind_zh: str
    name_zh: str | None
    name_zh_variants: tuple[str, ...]
    kanji: str | None
    romaji: str | None
    romaji_variants: tuple[str, ...]
    stones: tuple[Point, Point, Point]
    offer_ranges: tuple[tuple[int | None, int | None, str], ...] = ()

    @property
    def is_standard(self) -> bool:
        """True for the 26 openings (B3 inside the 5×5)."""
        return self.number <= 26

    def summary(self) -> str:
        """``3 3D 疏星 Sosei`` — number, code and names."""
        parts = [str(self.number), self.code, self.name_zh or "", self.romaji or ""]
        return " ".join(p for p in parts if p)

    def yamaguchi_verdict(self, n: int) -> Verdict:
        """The table's verdict when Black declares ``n`` fifth-move offers."""
        gap = any(low is None for low, _high, _v in self.offer_ranges)
        for low, high, verdict in self.offer_ranges:
            if low is None or n < low or (high is not None and n > high):
                continue
            # The seed's 花月 row has an open-ended clause followed by one whose
            # bound is missing (rules.md D19): beyond the last sure bound we do not know.
            if high is None and gap:
                return Verdict.UNKNOWN
            return Verdict(verdict)
        return Verdict.UNKNOWN


@dataclass(frozen=True)
class Identification:
    """An opening and the symmetry (index into LINEAR_MAPS) taking the stones to it."""

    opening: Opening
    symmetry: int

    @property
    def symmetry_name(self) -> str:
        return SYMMETRY_NAMES[self.symmetry]


@cache
def load_openings() -> tuple[Opening, ...]:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    openings = []
    for item in data["openings"]:
        stones = tuple(Point.parse(item["stones"][k]["point"]) for k in ("1", "2", "3"))
        ranges = tuple((r["min"], r["max"], r["verdict"]) for r in item["yamaguchi_offerings_seed000"]["ranges"])
        openings.append(
            Opening(
                number=item["index"],
                code=item["code"],
                kind=item["kind"],
                kind_zh=item["kind_zh"],
                name_zh=item["name_zh"],
                name_zh_variants=tuple(item["name_zh_variants"]),
                kanji=item["name_ja"]["kanji"],
                romaji=item["name_ja"]["romaji"],
                romaji_variants=tuple(item["name_ja"]["romaji_variants"]),
                stones=(stones[0], stones[1], stones[2]),
                offer_ranges=ranges,
            )
        )
    return tuple(openings) + _ring_openings()


def _canonical_half(kind: str, dx: int, dy: int) -> bool:
    # Direct (W2 on h9): the column-h mirror fixes h8 and W2, keep dx >= 0.
    # Indirect (W2 on i9): the diagonal mirror fixes them, keep dx >= dy.
    return dx >= 0 if kind == "direct" else dx >= dy


def _ring_openings() -> tuple[Opening, ...]:
    """The 26 extra classes of the 52-opening rule: B3 on the ring of the 7×7."""
    extra: list[Opening] = []
    for kind, w2, kind_zh in (("direct", (0, 1), "直指"), ("indirect", (1, 1), "斜指")):
        ring = sorted(
            ((dx, dy) for dx in range(-3, 4) for dy in range(-3, 4) if max(abs(dx), abs(dy)) == 3),
            key=lambda o: (-o[1], o[0]),
        )
        for k, (dx, dy) in enumerate(o for o in ring if _canonical_half(kind, *o)):
            number = 27 + len(extra)
            extra.append(
                Opening(
                    number=number,
                    code=f"{14 + k}{kind[0].upper()}",
                    kind=kind,
                    kind_zh=kind_zh,
                    name_zh=None,
                    name_zh_variants=(),
                    kanji=None,
                    romaji=None,
                    romaji_variants=(),
                    stones=(CENTER, from_offset(*w2), from_offset(dx, dy)),
                )
            )
    return tuple(extra)


def openings(include_52: bool = False) -> tuple[Opening, ...]:
    """The 26 openings, or all 52 with the Yamaguchi 52-opening extension."""
    every = load_openings()
    return every if include_52 else every[:26]


def opening_by_code(code: str) -> Opening:
    for opening in load_openings():
        if opening.code.lower() == code.lower() or str(opening.number) == code:
            return opening
    raise EngineError(f"no opening {code!r}", "unknown_opening", name=code)


def find_opening(name: str) -> Opening:
    """One of the 26 openings by number (``3``), code (``3D``) or name (疏星, 斜月, Sosei), as organizers write them.

    >>> find_opening("长星").code, find_opening("26").romaji, find_opening("3d").name_zh
    ('1I', 'Suisei', '疏星')
    """
    key = str(name).strip().casefold()
    for opening in openings():
        names = (
            str(opening.number),
            opening.code,
            opening.name_zh,
            *opening.name_zh_variants,
            opening.kanji,
            opening.romaji,
            *opening.romaji_variants,
        )
        if key and key in {n.split(" (")[0].casefold() for n in names if n}:  # variants may carry a note
            return opening
    raise EngineError(
        f"no opening {name!r}: give a number 1-26, a code like 3D or a name like 疏星", "unknown_opening", name=name
    )


def assigned_points(name: str, placed: Sequence[Point]) -> set[Point]:
    """Where the next stone of opening ``name`` may go after ``placed``, in any orientation about h8.

    >>> sorted(str(p) for p in assigned_points("1D", [CENTER]))
    ['g8', 'h7', 'h9', 'i8']
    >>> sorted(str(p) for p in assigned_points("1D", [CENTER, Point.parse("g8")]))
    ['f8']
    """
    opening = find_opening(name)
    if len(placed) >= 3:
        return set()
    fits = [
        index
        for index in range(len(LINEAR_MAPS))
        if all(from_offset(*apply_map(index, *offset(s))) == p for s, p in zip(opening.stones, placed, strict=False))
    ]
    return {from_offset(*apply_map(index, *offset(opening.stones[len(placed)]))) for index in fits}


def identify(stones: Sequence[Point], include_52: bool = False) -> Identification | None:
    """Name the opening of B1, W2, B3 (in play order) in any orientation.

    Returns None when the stones are not one of the 26 (or 52) openings.

    >>> found = identify([Point.parse(p) for p in ("h8", "h9", "j10")])
    >>> found.opening.summary(), found.symmetry_name
    ('3 3D 疏星 Sosei', 'identity')
    >>> identify([Point.parse(p) for p in ("h8", "g8", "f10")]).opening.code
    '3D'
    """
    if len(stones) != 3 or stones[0] != CENTER:
        return None
    canonical = {(o.stones[1], o.stones[2]): o for o in openings(include_52)}
    w2, b3 = offset(stones[1]), offset(stones[2])
    for index in range(len(LINEAR_MAPS)):
        key = (from_offset(*apply_map(index, *w2)), from_offset(*apply_map(index, *b3)))
        if key in canonical:
            return Identification(canonical[key], index)
    return None


OPENINGS = openings()
