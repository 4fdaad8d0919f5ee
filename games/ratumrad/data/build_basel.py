"""Generate the Basel map of Rat um Rad (``basel.json``) from its tables.

The tables (places, the Rhine, bridges, roads, destination cards) are in ``basel_tables``; this
module is the builder: projection, road lengths, destination points, output and rule report.
Together they are the source of truth for the map; ``basel.json`` is their output.

    python -m games.ratumrad.data.build_basel           # write basel.json
    python -m games.ratumrad.data.build_basel --check   # only report rule violations

Rules the tables follow (the tests in ``tests/test_map_basel.py`` check each of them):

* Places carry real WGS84 coordinates and the bank of the Rhine they lie on: ``gross`` for
  the south/left bank (Grossbasel, Birsfelden, Allschwil, Binningen, Bruderholz) and
  ``klein`` for the north/right bank (Kleinbasel, Riehen, Kleinhüningen).
* Map coordinates come from an equirectangular projection around a fixed origin (see
  ``project``); ``y`` grows downwards as in SVG, so north is up.
* A road joins two neighbouring places. Its length is one wheel per ``METRES_PER_WHEEL``
  metres of straight-line distance, rounded half up and clamped to 1..6 (``road_length``).
* Roads do not cross each other and keep clear of third places, so the map stays planar.
* Roads that cross the Rhine are grey and cross where a real crossing is (``BRIDGES``).
* Each card colour covers about the same number of wheels; the two templates of a double
  road have different colours (or are both grey).
* A destination card is worth the length in wheels of the shortest path between its two
  places over all road templates, like the published Ticket to Ride maps.
"""

from __future__ import annotations

import heapq
import json
import math
import sys
from itertools import combinations, pairwise
from pathlib import Path

from games.ratumrad.board import CARD_COLORS, GREY, make_board

from .basel_tables import (
    BRIDGE_TOLERANCE_M,
    BRIDGES,
    CLEARANCE_UNITS,
    COLOUR_TOLERANCE,
    EARTH_RADIUS_M,
    GROSS,
    KLEIN,
    LONG_DESTINATIONS,
    MAP_NAME,
    MAP_UNITS_PER_M,
    MAX_ROAD_LENGTH,
    METRES_PER_WHEEL,
    MIN_ROAD_LENGTH,
    MIN_WHEELS,
    NORTH_EDGE_M,
    ORIGIN_LAT,
    ORIGIN_LON,
    PLACES,
    RHINE,
    ROADS,
    SHORT_DESTINATIONS,
    WEST_EDGE_M,
)

OUTPUT = Path(__file__).resolve().parent / "basel.json"


# --- Computation ------------------------------------------------------------------------
def metres_from_origin(lat: float, lon: float) -> tuple[float, float]:
    """Equirectangular metres (east, north) of a WGS84 point from the origin."""
    metres_per_degree = math.pi / 180.0 * EARTH_RADIUS_M
    east = (lon - ORIGIN_LON) * metres_per_degree * math.cos(math.radians(ORIGIN_LAT))
    north = (lat - ORIGIN_LAT) * metres_per_degree
    return east, north


def project(lat: float, lon: float) -> tuple[float, float]:
    """Map coordinates (x to the east, y to the south) of a WGS84 point, rounded to 0.1."""
    east, north = metres_from_origin(lat, lon)
    x = (east - WEST_EDGE_M) * MAP_UNITS_PER_M
    y = (NORTH_EDGE_M - north) * MAP_UNITS_PER_M
    return round(x, 1), round(y, 1)


