// The Basel board as SVG: the Rhine, the places, every road as its wheel spaces.
import { format, h, svg } from "../game/dom.js";
import { Viewport } from "./viewport.js";

const MARGIN = 8; // map units around everything drawn
const PLACE_RADIUS = 5.5;
const PLACE_GAP = 8; // free map units between a place and the first wheel space of a road
const WHEEL_HEIGHT = 9;
const WHEEL_GAP = 2.4; // between two wheel spaces of one road
const DOUBLE_OFFSET = WHEEL_HEIGHT / 2 + 1.2; // each road of a double, off the centre line
// The pointer picks the road whose wheels run nearest to it, within this many map units (and
// at least HIT_PIXELS on the screen): each road is easy to hit along its whole length, and a
// road is never hidden behind its neighbour where two run close (a double, or at a place).
const HIT_UNITS = 12;
const HIT_PIXELS = 14;
export const LAST_MOVE_MS = 6000; // how long the last move stays marked
const READING_BAND = 60; // map units: roads whose middles lie this close count as one row for Tab
// Built wheels carry their owner's pattern too, for players who cannot tell the colours apart.
const PLAYER_PATTERNS = {
  red: [["path", { d: "M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2", "stroke-width": 1.3 }]],
  blue: [["circle", { cx: 3, cy: 3, r: 1.2 }]],
  green: [["path", { d: "M0,3 h6", "stroke-width": 1.3 }]],
  yellow: [["path", { d: "M0,0 l6,6 M6,0 l-6,6", "stroke-width": 0.9 }]],
  black: [["path", { d: "M3,0 v6", "stroke-width": 1.3 }]],
};
const LABEL_DISTANCE = 9;
const LABEL_HEIGHT = 13;
const LABEL_FONT = 12.5; // map units: the place labels' font size in game.css
// Place names keep this size on the screen at every zoom (CSS pixels); where they would
// overlap, the busier place keeps its name until the map is zoomed in far enough.
const LABEL_PIXELS = 12;
export const MAX_ZOOM = 5;
const DIRECTIONS = [0, 45, 90, 135, 180, 225, 270, 315].map((degrees) => {
  const radians = (degrees * Math.PI) / 180;
  return [Math.cos(radians), Math.sin(radians)];
});

// An angle in degrees turned so that text on it never reads upside down.
function upright(degrees) {
  if (degrees > 90) return degrees - 180;
  if (degrees <= -90) return degrees + 180;
  return degrees;
}

function round(value) {
  return Math.round(value * 10) / 10;
}

function overlap(a, b) {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const hgt = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && hgt > 0 ? w * hgt : 0;
}

