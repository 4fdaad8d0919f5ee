"""The Basel map (games/ratumrad/data/basel.json) obeys R1.5, R1.7 and the map rules.

Every check recomputes its facts from the data: distances from lat/lon, lengths, shortest
paths, crossings, and the bank of each place relative to the Rhine polyline. Only the rule
constants (projection, metres per wheel, bridge positions) come from the generator.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections import Counter, defaultdict
from itertools import combinations, pairwise

import pytest

from games.ratumrad import board
from games.ratumrad.data import build_basel as gen

pytestmark = pytest.mark.engine  # neither database nor channel layer

JSON_PATH = board.DATA_DIR / "basel.json"
CROSSING_COLOUR = board.GREY
# A road must keep this many map units (about 90 m) away from every third place.
CLEARANCE = 10.0
# Places must be at least this many map units apart to be drawn as separate stops.
MIN_PLACE_GAP = 30.0
# A Rhine crossing must lie within this many metres of a real crossing's middle.
BRIDGE_TOLERANCE_M = 200.0
# "Nearby": no road spans more than this.
MAX_ROAD_M = 3500.0


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(JSON_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def places(data) -> dict[str, dict]:
    return {loc["id"]: loc for loc in data["locations"]}


@pytest.fixture(scope="module")
def rhine(data) -> list[tuple[float, float]]:
    return [(x, y) for x, y in data["rhine"]]


def xy(place: dict) -> tuple[float, float]:
    return place["x"], place["y"]


def metres_between(p: dict, q: dict) -> float:
    """Equirectangular distance between two places, scaled at the projection's origin."""
    k = math.pi / 180.0 * gen.EARTH_RADIUS_M
    east = (q["lon"] - p["lon"]) * k * math.cos(math.radians(gen.ORIGIN_LAT))
    north = (q["lat"] - p["lat"]) * k
    return math.hypot(east, north)


