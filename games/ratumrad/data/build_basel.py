"""Generate the Basel map of Rat um Rad (``basel.json``) from the tables below.

This module is the source of truth for the map; ``basel.json`` is its output.

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

MAP_NAME = "basel"
OUTPUT = Path(__file__).resolve().parent / "basel.json"

# --- Projection -------------------------------------------------------------------------
# Metres east/north of the origin (the Mittlere Brücke) on a sphere, with the east-west
# scale taken at the origin's latitude; then shifted and scaled into map units.
EARTH_RADIUS_M = 6_371_000.0
ORIGIN_LAT = 47.56
ORIGIN_LON = 7.59
WEST_EDGE_M = -4350.0  # metres east of the origin at map x = 0
NORTH_EDGE_M = 3600.0  # metres north of the origin at map y = 0
MAP_UNITS_PER_M = 0.11  # about 9.1 m per map unit; the map spans roughly 0..1000 x 0..760

# --- Road lengths -----------------------------------------------------------------------
METRES_PER_WHEEL = 300.0
MIN_ROAD_LENGTH = 1
MAX_ROAD_LENGTH = 6

# --- Checks (see ``violations``) -------------------------------------------------------
MIN_WHEELS = 220  # wheel spaces over all templates
CLEARANCE_UNITS = 12.0  # map units a road keeps from every third place (about 110 m)
BRIDGE_TOLERANCE_M = 200.0  # how far a road may cross the Rhine from a crossing's middle
COLOUR_TOLERANCE = 0.2  # each colour's wheels within 20 % of the mean colour

# --- Places -----------------------------------------------------------------------------
GROSS = "gross"
KLEIN = "klein"

# (id, display name, latitude, longitude, bank)
PLACES: list[tuple[str, str, float, float, str]] = [
    ("bahnhof_sbb", "Bahnhof SBB", 47.54740, 7.58958, GROSS),
    ("marktplatz", "Marktplatz", 47.55811, 7.58761, GROSS),
    ("muenster", "Münster", 47.55642, 7.59226, GROSS),
    ("barfuesserplatz", "Barfüsserplatz", 47.55459, 7.58907, GROSS),
    ("heuwaage", "Heuwaage", 47.55190, 7.58440, GROSS),
    ("aeschenplatz", "Aeschenplatz", 47.55130, 7.59486, GROSS),
    ("universitaet", "Universität", 47.55880, 7.58360, GROSS),
    ("st_johanns_tor", "St. Johanns-Tor", 47.56600, 7.58270, GROSS),
    ("voltaplatz", "Voltaplatz", 47.56850, 7.57750, GROSS),
    ("kannenfeldpark", "Kannenfeldpark", 47.56564, 7.57059, GROSS),
    ("novartis_campus", "Novartis Campus", 47.57197, 7.58072, GROSS),
    ("zoo", "Zoo Basel", 47.54733, 7.57878, GROSS),
    ("gundeli", "Gundeli", 47.54380, 7.59260, GROSS),
    ("dreispitz", "Dreispitz", 47.53717, 7.60883, GROSS),
    ("bruderholz", "Bruderholz", 47.53380, 7.59400, GROSS),
    ("st_jakob", "St. Jakob", 47.54158, 7.62018, GROSS),
    ("birsfelden", "Birsfelden", 47.55330, 7.62330, GROSS),
    ("allschwil", "Allschwil", 47.55120, 7.53640, GROSS),
    ("st_alban_tor", "St. Alban-Tor", 47.55290, 7.60280, GROSS),
    ("breite", "Breite", 47.55450, 7.61350, GROSS),
    ("schuetzenmattpark", "Schützenmattpark", 47.55430, 7.57430, GROSS),
    ("binningen", "Binningen", 47.54020, 7.56970, GROSS),
    ("badischer_bahnhof", "Badischer Bahnhof", 47.56694, 7.60752, KLEIN),
    ("claraplatz", "Claraplatz", 47.56190, 7.59360, KLEIN),
    ("messeplatz", "Messeplatz", 47.56345, 7.59961, KLEIN),
    ("wettsteinplatz", "Wettsteinplatz", 47.55900, 7.59800, KLEIN),
    ("tinguely", "Museum Tinguely", 47.55917, 7.61222, KLEIN),
    ("matthaeusplatz", "Matthäusplatz", 47.56696, 7.59315, KLEIN),
    ("dreirosen", "Dreirosenanlage", 47.57120, 7.58850, KLEIN),
    ("klybeck", "Klybeck", 47.57700, 7.59050, KLEIN),
    ("kleinhueningen", "Kleinhüningen", 47.58255, 7.59356, KLEIN),
    ("dreilaendereck", "Dreiländereck", 47.58980, 7.59010, KLEIN),
    ("erlenmatt", "Erlenmatt", 47.57150, 7.60250, KLEIN),
    ("rosental", "Rosental", 47.56700, 7.60050, KLEIN),
    ("lange_erlen", "Lange Erlen", 47.57720, 7.61580, KLEIN),
    ("baeumlihof", "Bäumlihof", 47.57100, 7.62700, KLEIN),
    ("riehen", "Riehen", 47.58400, 7.64860, KLEIN),
]

# --- The Rhine --------------------------------------------------------------------------
# Centre line, upstream to downstream: from east of the Kraftwerk Birsfelden west past the
# Schwarzwald- and Wettsteinbrücke, round the bend at the Mittlere Brücke, then north past
# the Johanniter- and Dreirosenbrücke to the Dreiländereck and beyond. The first point is
# the easternmost and the last the northernmost, which closes the Kleinbasel side (see
# ``rhine_side``).
RHINE: list[tuple[float, float]] = [
    (47.54700, 7.66400),
    (47.55350, 7.65450),
    (47.55800, 7.64400),
    (47.56000, 7.63400),
    (47.56060, 7.62590),  # Kraftwerk Birsfelden
    (47.55980, 7.61900),  # Birskopf
    (47.55810, 7.61390),  # Schwarzwaldbrücke
    (47.55700, 7.60600),
    (47.55640, 7.60000),
    (47.55640, 7.59610),  # Wettsteinbrücke
    (47.55780, 7.59300),  # below the Münster (Pfalz)
    (47.56000, 7.58970),  # Mittlere Brücke
    (47.56250, 7.58720),
    (47.56480, 7.58590),  # Johanniterbrücke
    (47.56800, 7.58500),
    (47.57080, 7.58470),  # Dreirosenbrücke
    (47.57500, 7.58550),
    (47.58000, 7.58640),
    (47.58500, 7.58720),
    (47.59000, 7.58800),  # Dreiländereck
    (47.59600, 7.58900),
]

# Real Rhine crossings a road may use (name, latitude, longitude of the middle).
BRIDGES: list[tuple[str, float, float]] = [
    ("Kraftwerk Birsfelden", 47.56055, 7.62585),
    ("Schwarzwaldbrücke", 47.55805, 7.61391),
    ("Wettsteinbrücke", 47.55639, 7.59613),
    ("Mittlere Brücke", 47.56000, 7.58973),
    ("Johanniterbrücke", 47.56484, 7.58588),
    ("Dreirosenbrücke", 47.57083, 7.58474),
]

# --- Roads ------------------------------------------------------------------------------
# (place a, place b, colour, colour of the twin template or None). A road with a twin is
# a double road: two parallel templates, listed one after the other.
ROADS: list[tuple[str, str, str, str | None]] = [
    # Grossbasel: old town and Bahnhof SBB
    ("marktplatz", "universitaet", "pink", None),
    ("muenster", "barfuesserplatz", "red", None),
    ("marktplatz", "muenster", "white", None),
    ("marktplatz", "barfuesserplatz", "yellow", "blue"),
    ("barfuesserplatz", "heuwaage", "green", None),
    ("barfuesserplatz", "aeschenplatz", "white", None),
    ("bahnhof_sbb", "aeschenplatz", "pink", "blue"),
    ("muenster", "aeschenplatz", "yellow", None),
    ("bahnhof_sbb", "heuwaage", "black", None),
    ("bahnhof_sbb", "gundeli", "green", "orange"),
    ("heuwaage", "zoo", "white", None),
    ("heuwaage", "universitaet", "blue", None),
    ("heuwaage", "schuetzenmattpark", "red", None),
    ("universitaet", "schuetzenmattpark", "orange", None),
    ("universitaet", "st_johanns_tor", "red", None),
    ("zoo", "schuetzenmattpark", "green", None),
    ("bahnhof_sbb", "zoo", "red", None),
    # Grossbasel: east and south, Birsfelden
    ("aeschenplatz", "st_alban_tor", "orange", None),
    ("muenster", "st_alban_tor", "black", None),
    ("aeschenplatz", "gundeli", "black", None),
    ("st_alban_tor", "breite", "pink", None),
    ("breite", "birsfelden", "orange", None),
    ("gundeli", "bruderholz", "white", None),
    ("gundeli", "dreispitz", "red", None),
    ("dreispitz", "bruderholz", "yellow", None),
    ("dreispitz", "st_jakob", "orange", "black"),
    ("st_jakob", "birsfelden", "green", None),
    ("st_jakob", "breite", "yellow", None),
    # Grossbasel: west and north, Binningen, Allschwil
    ("zoo", "binningen", "black", None),
    ("zoo", "gundeli", "pink", None),
    ("binningen", "bruderholz", "orange", None),
    ("binningen", "allschwil", "white", None),
    ("allschwil", "schuetzenmattpark", "blue", None),
    ("allschwil", "kannenfeldpark", "green", None),
    ("kannenfeldpark", "schuetzenmattpark", "yellow", None),
    ("kannenfeldpark", "voltaplatz", "white", None),
    ("kannenfeldpark", "st_johanns_tor", "pink", None),
    ("voltaplatz", "novartis_campus", "pink", None),
    ("voltaplatz", "st_johanns_tor", "black", None),
    ("novartis_campus", "st_johanns_tor", "green", None),
    # Rhine crossings, all grey
    ("marktplatz", "claraplatz", GREY, GREY),  # Mittlere Brücke
    ("muenster", "wettsteinplatz", GREY, None),  # Wettsteinbrücke
    ("st_johanns_tor", "claraplatz", GREY, None),  # Johanniterbrücke
    ("novartis_campus", "dreirosen", GREY, None),  # Dreirosenbrücke
    ("breite", "tinguely", GREY, None),  # Schwarzwaldbrücke
    ("birsfelden", "baeumlihof", GREY, None),  # Kraftwerk Birsfelden
    # Kleinbasel
    ("claraplatz", "wettsteinplatz", "green", None),
    ("claraplatz", "messeplatz", "yellow", "blue"),
    ("messeplatz", "wettsteinplatz", "pink", None),
    ("messeplatz", "rosental", "white", None),
    ("claraplatz", "matthaeusplatz", "red", None),
    ("matthaeusplatz", "rosental", "yellow", None),
    ("matthaeusplatz", "dreirosen", "white", None),
    ("matthaeusplatz", "erlenmatt", "green", None),
    ("rosental", "erlenmatt", "blue", None),
    ("rosental", "badischer_bahnhof", "orange", None),
    ("badischer_bahnhof", "messeplatz", "green", "black"),
    ("badischer_bahnhof", "erlenmatt", "white", None),
    ("badischer_bahnhof", "tinguely", "red", None),
    ("wettsteinplatz", "tinguely", "blue", None),
    # Kleinbasel north: Klybeck, Kleinhüningen, Dreiländereck
    ("dreirosen", "klybeck", "orange", None),
    ("klybeck", "kleinhueningen", "green", None),
    ("kleinhueningen", "dreilaendereck", "blue", None),
    ("dreirosen", "erlenmatt", "red", None),
    ("klybeck", "erlenmatt", "yellow", None),
    ("kleinhueningen", "erlenmatt", "pink", None),
    # Lange Erlen, Bäumlihof, Riehen
    ("kleinhueningen", "lange_erlen", "white", None),
    ("erlenmatt", "lange_erlen", "black", None),
    ("badischer_bahnhof", "lange_erlen", "yellow", None),
    ("lange_erlen", "baeumlihof", "red", None),
    ("badischer_bahnhof", "baeumlihof", "blue", None),
    ("tinguely", "baeumlihof", "orange", None),
    ("baeumlihof", "riehen", "black", None),
    ("lange_erlen", "riehen", "pink", None),
]

# --- Destination cards ------------------------------------------------------------------
# Pairs of places; the points follow from the roads (see ``build``). Short cards are worth
# 4 to 12 points, long cards 15 to 25 and cross the whole city.
SHORT_DESTINATIONS: list[tuple[str, str]] = [
    ("bahnhof_sbb", "badischer_bahnhof"),
    ("marktplatz", "messeplatz"),
    ("muenster", "tinguely"),
    ("zoo", "universitaet"),
    ("heuwaage", "st_johanns_tor"),
    ("novartis_campus", "kleinhueningen"),
    ("aeschenplatz", "st_jakob"),
    ("gundeli", "birsfelden"),
    ("st_alban_tor", "erlenmatt"),
    ("rosental", "dreilaendereck"),
    ("voltaplatz", "klybeck"),
    ("allschwil", "barfuesserplatz"),
    ("riehen", "badischer_bahnhof"),
    ("schuetzenmattpark", "claraplatz"),
    ("dreispitz", "wettsteinplatz"),
]
LONG_DESTINATIONS: list[tuple[str, str]] = [
    ("dreilaendereck", "st_jakob"),
    ("allschwil", "lange_erlen"),
    ("bruderholz", "riehen"),
    ("binningen", "kleinhueningen"),
    ("kannenfeldpark", "birsfelden"),
]


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
