"""The tables of the Basel map of Rat um Rad: places, the Rhine and its crossings, roads and
destination cards, with the projection and the limits the map keeps.

``build_basel`` turns them into ``basel.json`` and checks them; its docstring states the rules
these tables follow (the tests in ``tests/test_map_basel.py`` check each of them).
"""

from __future__ import annotations

from games.ratumrad.board import GREY

MAP_NAME = "basel"

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