def distance_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Straight-line distance in metres between two (lat, lon) points."""
    (ea, na), (eb, nb) = metres_from_origin(*a), metres_from_origin(*b)
    return math.hypot(ea - eb, na - nb)


def road_length(metres: float) -> int:
    """Wheels for a road of this real length: one per METRES_PER_WHEEL, half up, 1..6."""
    wheels = math.floor(metres / METRES_PER_WHEEL + 0.5)
    return max(MIN_ROAD_LENGTH, min(MAX_ROAD_LENGTH, wheels))


def shortest_paths(roads: list[dict], source: str) -> dict[str, int]:
    """Fewest wheels from ``source`` to every reachable place (Dijkstra)."""
    neighbours: dict[str, list[tuple[str, int]]] = {}
    for road in roads:
        neighbours.setdefault(road["a"], []).append((road["b"], road["length"]))
        neighbours.setdefault(road["b"], []).append((road["a"], road["length"]))
    best = {source: 0}
    queue = [(0, source)]
    while queue:
        wheels, place = heapq.heappop(queue)
        if wheels > best[place]:
            continue
        for other, length in neighbours.get(place, ()):
            if wheels + length < best.get(other, math.inf):
                best[other] = wheels + length
                heapq.heappush(queue, (wheels + length, other))
    return best


def build() -> dict:
    """The map in the JSON shape that ``board.load_board`` reads."""
    coords = {pid: (lat, lon) for pid, _, lat, lon, _ in PLACES}
    locations = []
    for pid, name, lat, lon, bank in PLACES:
        x, y = project(lat, lon)
        locations.append(
            {
                "id": pid,
                "name": name,
                "lat": round(lat, 5),
                "lon": round(lon, 5),
                "x": x,
                "y": y,
                "bank": bank,
            }
        )

    roads: list[dict] = []
    for a, b, colour, twin_colour in ROADS:
        length = road_length(distance_m(coords[a], coords[b]))
        first = len(roads)
        twin = first + 1 if twin_colour else None
        roads.append(
            {"id": first, "a": a, "b": b, "length": length, "color": colour, "double_of": twin}
        )
        if twin_colour:
            roads.append(
                {
                    "id": first + 1,
                    "a": a,
                    "b": b,
                    "length": length,
                    "color": twin_colour,
                    "double_of": first,
                }
            )

    destinations = []
    for is_long, pairs in ((False, SHORT_DESTINATIONS), (True, LONG_DESTINATIONS)):
        for a, b in pairs:
            points = shortest_paths(roads, a)[b]
            destinations.append(
                {"id": len(destinations), "a": a, "b": b, "points": points, "long": is_long}
            )

    rhine = [list(project(lat, lon)) for lat, lon in RHINE]
    return {
        "name": MAP_NAME,
        "locations": locations,
        "roads": roads,
        "destinations": destinations,
        "rhine": rhine,
    }


def render(data: dict) -> str:
    """JSON text with one location, road, destination or Rhine point per line."""
    lines = ["{", f'  "name": {json.dumps(data["name"])},']
    keys = ("locations", "roads", "destinations", "rhine")
    for key in keys:
        items = data[key]
        lines.append(f'  "{key}": [')
        for i, item in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            lines.append("    " + json.dumps(item, ensure_ascii=False) + comma)
        lines.append("  ]" + ("," if key != keys[-1] else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


# --- Rule report ------------------------------------------------------------------------
def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def segments_cross(p1, p2, q1, q2) -> bool:
    """True if the two segments properly cross (touching at an end does not count)."""
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    return d1 * d2 < 0 and d3 * d4 < 0


def crossing_point(p1, p2, q1, q2) -> tuple[float, float]:
    """Where the lines through two crossing segments meet."""
    r = (p2[0] - p1[0], p2[1] - p1[1])
    s = (q2[0] - q1[0], q2[1] - q1[1])
    t = ((q1[0] - p1[0]) * s[1] - (q1[1] - p1[1]) * s[0]) / (r[0] * s[1] - r[1] * s[0])
    return p1[0] + t * r[0], p1[1] + t * r[1]


def point_segment_distance(p, a, b) -> float:
    ab = (b[0] - a[0], b[1] - a[1])
    t = ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / (ab[0] ** 2 + ab[1] ** 2)
    t = max(0.0, min(1.0, t))
    return math.hypot(p[0] - (a[0] + t * ab[0]), p[1] - (a[1] + t * ab[1]))


def rhine_side(point, rhine) -> str:
    """``klein`` if the point lies north/east of the Rhine polyline, else ``gross``.

    The polyline is closed into a polygon around the Kleinbasel side: from its last
    (northernmost) point straight north, east, then south to the height of its first
    (easternmost) point. A ray cast decides whether the point is inside.
    """
    far = 1e6
    last, first = rhine[-1], rhine[0]
    polygon = [*rhine, (last[0], -far), (far, -far), (far, first[1])]
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return KLEIN if inside else GROSS


def violations(data: dict) -> list[str]:
    """Human-readable list of broken map rules; empty when the tables are fine."""
    problems: list[str] = []
    xy = {loc["id"]: (loc["x"], loc["y"]) for loc in data["locations"]}
    bank = {loc["id"]: loc["bank"] for loc in data["locations"]}
    rhine = [tuple(p) for p in data["rhine"]]
    roads = data["roads"]
    singles = [r for r in roads if r["double_of"] is None or r["double_of"] > r["id"]]
    bridges = [project(lat, lon) for _, lat, lon in BRIDGES]

    for pid, point in xy.items():
        if rhine_side(point, rhine) != bank[pid]:
            problems.append(f"{pid} is not on the {bank[pid]} side of the Rhine")
    for r, s in combinations(singles, 2):
        if len({r["a"], r["b"], s["a"], s["b"]}) == 4 and segments_cross(
            xy[r["a"]], xy[r["b"]], xy[s["a"]], xy[s["b"]]
        ):
            problems.append(f"roads {r['a']}-{r['b']} and {s['a']}-{s['b']} cross")
    for r in singles:
        for pid in xy:
            if pid not in (r["a"], r["b"]):
                gap = point_segment_distance(xy[pid], xy[r["a"]], xy[r["b"]])
                if gap < CLEARANCE_UNITS:
                    problems.append(f"road {r['a']}-{r['b']} passes {gap:.1f} from {pid}")
        a, b = xy[r["a"]], xy[r["b"]]
        hits = [
            crossing_point(a, b, p, q) for p, q in pairwise(rhine) if segments_cross(a, b, p, q)
        ]
        crossing = bank[r["a"]] != bank[r["b"]]
        if len(hits) != (1 if crossing else 0):
            problems.append(f"road {r['a']}-{r['b']} meets the Rhine {len(hits)} times")
        if crossing and r["color"] != GREY:
            problems.append(f"road {r['a']}-{r['b']} crosses the Rhine but is {r['color']}")
        for hit in hits:
            gap_m = min(math.dist(hit, bridge) for bridge in bridges) / MAP_UNITS_PER_M
            if gap_m > BRIDGE_TOLERANCE_M:
                problems.append(
                    f"road {r['a']}-{r['b']} crosses the Rhine {gap_m:.0f} m off a bridge"
                )

    totals = {c: 0 for c in CARD_COLORS}
    for r in roads:
        if r["color"] != GREY:
            totals[r["color"]] += r["length"]
    mean = sum(totals.values()) / len(totals)
    for colour, total in totals.items():
        if abs(total - mean) > COLOUR_TOLERANCE * mean:
            problems.append(f"{colour} has {total} wheels, mean is {mean:.1f}")

    wheels = sum(r["length"] for r in roads)
    if wheels < MIN_WHEELS:
        problems.append(f"only {wheels} wheels")
    for d in data["destinations"]:
        low, high = (15, 25) if d["long"] else (4, 12)
        if not low <= d["points"] <= high:
            problems.append(f"destination {d['a']}-{d['b']} is worth {d['points']}")
    return problems


def main(argv: list[str]) -> int:
    data = build()
    make_board(data["name"], data["locations"], data["roads"], data["destinations"], data["rhine"])
    problems = violations(data)
    for problem in problems:
        print(problem)
    if "--check" not in argv:
        OUTPUT.write_text(render(data), encoding="utf-8")
        print(f"wrote {OUTPUT}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