// Does the segment (x1,y1)-(x2,y2) pass through the rectangle? (Liang-Barsky clipping)
function crosses(rect, x1, y1, x2, y2) {
  let t0 = 0;
  let t1 = 1;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const edges = [
    [-dx, x1 - rect.x],
    [dx, rect.x + rect.w - x1],
    [-dy, y1 - rect.y],
    [dy, rect.y + rect.h - y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

// The distance from (x, y) to the segment [x1, y1, x2, y2].
function toSegment(x, y, [x1, y1, x2, y2]) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(x - (x1 + t * dx), y - (y1 + t * dy));
}

export class BoardView {
  // tip: an element inside the map's positioned frame for the card of the road under the
  // pointer or focus (hidden when none is).
  constructor(root, map, strings, onActivate, tip = null) {
    this.root = root;
    this.tip = tip;
    this.tipRoad = null;
    this.flashTimer = null;
    this.map = map;
    this.T = strings;
    this.onActivate = onActivate;
    this.places = new Map(map.locations.map((place) => [place.id, place]));
    this.roads = new Map(); // road id -> {road, group, wheels, center, segment, tip}
    this.placeNodes = new Map(); // place id -> {ring, label}
    this.buildable = new Set();
    this.draw();
  }

  draw() {
    this.layoutLabels();
    const boxes = [
      ...this.map.locations.map((p) => ({ x: p.x - 8, y: p.y - 8, w: 16, h: 16 })),
      ...[...this.labels.values()].map((label) => label.rect),
    ];
    const left = Math.min(...boxes.map((box) => box.x)) - MARGIN;
    const top = Math.min(...boxes.map((box) => box.y)) - MARGIN;
    const width = Math.max(...boxes.map((box) => box.x + box.w)) + MARGIN - left;
    const height = Math.max(...boxes.map((box) => box.y + box.h)) + MARGIN - top;
    this.bounds = { left, top, width, height };
    this.root.setAttribute("viewBox", `${round(left)} ${round(top)} ${round(width)} ${round(height)}`);
    this.root.setAttribute("preserveAspectRatio", "xMidYMid meet");
    this.labelScale = null;

    this.root.append(
      svg("rect", {
        class: "board-ground",
        x: round(left),
        y: round(top),
        width: round(width),
        height: round(height),
      }),
    );
    this.drawPatterns();
    this.drawRhine();
    this.roadLayer = svg("g", { class: "roads" });
    this.lineLayer = svg("g", { class: "destination-lines", "aria-hidden": "true" });
    this.placeLayer = svg("g", { class: "places" });
    this.calloutLayer = svg("g", { class: "callouts", "aria-hidden": "true" });
    this.root.append(this.roadLayer, this.lineLayer, this.placeLayer, this.calloutLayer);
    for (const road of this.map.roads) this.drawRoad(road);
    this.orderRoads();
    this.drawPlaces();
    this.hovered = null;
    this.view = new Viewport(this.root, this.bounds, MAX_ZOOM, () => this.viewChanged());
    this.root.addEventListener("pointermove", (event) => {
      if (!this.view.dragging) this.hover(this.roadAt(event));
      else this.hover(null);
    });
    this.root.addEventListener("pointerleave", () => this.hover(null));
    // Where a finger was lifted. The browser may move a tap's click several pixels towards
    // what it takes for the nearest target (touch adjustment): on a phone's whole map that
    // is the other road of a double, or a neighbour. The road tapped is the one under the
    // finger.
    this.lifted = null;
    this.root.addEventListener("pointerup", (event) => {
      const { pointerType, pointerId, clientX, clientY } = event;
      const tap = pointerType !== "mouse" && !this.view.dragged; // a drag makes no click
      this.lifted = tap ? { pointerId, clientX, clientY } : null;
    });
    this.root.addEventListener("click", (event) => {
      const lifted = this.lifted;
      this.lifted = null;
      const roadId = this.roadAt(lifted && lifted.pointerId === event.pointerId ? lifted : event);
      this.hover(roadId);
      if (roadId !== null && this.buildable.has(roadId)) this.onActivate(roadId);
    });
    // A tap or click anywhere else closes the road's card (a touch leaves no hover to end).
    document.addEventListener("pointerdown", (event) => {
      if (this.root.contains(event.target) || this.tipRoad === null) return;
      this.hover(null);
      this.hideTip(this.tipRoad);
    });
    this.fitLabels(true);
    new ResizeObserver(() => this.fitLabels()).observe(this.root);
  }

  viewChanged() {
    this.root.dispatchEvent(new Event("zoomchange"));
    this.fitLabels();
    if (this.tipRoad !== null) this.hideTip(this.tipRoad);
  }

  // The place names at their size on the screen, those that would overlap a busier one's hidden.
  fitLabels(force = false) {
    if (!this.view || !this.labelNodes) return;
    // A little larger on the screen as the map grows, never smaller than at fit.
    const k = (LABEL_PIXELS * this.view.zoom ** 0.25) / (LABEL_FONT * this.view.scale());
    if (!force && this.labelScale !== null && Math.abs(k - this.labelScale) < 0.005) return;
    this.labelScale = k;
    const shown = [];
    const first = ({ group }) => {
      if (group.classList.contains("highlight-strong")) return 0;
      return group.classList.contains("highlight") ? 1 : 2;
    };
    const order = [...this.labelNodes].sort((a, b) => first(a) - first(b));
    for (const node of order) {
      const { place, label, rect } = node;
      const box = {
        x: place.x + (rect.x - place.x) * k,
        y: place.y + (rect.y - place.y) * k,
        w: rect.w * k,
        h: rect.h * k,
      };
      // A name grown past the map's edge moves back inside it.
      const { left, top, width, height } = this.bounds;
      const dx = Math.max(0, left - box.x) - Math.max(0, box.x + box.w - (left + width));
      const dy = Math.max(0, top - box.y) - Math.max(0, box.y + box.h - (top + height));
      box.x += dx;
      box.y += dy;
      const free = shown.every((other) => overlap(box, other) < 2 * k * k);
      if (free) shown.push(box);
      label.classList.toggle("crowded", !free);
      const scale = Math.round(k * 1000) / 1000;
      label.setAttribute(
        "transform",
        `matrix(${scale} 0 0 ${scale} ${round(place.x * (1 - k) + dx)} ${round(place.y * (1 - k) + dy)})`,
      );
    }
    if (this.rhineLabel) {
      const { x, y, angle } = this.rhineLabel;
      this.rhineLabel.node.setAttribute(
        "transform",
        `translate(${x} ${y}) scale(${round(k * 100) / 100}) rotate(${angle}) translate(${-x} ${-y})`,
      );
    }
    for (const callout of this.calloutLayer.children) {
      callout.setAttribute("transform", `${callout.dataset.at} scale(${round(k * 100) / 100})`);
    }
  }

  // Tab walks the roads in reading order: by bands from the top of the map, each from the left.
  orderRoads() {
    // A road's middle between its two places: both roads of a double share it.
    const middle = ({ road }) => {
      const a = this.places.get(road.a);
      const b = this.places.get(road.b);
      return [(a.x + b.x) / 2, (a.y + b.y) / 2];
    };
    const key = (entry) => {
      const [x, y] = middle(entry);
      return [Math.floor(y / READING_BAND), x, entry.road.id];
    };
    const sorted = [...this.roads.values()]
      .map((entry) => [key(entry), entry])
      .sort(([p], [q]) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2])
      .map(([, entry]) => entry);
    for (const entry of sorted) this.roadLayer.append(entry.group);
  }

  // The road nearest to a pointer event (or a point {clientX, clientY}), or null when none
  // runs close enough.
  roadAt(event) {
    const matrix = this.root.getScreenCTM();
    if (!matrix) return null;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    const scale = Math.hypot(matrix.a, matrix.b) || 1;
    let best = null;
    let bestDistance = Math.max(HIT_UNITS, HIT_PIXELS / scale);
    for (const [id, { segment }] of this.roads) {
      const distance = toSegment(point.x, point.y, segment);
      if (distance < bestDistance) {
        best = id;
        bestDistance = distance;
      }
    }
    return best;
  }

  hover(roadId) {
    if (roadId === this.hovered) return;
    if (this.hovered !== null) {
      this.roads.get(this.hovered).group.classList.remove("hover");
      this.hideTip(this.hovered);
    }
    this.hovered = roadId;
    this.root.classList.toggle("pointing", roadId !== null && this.buildable.has(roadId));
    if (roadId !== null) {
      this.roads.get(roadId).group.classList.add("hover");
      this.showTip(roadId);
    }
  }

  drawPatterns() {
    const patterns = Object.entries(PLAYER_PATTERNS).map(([color, shapes]) =>
      svg(
        "pattern",
        { id: `mark-${color}`, width: 6, height: 6, patternUnits: "userSpaceOnUse" },
        shapes.map(([tag, attrs]) => svg(tag, { class: `mark-shape mark-${color}`, ...attrs })),
      ),
    );
    this.root.append(svg("defs", {}, patterns));
  }

  drawRhine() {
    const points = this.map.rhine || [];
    if (points.length < 2) return;
    const line = points.map(([x, y]) => `${x},${y}`).join(" ");
    this.root.append(
      svg("polyline", { class: "rhine-bank", points: line, "aria-hidden": "true" }),
      svg("polyline", { class: "rhine", points: line, "aria-hidden": "true" }),
    );
    // Name the river on the long stretch farthest from any place.
    let best = null;
    for (let i = 0; i + 1 < points.length; i += 1) {
      const [x1, y1] = points[i];
      const [x2, y2] = points[i + 1];
      const mx = (x1 + x2) / 2;
      const my = (y1 + y2) / 2;
      if (!this.inside(mx, my, 30) || Math.hypot(x2 - x1, y2 - y1) < 50) continue;
      const room = Math.min(...this.map.locations.map((p) => Math.hypot(p.x - mx, p.y - my)));
      if (!best || room > best.room) best = { room, mx, my, x1, y1, x2, y2 };
    }
    if (best) {
      const angle = upright((Math.atan2(best.y2 - best.y1, best.x2 - best.x1) * 180) / Math.PI);
      const node = svg("text", {
        class: "rhine-label",
        x: round(best.mx),
        y: round(best.my),
        transform: `rotate(${round(angle)} ${round(best.mx)} ${round(best.my)})`,
        "text-anchor": "middle",
        "dominant-baseline": "central",
        "aria-hidden": "true",
        text: this.T.rhine,
      });
      this.root.append(node);
      this.rhineLabel = { node, x: round(best.mx), y: round(best.my), angle: round(angle) };
    }
  }

  inside(x, y, margin) {
    const { left, top, width, height } = this.bounds;
    return x > left + margin && x < left + width - margin && y > top + margin && y < top + height - margin;
  }

  drawRoad(road) {
    const a = this.places.get(road.a);
    const b = this.places.get(road.b);
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length = Math.hypot(dx, dy);
    const ux = dx / length;
    const uy = dy / length;
    let offset = 0;
    if (road.double_of !== null && road.double_of !== undefined) {
      offset = road.id < road.double_of ? -DOUBLE_OFFSET : DOUBLE_OFFSET;
    }
    const ox = -uy * offset;
    const oy = ux * offset;
    const step = (length - 2 * PLACE_GAP) / road.length;
    const wheelWidth = Math.max(step - WHEEL_GAP, 3);
    const angle = upright((Math.atan2(dy, dx) * 180) / Math.PI);

    const group = svg("g", { class: "road", "data-road": road.id });
    const point = (t) => [a.x + ux * t + ox, a.y + uy * t + oy];
    const line = (cls, start, end) => {
      const [x1, y1] = point(start);
      const [x2, y2] = point(end);
      return svg("line", { class: cls, x1: round(x1), y1: round(y1), x2: round(x2), y2: round(y2) });
    };
    group.append(line("road-halo", PLACE_GAP - 1, length - PLACE_GAP + 1));
    const wheels = [];
    for (let i = 0; i < road.length; i += 1) {
      const [cx, cy] = point(PLACE_GAP + step * (i + 0.5));
      const letter = svg("text", {
        class: "wheel-letter",
        "text-anchor": "middle",
        "dominant-baseline": "central",
        y: 0.4,
        "aria-hidden": "true", // the road's name says it
      });
      const wheel = svg(
        "g",
        { transform: `translate(${round(cx)} ${round(cy)}) rotate(${round(angle)})` },
        svg("rect", {
          x: round(-wheelWidth / 2),
          y: -WHEEL_HEIGHT / 2,
          width: round(wheelWidth),
          height: WHEEL_HEIGHT,
          rx: 1.6,
        }),
      );
      const mark = svg("rect", {
        class: "wheel-mark",
        x: round(-wheelWidth / 2),
        y: -WHEEL_HEIGHT / 2,
        width: round(wheelWidth),
        height: WHEEL_HEIGHT,
        rx: 1.6,
      });
      wheel.append(mark, letter);
      wheels.push({ wheel, letter, mark });
      group.append(wheel);
    }
    // Crosses out the road of a double that can no longer be built (R6.4).
    const strike = road.double_of !== null && road.double_of !== undefined;
    if (strike) group.append(line("road-strike", PLACE_GAP + 2, length - PLACE_GAP - 2));
    const [cx, cy] = point(length / 2);
    const center = { x: cx, y: cy };
    const [sx1, sy1] = point(PLACE_GAP);
    const [sx2, sy2] = point(length - PLACE_GAP);
    const segment = [sx1, sy1, sx2, sy2];
    group.addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && this.buildable.has(road.id)) {
        event.preventDefault();
        this.onActivate(road.id);
      }
    });
    group.addEventListener("focus", () => {
      // Tab may reach a road outside the part of the map in view: it comes into view. A road
      // focused by a click or a tap stays where it is: moved, it would leave the pointer
      // over another road, and the click that follows would take that one.
      const pressed = this.view.pointers.size > 0 || this.lifted !== null;
      const byPointer = pressed && !group.matches(":focus-visible");
      if (!byPointer && !this.view.shows(center.x, center.y, 24)) this.view.centreOn(center.x, center.y);
      this.showTip(road.id);
    });
    group.addEventListener("blur", () => this.hideTip(road.id));
    this.roadLayer.append(group);
    this.roads.set(road.id, { road, group, wheels, center, segment, tip: null });
  }

  // Each label goes where it hides the least: not over other labels, places or roads. The
  // most crowded places choose first.
  layoutLabels() {
    const measure = svg("text", { class: "place-label" });
    this.root.append(measure);
    const width = (text) => {
      measure.textContent = text;
      return measure.getComputedTextLength() || text.length * 7;
    };
    const segments = this.map.roads.map((road) => {
      const a = this.places.get(road.a);
      const b = this.places.get(road.b);
      return [a.x, a.y, b.x, b.y];
    });
    const degree = new Map(this.map.locations.map((place) => [place.id, 0]));
    for (const road of this.map.roads) {
      degree.set(road.a, degree.get(road.a) + 1);
      degree.set(road.b, degree.get(road.b) + 1);
    }
    const xs = this.map.locations.map((place) => place.x);
    const area = { x: Math.min(...xs) - 60, w: Math.max(...xs) - Math.min(...xs) + 120 };
    const dots = this.map.locations.map((p) => ({ id: p.id, x: p.x - 7, y: p.y - 7, w: 14, h: 14 }));
    const placed = [];
    this.labels = new Map();
    const order = [...this.map.locations].sort((a, b) => degree.get(b.id) - degree.get(a.id));
    for (const place of order) {
      const w = width(place.name);
      let best = null;
      for (const [dx, dy] of DIRECTIONS) {
        const x = place.x + dx * LABEL_DISTANCE;
        const y = place.y + dy * LABEL_DISTANCE;
        let anchor = "middle";
        let left = x - w / 2;
        if (dx > 0.38) {
          anchor = "start";
          left = x;
        } else if (dx < -0.38) {
          anchor = "end";
          left = x - w;
        }
        let baseline = "central";
        let top = y - LABEL_HEIGHT / 2;
        if (dy > 0.38) {
          baseline = "hanging";
          top = y;
        } else if (dy < -0.38) {
          baseline = "auto";
          top = y - LABEL_HEIGHT + 3;
        }
        const rect = { x: left, y: top, w, h: LABEL_HEIGHT };
        let cost = dy < -0.38 ? 0 : 2; // a slight preference for labels above their place
        for (const other of placed) cost += 4 * overlap(rect, other);
        for (const dot of dots) if (dot.id !== place.id) cost += 6 * overlap(rect, dot);
        const inner = { x: rect.x + 1, y: rect.y + 2, w: rect.w - 2, h: rect.h - 4 };
        for (const [x1, y1, x2, y2] of segments) if (crosses(inner, x1, y1, x2, y2)) cost += 60;
        if (rect.x < area.x || rect.x + rect.w > area.x + area.w) cost += 400;
        if (!best || cost < best.cost) best = { cost, anchor, baseline, x, y, rect };
      }
      placed.push(best.rect);
      this.labels.set(place.id, best);
    }
    measure.remove();
  }

  drawPlaces() {
    for (const place of this.map.locations) {
      const spot = this.labels.get(place.id);
      const ring = svg("circle", {
        class: "place-ring",
        cx: place.x,
        cy: place.y,
        r: PLACE_RADIUS + 6,
      });
      const label = svg("text", {
        class: "place-label",
        x: round(spot.x),
        y: round(spot.y),
        "text-anchor": spot.anchor,
        "dominant-baseline": spot.baseline,
        text: place.name,
      });
      const group = svg(
        "g",
        { class: "place", "data-place": place.id },
        ring,
        svg("circle", { class: "place-dot", cx: place.x, cy: place.y, r: PLACE_RADIUS }),
        label,
      );
      this.placeLayer.append(group);
      this.placeNodes.set(place.id, { group, ring, label });
    }
    // Busier places first: they keep their names where the map is crowded.
    this.labelNodes = [...this.labels.keys()].map((id) => ({
      place: this.places.get(id),
      label: this.placeNodes.get(id).label,
      group: this.placeNodes.get(id).group,
      rect: this.labels.get(id).rect,
    }));
  }

  // owners: Map road id -> player row; buildable: Set of road ids; players: how many sit at
  // the table (R6.4 closes the other road of a double at 2 or 3); why(road): the reason the
  // viewer cannot build a free road now, or "".
  update(owners, buildable, players, why = () => "") {
    this.buildable = buildable;
    const T = this.T;
    for (const entry of this.roads.values()) {
      const { road, group, wheels } = entry;
      const owner = owners.get(road.id);
      const color = owner ? owner.color : road.color;
      const letter = T.letters[color] || "";
      for (const { wheel, letter: text, mark } of wheels) {
        wheel.setAttribute("class", `wheel c-${color}${owner ? " built" : ""}`);
        text.textContent = letter;
        if (owner && PLAYER_PATTERNS[owner.color]) mark.setAttribute("fill", `url(#mark-${owner.color})`);
        else mark.removeAttribute("fill");
      }
      const other = road.double_of === null || road.double_of === undefined ? null : owners.get(road.double_of);
      const closed = !owner && Boolean(other) && players <= 3;
      const values = {
        a: this.places.get(road.a).name,
        b: this.places.get(road.b).name,
        length: road.length,
        color: T.colors[road.color] || road.color,
        points: road.points,
        name: owner ? owner.name : other ? other.name : "",
      };
      const canBuild = buildable.has(road.id);
      let label;
      let status;
      if (owner) {
        label = format(T.road_built, values);
        status = format(T.road_tip_built, values);
      } else {
        label = format(canBuild ? T.road_buildable : T.road, values);
        if (closed) status = format(T.road_closed, values);
        else if (other) status = format(T.road_double_open, values);
        else status = "";
        const reason = canBuild ? T.road_tip_build : closed ? "" : why(road);
        status = [status, reason].filter(Boolean).join(" ");
      }
      if (status && !owner) label = `${label}. ${status}`;
      const kind = format(road.length === 1 ? T.road_tip_kind_one : T.road_tip_kind, values);
      entry.tip = {
        title: format(T.card, values),
        kind: road.color === "grey" ? `${kind} ${T.road_tip_any_colour}` : kind,
        color: road.color,
        points: road.points === 1 ? T.road_tip_point : format(T.card_points, values),
        status,
      };
      group.classList.toggle("buildable", canBuild);
      group.classList.toggle("built", Boolean(owner));
      group.classList.toggle("closed", closed);
      group.classList.toggle("double-open", !owner && Boolean(other) && !closed);
      // Every road has a name for screen readers; the ones that can be built are buttons.
      group.setAttribute("aria-label", label);
      if (canBuild) {
        group.setAttribute("tabindex", "0");
        group.setAttribute("role", "button");
      } else {
        group.removeAttribute("tabindex");
        group.setAttribute("role", "img");
      }
    }
    this.root.classList.toggle("pointing", this.hovered !== null && buildable.has(this.hovered));
    if (this.tipRoad !== null && this.tipRoad !== undefined) this.showTip(this.tipRoad);
  }

  // The card under the pointer or focus: the road, its colour and length, what it is worth,
  // and who built it or why it cannot be built now.
  showTip(roadId) {
    const entry = this.roads.get(roadId);
    const tip = this.tip;
    if (!entry || !entry.tip || !tip) return;
    this.tipRoad = roadId;
    const { title, kind, color, points, status } = entry.tip;
    const lines = [
      h("strong", { class: "road-tip-title", text: title }),
      h(
        "span",
        { class: "road-tip-kind" },
        h("span", { class: `chip c-${color}`, "aria-hidden": "true", text: this.T.letters[color] || "" }),
        ` ${kind}`,
      ),
      h("span", { class: "road-tip-points", text: points }),
    ];
    if (status) lines.push(h("span", { class: "road-tip-status", text: status }));
    tip.replaceChildren(...lines);
    tip.hidden = false;
    // Above the road's part in view, kept inside the map's frame.
    const frame = tip.offsetParent ? tip.offsetParent.getBoundingClientRect() : { left: 0, top: 0, width: 0 };
    const seen = this.root.getBoundingClientRect();
    const road = entry.group.getBoundingClientRect();
    const box = {
      left: Math.max(road.left, seen.left),
      right: Math.min(road.right, seen.right),
      top: Math.max(road.top, seen.top),
      bottom: Math.min(road.bottom, seen.bottom),
    };
    const width = tip.offsetWidth;
    let left = (box.left + box.right) / 2 - frame.left - width / 2;
    left = Math.max(4, Math.min(left, frame.width - width - 4));
    // Above the road where the card fits inside the frame and the window (a road at the top
    // of a phone's screen has no room above it), else below it.
    const height = tip.offsetHeight;
    const windowHeight = document.documentElement.clientHeight;
    const above = box.top - frame.top - height - 6;
    const below = box.bottom - frame.top + 6;
    const fits = (at) => at >= 4 && frame.top + at >= 4 && frame.top + at + height <= windowHeight - 4;
    let top = below;
    if (fits(above)) top = above;
    else if (!fits(below) && above >= 4 && box.top > windowHeight - box.bottom) top = above;
    tip.style.left = `${Math.round(left)}px`;
    tip.style.top = `${Math.round(top)}px`;
  }

  hideTip(roadId) {
    if (this.tipRoad !== roadId || !this.tip) return;
    this.tipRoad = null;
    this.tip.hidden = true;
  }

  // The last move, for a few seconds: the road ringed, and who built it written beside it.
  flashRoad(roadId, name) {
    const entry = this.roads.get(roadId);
    if (!entry) return;
    window.clearTimeout(this.flashTimer);
    this.clearFlash();
    entry.group.classList.add("last-move");
    const { x, y } = entry.center;
    const width = Math.max(24, name.length * 6.5 + 10);
    const at = `translate(${round(x)} ${round(y - 16 * this.labelScale)})`;
    this.calloutLayer.append(
      svg(
        "g",
        { class: "callout", "data-at": at, transform: `${at} scale(${round(this.labelScale * 100) / 100})` },
        svg("rect", { x: round(-width / 2), y: -8, width: round(width), height: 16, rx: 4 }),
        svg("text", { "text-anchor": "middle", "dominant-baseline": "central", text: name }),
      ),
    );
    this.flashTimer = window.setTimeout(() => this.clearFlash(), LAST_MOVE_MS);
  }

  clearFlash() {
    for (const { group } of this.roads.values()) group.classList.remove("last-move");
    this.calloutLayer.replaceChildren();
  }

  focusRoad(roadId) {
    const entry = this.roads.get(roadId);
    if (entry && entry.group.hasAttribute("tabindex")) entry.group.focus();
  }

  // cards: [{a, b, strong}] -> ring both places and join them with a dashed line.
  setHighlights(cards) {
    for (const node of this.placeNodes.values()) {
      node.group.classList.remove("highlight", "highlight-strong");
    }
    this.lineLayer.replaceChildren();
    for (const card of cards) {
      const a = this.places.get(card.a);
      const b = this.places.get(card.b);
      if (!a || !b) continue;
      for (const id of [card.a, card.b]) {
        this.placeNodes.get(id).group.classList.add(card.strong ? "highlight-strong" : "highlight");
      }
      this.lineLayer.append(
        svg("line", {
          class: card.strong ? "destination-line strong" : "destination-line",
          x1: a.x,
          y1: a.y,
          x2: b.x,
          y2: b.y,
        }),
      );
    }
    this.fitLabels(true); // the places of the cards keep their names first
  }

  // paths: [{roads: [ids], color}] -> those roads outlined in the player's colour.
  setPaths(paths) {
    for (const { group } of this.roads.values()) {
      group.classList.remove("on-path");
      for (const name of [...group.classList]) {
        if (name.startsWith("path-")) group.classList.remove(name);
      }
    }
    for (const path of paths) {
      for (const id of path.roads) {
        const entry = this.roads.get(id);
        if (entry) entry.group.classList.add("on-path", `path-${path.color}`);
      }
    }
  }
}
