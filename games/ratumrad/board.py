"""The board of a Rat um Rad game: places, road templates and destination cards.

Boards are plain data loaded from JSON (see ``data/basel.json``). The engine only
needs the fields defined here; tests may build small boards with :func:`make_board`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

CARD_COLORS: tuple[str, ...] = (
    "red",
    "blue",
    "orange",
    "green",
    "yellow",
    "pink",
    "black",
    "white",
)
JOKER = "joker"
GREY = "grey"
# R1.7: points for a road of length n.
ROAD_POINTS: dict[int, int] = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15}

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True, slots=True)
class Location:
    id: str
    name: str
    x: float
    y: float
    lat: float = 0.0
    lon: float = 0.0
    bank: str = ""  # "gross" or "klein" (side of the Rhine); "" when unknown


@dataclass(frozen=True, slots=True)
class Road:
    id: int
    a: str
    b: str
    length: int
    color: str  # one of CARD_COLORS or GREY
    double_of: int | None = None

    @property
    def points(self) -> int:
        return ROAD_POINTS[self.length]


@dataclass(frozen=True, slots=True)
class Destination:
    id: int
    a: str
    b: str
    points: int
    long: bool = False


@dataclass(frozen=True)
class Board:
    name: str
    locations: tuple[Location, ...]
    roads: tuple[Road, ...]  # roads[i].id == i
    destinations: tuple[Destination, ...]  # destinations[i].id == i
    rhine: tuple[tuple[float, float], ...] = ()  # polyline in map x/y, for drawing
    location_index: dict[str, int] = field(init=False, repr=False, compare=False)
    # (id, length, colour index in CARD_COLORS or -1 for grey, twin id or -1) per road,
    # for the engine's hot loops.
    road_table: tuple[tuple[int, int, int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {loc.id: i for i, loc in enumerate(self.locations)}
        if len(index) != len(self.locations):
            raise ValueError("duplicate location id")
        for i, road in enumerate(self.roads):
            if road.id != i:
                raise ValueError(f"road ids must be 0..n-1 in order, got {road.id} at {i}")
            if road.a not in index or road.b not in index or road.a == road.b:
                raise ValueError(f"road {road.id} joins unknown or equal places")
            if road.length not in ROAD_POINTS:
                raise ValueError(f"road {road.id} has length {road.length}, not 1..6")
            if road.color not in CARD_COLORS and road.color != GREY:
                raise ValueError(f"road {road.id} has unknown colour {road.color!r}")
            if road.double_of is not None:
                twin_id = road.double_of
                twin = self.roads[twin_id] if 0 <= twin_id < len(self.roads) else None
                if (
                    twin is None
                    or twin_id == road.id
                    or twin.double_of != road.id
                    or {twin.a, twin.b} != {road.a, road.b}
                    or twin.length != road.length
                ):
                    raise ValueError(f"road {road.id} and {twin_id} are not a proper double")
        for loc in self.locations:
            if loc.bank not in ("gross", "klein", ""):
                raise ValueError(f"place {loc.id} has unknown bank {loc.bank!r}")
        for i, dest in enumerate(self.destinations):
            if dest.id != i:
                raise ValueError(f"destination ids must be 0..n-1 in order, got {dest.id} at {i}")
            if dest.a not in index or dest.b not in index or dest.a == dest.b:
                raise ValueError(f"destination {dest.id} names unknown or equal places")
            if dest.points <= 0:
                raise ValueError(f"destination {dest.id} must be worth some points")
        object.__setattr__(self, "location_index", index)
        table = tuple(
            (
                r.id,
                r.length,
                -1 if r.color == GREY else CARD_COLORS.index(r.color),
                -1 if r.double_of is None else r.double_of,
            )
            for r in self.roads
        )
        object.__setattr__(self, "road_table", table)
        by_length = tuple(
            tuple(row for row in table if row[1] == n) for n in range(max(ROAD_POINTS) + 1)
        )
        object.__setattr__(self, "roads_by_length", by_length)

    @property
    def short_destinations(self) -> tuple[Destination, ...]:
        return tuple(d for d in self.destinations if not d.long)

    @property
    def long_destinations(self) -> tuple[Destination, ...]:
        return tuple(d for d in self.destinations if d.long)

    def to_public_dict(self) -> dict:
        """The board in the protocol's ``GET /api/maps/{name}/`` shape."""
        return {
            "name": self.name,
            "locations": [
                {"id": loc.id, "name": loc.name, "x": loc.x, "y": loc.y, "bank": loc.bank}
                for loc in self.locations
            ],
            "roads": [
                {
                    "id": r.id,
                    "a": r.a,
                    "b": r.b,
                    "length": r.length,
                    "color": r.color,
                    "double_of": r.double_of,
                    "points": r.points,
                }
                for r in self.roads
            ],
            "destinations": [
                {"id": d.id, "a": d.a, "b": d.b, "points": d.points, "long": d.long}
                for d in self.destinations
            ],
            "rhine": [list(p) for p in self.rhine],
        }


def make_board(
    name: str,
    locations: list[dict],
    roads: list[dict],
    destinations: list[dict],
    rhine: list[list[float]] | None = None,
) -> Board:
    """Build a board from plain dicts (the JSON shape); ids of roads and cards are their index."""
    return Board(
        name=name,
        locations=tuple(Location(**loc) for loc in locations),
        roads=tuple(Road(**{"double_of": None, **r}) for r in roads),
        destinations=tuple(Destination(**{"long": False, **d}) for d in destinations),
        rhine=tuple((float(x), float(y)) for x, y in (rhine or [])),
    )


def load_board(path: Path) -> Board:
    data = json.loads(path.read_text(encoding="utf-8"))
    return make_board(
        data["name"], data["locations"], data["roads"], data["destinations"], data.get("rhine")
    )


@cache
def basel() -> Board:
    """The Basel map shipped with the game."""
    return load_board(DATA_DIR / "basel.json")