def orientation(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def proper_crossing(p1, p2, q1, q2) -> bool:
    return (
        orientation(q1, q2, p1) * orientation(q1, q2, p2) < 0
        and orientation(p1, p2, q1) * orientation(p1, p2, q2) < 0
    )


def crossing_point(p1, p2, q1, q2) -> tuple[float, float]:
    r = (p2[0] - p1[0], p2[1] - p1[1])
    s = (q2[0] - q1[0], q2[1] - q1[1])
    t = ((q1[0] - p1[0]) * s[1] - (q1[1] - p1[1]) * s[0]) / (r[0] * s[1] - r[1] * s[0])
    return p1[0] + t * r[0], p1[1] + t * r[1]


def distance_to_segment(p, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def rhine_hits(a, b, rhine) -> list[tuple[float, float]]:
    return [crossing_point(a, b, p, q) for p, q in pairwise(rhine) if proper_crossing(a, b, p, q)]


def north_east_of_rhine(point, rhine) -> bool:
    """Inside the polygon that closes the Rhine around its north-east (Kleinbasel) side."""
    far = 1e6
    polygon = [*rhine, (rhine[-1][0], -far), (far, -far), (far, rhine[0][1])]
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def road_segments(data) -> list[dict]:
    """One entry per drawn line: the two templates of a double are drawn side by side."""
    return [r for r in data["roads"] if r["double_of"] is None or r["double_of"] > r["id"]]


def fewest_wheels(roads: list[dict], source: str) -> dict[str, int]:
    graph = defaultdict(list)
    for r in roads:
        graph[r["a"]].append((r["b"], r["length"]))
        graph[r["b"]].append((r["a"], r["length"]))
    best = {source: 0}
    queue = [(0, source)]
    while queue:
        wheels, here = heapq.heappop(queue)
        if wheels > best[here]:
            continue
        for there, length in graph[here]:
            if wheels + length < best.get(there, math.inf):
                best[there] = wheels + length
                heapq.heappush(queue, (wheels + length, there))
    return best


# --- Loading and shape ------------------------------------------------------------------


def test_the_json_loads_through_board_basel(data):
    basel = board.basel()
    assert basel.name == "basel"
    assert [loc.id for loc in basel.locations] == [loc["id"] for loc in data["locations"]]
    assert len(basel.roads) == len(data["roads"])
    assert len(basel.destinations) == len(data["destinations"])
    assert len(basel.rhine) == len(data["rhine"])


def test_to_public_dict_has_the_protocol_fields():
    public = board.basel().to_public_dict()
    assert public["name"] == "basel"
    for loc in public["locations"]:
        assert {"id", "name", "x", "y"} <= loc.keys()
    for road in public["roads"]:
        assert {"id", "a", "b", "length", "color", "double_of"} <= road.keys()
    for dest in public["destinations"]:
        assert {"id", "a", "b", "points", "long"} <= dest.keys()
    assert all(len(point) == 2 for point in public["rhine"])


def test_the_generator_reproduces_the_committed_json_exactly():
    assert gen.render(gen.build()) == JSON_PATH.read_text(encoding="utf-8")


def test_the_generator_is_deterministic():
    assert gen.render(gen.build()) == gen.render(gen.build())


# --- Places -----------------------------------------------------------------------------


def test_R1_7_at_least_thirty_real_basel_places(data):
    assert len(data["locations"]) >= 30


def test_place_ids_are_unique_ascii_snake_case_and_names_are_unique(data):
    ids = [loc["id"] for loc in data["locations"]]
    names = [loc["name"] for loc in data["locations"]]
    assert len(set(ids)) == len(ids)
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", pid) for pid in ids)


def test_places_have_wgs84_coordinates_in_the_basel_area_with_five_decimals(data):
    for loc in data["locations"]:
        assert 47.52 < loc["lat"] < 47.60, loc["id"]
        assert 7.52 < loc["lon"] < 7.66, loc["id"]
        assert round(loc["lat"], 5) == loc["lat"]
        assert round(loc["lon"], 5) == loc["lon"]


def test_map_coordinates_are_the_projection_of_lat_lon(data):
    k = math.pi / 180.0 * gen.EARTH_RADIUS_M
    for loc in data["locations"]:
        east = (loc["lon"] - gen.ORIGIN_LON) * k * math.cos(math.radians(gen.ORIGIN_LAT))
        north = (loc["lat"] - gen.ORIGIN_LAT) * k
        x = (east - gen.WEST_EDGE_M) * gen.MAP_UNITS_PER_M
        y = (gen.NORTH_EDGE_M - north) * gen.MAP_UNITS_PER_M
        assert loc["x"] == pytest.approx(x, abs=0.051), loc["id"]
        assert loc["y"] == pytest.approx(y, abs=0.051), loc["id"]
        assert round(loc["x"], 1) == loc["x"] and round(loc["y"], 1) == loc["y"]


def test_the_map_fits_in_0_to_1000_with_north_up(places):
    assert all(0 <= p["x"] <= 1000 and 0 <= p["y"] <= 1000 for p in places.values())
    assert places["dreilaendereck"]["y"] < places["bahnhof_sbb"]["y"] < places["bruderholz"]["y"]
    assert places["allschwil"]["x"] < places["marktplatz"]["x"] < places["riehen"]["x"]


def test_places_are_far_enough_apart_to_draw(data):
    for p, q in combinations(data["locations"], 2):
        gap = math.dist(xy(p), xy(q))
        assert gap >= MIN_PLACE_GAP, (p["id"], q["id"], gap)


def test_the_rhine_is_a_long_polyline_from_the_east_edge_to_the_north_edge(data, rhine):
    assert len(rhine) >= 15
    east_end, north_end = rhine[0], rhine[-1]
    assert east_end[0] == max(x for x, _ in rhine)
    assert north_end[1] == min(y for _, y in rhine)
    assert east_end[0] > max(loc["x"] for loc in data["locations"])
    assert north_end[1] < min(loc["y"] for loc in data["locations"])
    projected = [list(gen.project(lat, lon)) for lat, lon in gen.RHINE]
    assert projected == data["rhine"]


def test_each_place_lies_on_the_bank_it_names(places, rhine):
    for pid, place in places.items():
        expected = "klein" if north_east_of_rhine(xy(place), rhine) else "gross"
        assert place["bank"] == expected, pid


def test_both_banks_have_places(places):
    banks = Counter(p["bank"] for p in places.values())
    assert set(banks) == {"gross", "klein"}
    assert min(banks.values()) >= 10


# --- Roads ------------------------------------------------------------------------------


def test_R1_7_roads_join_two_different_known_places(data, places):
    assert [r["id"] for r in data["roads"]] == list(range(len(data["roads"])))
    for r in data["roads"]:
        assert r["a"] in places and r["b"] in places and r["a"] != r["b"]


def test_R1_7_road_colours_are_card_colours_or_grey(data):
    allowed = {*board.CARD_COLORS, board.GREY}
    assert {r["color"] for r in data["roads"]} <= allowed


def test_R1_7_road_lengths_are_1_to_6_and_follow_the_real_distance(data, places):
    for r in data["roads"]:
        metres = metres_between(places[r["a"]], places[r["b"]])
        expected = max(1, min(6, math.floor(metres / gen.METRES_PER_WHEEL + 0.5)))
        assert r["length"] == expected, (r["id"], r["a"], r["b"], metres)


def test_every_road_length_from_1_to_6_occurs(data):
    assert {r["length"] for r in data["roads"]} == {1, 2, 3, 4, 5, 6}


def test_roads_join_nearby_places(data, places):
    for r in data["roads"]:
        assert metres_between(places[r["a"]], places[r["b"]]) <= MAX_ROAD_M, r


def test_the_road_network_is_connected(data, places):
    reachable = fewest_wheels(data["roads"], next(iter(places)))
    assert reachable.keys() == places.keys()


def test_the_map_has_at_least_220_wheel_spaces(data):
    assert sum(r["length"] for r in data["roads"]) >= 220


def test_R1_7_at_least_six_double_roads_whose_templates_name_each_other(data):
    roads = data["roads"]
    doubles = [r for r in roads if r["double_of"] is not None]
    for r in doubles:
        twin = roads[r["double_of"]]
        assert twin["double_of"] == r["id"]
        assert {twin["a"], twin["b"]} == {r["a"], r["b"]}
        assert twin["length"] == r["length"]
        both_grey = r["color"] == twin["color"] == board.GREY
        assert both_grey or r["color"] != twin["color"], (r, twin)
    assert len(doubles) // 2 >= 6


def test_only_doubles_share_a_pair_of_places(data):
    pairs = Counter(frozenset((r["a"], r["b"])) for r in data["roads"])
    doubled = {frozenset((r["a"], r["b"])) for r in data["roads"] if r["double_of"] is not None}
    for pair, count in pairs.items():
        assert count == (2 if pair in doubled else 1), pair


def test_R1_7_every_rhine_crossing_is_grey(data, places):
    for r in data["roads"]:
        if places[r["a"]]["bank"] != places[r["b"]]["bank"]:
            assert r["color"] == CROSSING_COLOUR, r


def test_roads_meet_the_rhine_exactly_when_they_join_the_two_banks(data, places, rhine):
    for r in data["roads"]:
        hits = rhine_hits(xy(places[r["a"]]), xy(places[r["b"]]), rhine)
        crosses = places[r["a"]]["bank"] != places[r["b"]]["bank"]
        assert len(hits) == (1 if crosses else 0), (r["a"], r["b"], len(hits))


def test_every_rhine_crossing_is_at_a_real_bridge(data, places, rhine):
    bridges = {name: gen.project(lat, lon) for name, lat, lon in gen.BRIDGES}
    used = set()
    tolerance = BRIDGE_TOLERANCE_M * gen.MAP_UNITS_PER_M
    for r in road_segments(data):
        for hit in rhine_hits(xy(places[r["a"]]), xy(places[r["b"]]), rhine):
            gap, name = min((math.dist(hit, point), name) for name, point in bridges.items())
            assert gap <= tolerance, (r["a"], r["b"], name, gap / gen.MAP_UNITS_PER_M)
            assert name not in used, f"two roads use the {name}"
            used.add(name)
    assert len(used) >= 5


def test_grey_appears_off_the_rhine_only_sparingly(data, places):
    off_rhine = [
        r
        for r in data["roads"]
        if r["color"] == board.GREY and places[r["a"]]["bank"] == places[r["b"]]["bank"]
    ]
    assert len(off_rhine) <= 3


def test_the_eight_colours_are_balanced_within_20_percent(data):
    totals = {colour: 0 for colour in board.CARD_COLORS}
    for r in data["roads"]:
        if r["color"] != board.GREY:
            totals[r["color"]] += r["length"]
    mean = sum(totals.values()) / len(totals)
    for colour, total in totals.items():
        assert abs(total - mean) <= 0.2 * mean, (colour, total, mean)


def test_no_two_roads_cross(data, places):
    segments = road_segments(data)
    for r, s in combinations(segments, 2):
        if len({r["a"], r["b"], s["a"], s["b"]}) < 4:
            continue
        ends = [xy(places[pid]) for pid in (r["a"], r["b"], s["a"], s["b"])]
        assert not proper_crossing(*ends), (r["a"], r["b"], s["a"], s["b"])


def test_no_road_passes_through_a_third_place(data, places):
    for r in road_segments(data):
        a, b = xy(places[r["a"]]), xy(places[r["b"]])
        for pid, place in places.items():
            if pid not in (r["a"], r["b"]):
                gap = distance_to_segment(xy(place), a, b)
                assert gap >= CLEARANCE, (r["a"], r["b"], pid, gap)


# --- Destination cards ------------------------------------------------------------------


def test_R1_5_fifteen_short_and_five_long_destination_cards(data):
    cards = data["destinations"]
    assert [d["id"] for d in cards] == list(range(20))
    assert [d["long"] for d in cards] == [False] * 15 + [True] * 5


def test_destination_points_are_the_shortest_path_in_wheels(data):
    for d in data["destinations"]:
        assert d["points"] == fewest_wheels(data["roads"], d["a"])[d["b"]], d


def test_short_cards_are_worth_4_to_12_and_long_cards_15_to_25(data):
    for d in data["destinations"]:
        low, high = (15, 25) if d["long"] else (4, 12)
        assert low <= d["points"] <= high, d


def test_no_two_cards_name_the_same_pair_of_places(data, places):
    pairs = [frozenset((d["a"], d["b"])) for d in data["destinations"]]
    assert len(set(pairs)) == len(pairs)
    assert all(len(pair) == 2 and pair <= places.keys() for pair in pairs)


def test_destination_cards_spread_over_the_map(data, places):
    named = {pid for d in data["destinations"] for pid in (d["a"], d["b"])}
    assert len(named) >= 25
    assert {places[pid]["bank"] for pid in named} == {"gross", "klein"}


def test_long_cards_cross_the_city(data, places):
    for d in data["destinations"]:
        if d["long"]:
            assert metres_between(places[d["a"]], places[d["b"]]) >= 4000, d
