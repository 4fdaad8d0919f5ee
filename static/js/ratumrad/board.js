// The Basel board as SVG: the Rhine, the places, every road as its wheel spaces.
import { format, svg } from "../game/dom.js";

const MARGIN = 8; // map units around everything drawn
const PLACE_RADIUS = 5.5;
const PLACE_GAP = 8; // free map units between a place and the first wheel space of a road
const WHEEL_HEIGHT = 9;
const WHEEL_GAP = 2.4; // between two wheel spaces of one road
const DOUBLE_OFFSET = WHEEL_HEIGHT / 2 + 1.2; // each road of a double, off the centre line
const LABEL_DISTANCE = 9;
const LABEL_HEIGHT = 13;
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

export class BoardView {
  constructor(root, map, strings, onActivate) {
    this.root = root;
    this.map = map;
    this.T = strings;
    this.onActivate = onActivate;
    this.places = new Map(map.locations.map((place) => [place.id, place]));
    this.roads = new Map(); // road id -> {road, group, wheels, title}
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

    this.root.append(
      svg("rect", {
        class: "board-ground",
        x: round(left),
        y: round(top),
        width: round(width),
        height: round(height),
      }),
    );
    this.drawRhine();
    this.roadLayer = svg("g", { class: "roads" });
    this.lineLayer = svg("g", { class: "destination-lines", "aria-hidden": "true" });
    this.placeLayer = svg("g", { class: "places" });
    this.root.append(this.roadLayer, this.lineLayer, this.placeLayer);
    for (const road of this.map.roads) this.drawRoad(road);
    this.drawPlaces();
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
      this.root.append(
        svg("text", {
          class: "rhine-label",
          x: round(best.mx),
          y: round(best.my),
          transform: `rotate(${round(angle)} ${round(best.mx)} ${round(best.my)})`,
          "text-anchor": "middle",
          "dominant-baseline": "central",
          "aria-hidden": "true",
          text: this.T.rhine,
        }),
      );
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

    const title = svg("title");
    const group = svg("g", { class: "road", "data-road": road.id }, title);
    const point = (t) => [a.x + ux * t + ox, a.y + uy * t + oy];
    const [x1, y1] = point(PLACE_GAP - 1);
    const [x2, y2] = point(length - PLACE_GAP + 1);
    group.append(
      svg("line", {
        class: "road-halo",
        x1: round(x1),
        y1: round(y1),
        x2: round(x2),
        y2: round(y2),
      }),
    );
    const wheels = [];
    for (let i = 0; i < road.length; i += 1) {
      const [cx, cy] = point(PLACE_GAP + step * (i + 0.5));
      const letter = svg("text", {
        class: "wheel-letter",
        "text-anchor": "middle",
        "dominant-baseline": "central",
        y: 0.4,
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
        letter,
      );
      wheels.push({ wheel, letter });
      group.append(wheel);
    }
    group.addEventListener("click", () => {
      if (this.buildable.has(road.id)) this.onActivate(road.id);
    });
    group.addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && this.buildable.has(road.id)) {
        event.preventDefault();
        this.onActivate(road.id);
      }
    });
    this.roadLayer.append(group);
    this.roads.set(road.id, { road, group, wheels, title });
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
  }

  // owners: Map road id -> player row; buildable: Set of road ids.
  update(owners, buildable) {
    this.buildable = buildable;
    const T = this.T;
    for (const { road, group, wheels, title } of this.roads.values()) {
      const owner = owners.get(road.id);
      const color = owner ? owner.color : road.color;
      const letter = T.letters[color] || "";
      for (const { wheel, letter: text } of wheels) {
        wheel.setAttribute("class", `wheel c-${color}${owner ? " built" : ""}`);
        text.textContent = letter;
      }
      const values = {
        a: this.places.get(road.a).name,
        b: this.places.get(road.b).name,
        length: road.length,
        color: T.colors[road.color] || road.color,
        points: road.points,
        name: owner ? owner.name : "",
      };
      const canBuild = buildable.has(road.id);
      let label;
      if (owner) label = format(T.road_built, values);
      else if (canBuild) label = format(T.road_buildable, values);
      else label = format(T.road, values);
      title.textContent = label;
      group.classList.toggle("buildable", canBuild);
      group.classList.toggle("built", Boolean(owner));
      if (canBuild) {
        group.setAttribute("tabindex", "0");
        group.setAttribute("role", "button");
        group.setAttribute("aria-label", label);
      } else {
        group.removeAttribute("tabindex");
        group.removeAttribute("role");
        group.removeAttribute("aria-label");
      }
    }
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
