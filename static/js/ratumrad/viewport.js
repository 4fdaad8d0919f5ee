// The part of the map in view: a zoom and a centre, written into the SVG's viewBox (the
// element keeps its size). The pointer drags the map, a wheel or two fingers zoom it about
// the point under them, and a drag is never taken for a tap.
const DRAG_PIXELS = 6; // a pointer that moved farther than this between down and up dragged
const WHEEL_STEP = 0.0015; // zoom factor per pixel of wheel travel (exponential)

export class Viewport {
  // bounds: {left, top, width, height} of the whole map; onChange(): after every change.
  constructor(root, bounds, maxZoom, onChange) {
    this.root = root;
    this.bounds = bounds;
    this.maxZoom = maxZoom;
    this.onChange = onChange;
    this.zoom = 1;
    this.cx = bounds.left + bounds.width / 2;
    this.cy = bounds.top + bounds.height / 2;
    this.pointers = new Map(); // pointer id -> {x, y} while down
    this.start = null; // where the first pointer went down
    this.dragged = false; // the last press moved: its click is no tap
    this.apply();
    root.addEventListener("pointerdown", (event) => this.down(event));
    root.addEventListener("pointermove", (event) => this.move(event));
    for (const type of ["pointerup", "pointercancel"]) {
      root.addEventListener(type, (event) => this.up(event));
    }
    root.addEventListener("wheel", (event) => this.wheel(event), { passive: false });
    // A finger that drags or pinches the map moves it, and nothing else: the browser must not
    // read the gesture as a scroll of its own. A quick drag would otherwise end in a fling
    // that scrolls nothing (touch-action forbids it) yet runs on unseen for a while,
    // and the browser takes the next tap in that time for one that stops the fling: no click,
    // no road's card.
    root.addEventListener(
      "touchmove",
      (event) => {
        if (event.cancelable && this.movesMap()) event.preventDefault();
      },
      { passive: false },
    );
    // A click that ends a drag must not reach the roads' handler.
    root.addEventListener(
      "click",
      (event) => {
        if (this.dragged) {
          event.stopImmediatePropagation();
          this.dragged = false;
        }
      },
      { capture: true },
    );
  }

  // The map point under a point of the screen.
  toMap(clientX, clientY) {
    const matrix = this.root.getScreenCTM();
    if (!matrix) return { x: this.cx, y: this.cy };
    const point = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
    return { x: point.x, y: point.y };
  }

  // Screen pixels per map unit.
  scale() {
    const matrix = this.root.getScreenCTM();
    return matrix ? Math.hypot(matrix.a, matrix.b) || 1 : 1;
  }

  get dragging() {
    return this.dragged && this.pointers.size > 0;
  }

  // Is the finger's move the map's own, not the page's? Zoomed in, one finger drags the map;
  // two fingers pinch it at any zoom. At the whole map's size one finger scrolls the page up
  // and down (touch-action: pan-y), and a sideways move scrolls nothing: that one is the map's.
  movesMap() {
    if (!this.dragging) return false;
    if (this.zoom > 1 || this.pointers.size > 1) return true;
    const [now] = this.pointers.values();
    return Math.abs(now.x - this.start.x) > Math.abs(now.y - this.start.y);
  }

  apply() {
    const { left, top, width, height } = this.bounds;
    const w = width / this.zoom;
    const hgt = height / this.zoom;
    this.cx = Math.max(left + w / 2, Math.min(left + width - w / 2, this.cx));
    this.cy = Math.max(top + hgt / 2, Math.min(top + height - hgt / 2, this.cy));
    const box = [this.cx - w / 2, this.cy - hgt / 2, w, hgt].map((v) => Math.round(v * 100) / 100);
    this.root.setAttribute("viewBox", box.join(" "));
    this.root.classList.toggle("zoomed", this.zoom > 1);
    this.onChange();
  }

  // To `level`, keeping the map point under (clientX, clientY) where it is; without a point,
  // about the centre of the view.
  zoomTo(level, clientX = null, clientY = null) {
    const zoom = Math.max(1, Math.min(this.maxZoom, level));
    if (zoom === this.zoom) return false;
    if (clientX === null) {
      this.zoom = zoom;
      this.apply();
      return true;
    }
    const before = this.toMap(clientX, clientY);
    this.zoom = zoom;
    this.apply();
    const after = this.toMap(clientX, clientY);
    this.cx += before.x - after.x;
    this.cy += before.y - after.y;
    this.apply();
    return true;
  }

  centreOn(x, y) {
    this.cx = x;
    this.cy = y;
    this.apply();
  }

  // Is the map point in view, `margin` screen pixels inside the frame?
  shows(x, y, margin = 0) {
    const inset = margin / this.scale();
    const [left, top, w, hgt] = this.root.getAttribute("viewBox").split(" ").map(Number);
    return x > left + inset && x < left + w - inset && y > top + inset && y < top + hgt - inset;
  }

  panBy(dx, dy) {
    const scale = this.scale();
    this.cx -= dx / scale;
    this.cy -= dy / scale;
    this.apply();
  }

  down(event) {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    if (this.pointers.size === 0) {
      this.dragged = false;
      this.start = { x: event.clientX, y: event.clientY };
    }
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (this.pointers.size > 1) this.dragged = true; // two fingers: a pinch, not a tap
  }

  move(event) {
    const last = this.pointers.get(event.pointerId);
    if (!last) return;
    const now = { x: event.clientX, y: event.clientY };
    if (!this.dragged && Math.hypot(now.x - this.start.x, now.y - this.start.y) > DRAG_PIXELS) {
      this.dragged = true;
      try {
        this.root.setPointerCapture(event.pointerId);
      } catch {
        // the pointer is gone already
      }
    }
    if (this.pointers.size === 2) {
      const [other] = [...this.pointers].filter(([id]) => id !== event.pointerId).map(([, p]) => p);
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(now.x - other.x, now.y - other.y);
      this.pointers.set(event.pointerId, now);
      if (before > 0) this.zoomTo(this.zoom * (after / before), (now.x + other.x) / 2, (now.y + other.y) / 2);
      this.panBy((now.x - last.x) / 2, (now.y - last.y) / 2);
      return;
    }
    this.pointers.set(event.pointerId, now);
    if (this.dragged && this.pointers.size === 1) this.panBy(now.x - last.x, now.y - last.y);
  }

  up(event) {
    this.pointers.delete(event.pointerId);
  }

  wheel(event) {
    const lines = [1, 16, 400][event.deltaMode] || 1; // pixels, lines or pages
    const pixels = event.deltaY * lines;
    // Only a wheel that changes the map's size stays with the map: at its limits the page scrolls.
    if (this.zoomTo(this.zoom * Math.exp(-pixels * WHEEL_STEP), event.clientX, event.clientY)) {
      event.preventDefault();
    }
  }
}
