// Road to 300's table on the game page: the 6x6 grid with its crosses and circles, the dice,
// the round, the score and the failed rolls, every legal turn lit (T3.1: the cell to cross,
// then the cell where the move ends, with its path drawn, then a confirm), the hint, the
// history of rounds to step through (T3.2) and the end screen's own columns and scoring cells.
// The markup is templates/games/road300/table.html (its strings are the data- attributes of
// #road300-strings); the shell (static/js/shell.js) calls createTable once and render(state,
// view) on every change. Everything drawn is classes and SVG attributes (no inline style).
import { format, h, svg } from "../game/dom.js";
import { inPlay } from "../game/state.js";

const SIZE = 6;
const $ = (id) => document.getElementById(id);
const keyOf = (cell) => `${cell[0]},${cell[1]}`;
const same = (a, b) => Boolean(a && b && a[0] === b[0] && a[1] === b[1]);
const cellText = (cell) => (cell ? `(${cell[0]}, ${cell[1]})` : "–");
const diceText = (dice) => (dice || []).join(" ");

// The pips of a die's face, on a 3x3 layout (0..2 by 0..2).
const PIPS = {
  1: [[1, 1]],
  2: [[0, 0], [2, 2]],
  3: [[0, 0], [1, 1], [2, 2]],
  4: [[0, 0], [2, 0], [0, 2], [2, 2]],
  5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
  6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]],
};

function readStrings(node) {
  const strings = {};
  if (node) for (const [name, value] of Object.entries(node.dataset)) strings[name] = value;
  return strings;
}

function dieFace(value, label, extra) {
  const face = svg(
    "svg",
    { class: "r3-die-face", viewBox: "0 0 30 30", "aria-hidden": "true", focusable: "false" },
    svg("rect", { class: "r3-die-body", x: 1, y: 1, width: 28, height: 28, rx: 5, ry: 5 }),
    (PIPS[value] || []).map(([col, row]) =>
      svg("circle", { class: "r3-pip", cx: 8 + col * 7, cy: 8 + row * 7, r: 2.6 }),
    ),
  );
  return h("span", { class: `r3-die ${extra || ""}`.trim(), role: "img", "aria-label": label }, face);
}

export function createTable({ root, userId, send }) {
  const S = readStrings($("road300-strings"));
  const gameId = root.dataset.gameId;
  const grid = $("r3-grid");
  const overlay = $("r3-overlay");

  let state = null;
  let busy = false;
  let seq = null; // the state's seq the choice below belongs to
  let chosenCross = null; // the cell to cross, once chosen
  let chosenTo = null; // the end of the move, once chosen (waiting for the confirm)
  let hoverTo = null; // the end cell under the pointer or the focus
  let hint = null; // {seq, move, path}
  let hintPending = false;
  let past = null; // null: the game as it stands; k: the grid after round k of the history
  let focusKey = null; // the cell with tabindex 0 (roving focus)
  let historyShown = -1; // history entries listed
  let litSignature = ""; // the lit cells, to notice when others light up

  // ---------------------------------------------------------------- the cells (built once)

  const cells = new Map();
  for (let y = 1; y <= SIZE; y += 1) {
    for (let x = 1; x <= SIZE; x += 1) {
      const button = h(
        "button",
        { type: "button", class: "r3-cell", "data-x": x, "data-y": y, tabindex: "-1" },
        h("span", { class: "r3-value" }),
      );
      cells.set(`${x},${y}`, button);
      grid.append(button);
    }
  }
  focusKey = "1,1";
  cells.get(focusKey).tabIndex = 0;

  const layers = {
    marks: svg("g", { class: "r3-marks" }),
    path: svg("g", { class: "r3-path-layer" }),
    hint: svg("g", { class: "r3-hint-layer" }),
    token: svg("g", { class: "r3-token-layer" }),
  };
  overlay.append(layers.marks, layers.hint, layers.path, layers.token);

  // ---------------------------------------------------------------- reading the state

  function seated(current) {
    return Boolean(current.you) && current.you.player_id === userId;
  }

  function mine(current) {
    return seated(current) && inPlay(current) && (current.legal || []).length > 0;
  }

  function over(current) {
    return current.status === "FINISHED" && Array.isArray(current.results);
  }

  function valueOf(cell) {
    const row = (state.grid || [])[cell[1] - 1];
    return row ? row[cell[0] - 1] : "";
  }

  // The legal entries (with their paths) by crossed cell.
  function turns() {
    const legal = state.legal || [];
    const paths = state.paths || [];
    return legal.map((move, index) => ({ move, path: paths[index] || [move.to] }));
  }

  function crossCells() {
    const found = new Map();
    for (const { move } of turns()) found.set(keyOf(move.cross), move.cross);
    return found;
  }

  function endsOf(cross) {
    const found = new Map();
    for (const entry of turns()) if (same(entry.move.cross, cross)) found.set(keyOf(entry.move.to), entry);
    return found;
  }

  function crossingOf(cross) {
    return (state.crossings || []).find((entry) => same(entry.cross, cross)) || null;
  }

  // The grid after round k of the history (T3.2): crossed = cross and standing of the rounds
  // up to k, circled = their ends.
  function pastGrid(k) {
    const history = state.history || [];
    const crossed = [];
    const circled = [];
    let position = null;
    let before = null;
    for (const entry of history.slice(0, k)) {
      before = position;
      if (entry.cross) crossed.push(entry.cross);
      if (entry.standing) crossed.push(entry.standing);
      if (entry.to) {
        circled.push(entry.to);
        position = entry.to;
      }
    }
    const last = k > 0 ? history[k - 1] : null;
    const crossedKeys = new Set(crossed.map(keyOf));
    const score = circled.filter((cell) => crossedKeys.has(keyOf(cell))).reduce((sum, cell) => sum + Number(valueOf(cell) || 0), 0);
    const rolls = last ? last.rolls || [] : [];
    return {
      crossed,
      circled,
      position,
      round: last ? last.round : 0,
      score,
      dice: rolls.length ? rolls[rolls.length - 1] : null,
      rolls,
      path: last && last.path ? { start: before, cells: last.path } : null,
      crossedNow: last ? last.cross : null,
    };
  }

  // ---------------------------------------------------------------- rendering

  function render(next, view = {}) {
    state = next;
    busy = Boolean(view.busy);
    if (state.seq !== seq) {
      seq = state.seq;
      chosenCross = null;
      chosenTo = null;
      hoverTo = null;
    }
    if (hint && hint.seq !== state.seq) {
      hint = null;
      $("r3-hint-text").textContent = "";
    }
    const history = state.history || [];
    if (past !== null && past > history.length) past = null;
    draw();
  }

  function draw() {
    const live = past === null;
    const shown = live
      ? {
          crossed: state.crossed || [],
          circled: state.circled || [],
          position: state.position,
          round: state.round,
          score: state.score,
          dice: state.dice,
          rolls: state.rolls || [],
          path: null,
          crossedNow: null,
        }
      : pastGrid(past);
    const playing = live && mine(state);
    const lit = new Map();
    let ends = new Map();
    if (playing && !busy) {
      if (chosenCross) {
        ends = endsOf(chosenCross);
        for (const [key, entry] of ends) lit.set(key, entry.move.to);
      } else {
        for (const [key, cell] of crossCells()) lit.set(key, cell);
      }
    }
    let path = shown.path;
    if (live && !chosenCross) {
      // The last round's move, faintly, until a new one is chosen.
      const history = state.history || [];
      const last = history[history.length - 1];
      const before = history.length > 1 ? history[history.length - 2].to : null;
      if (last && last.path) path = { start: before, cells: last.path, last: true };
    }
    const pathEnd = hoverTo && ends.has(keyOf(hoverTo)) ? hoverTo : chosenTo;
    if (live && chosenCross && pathEnd && ends.has(keyOf(pathEnd))) {
      path = { start: state.position, cells: ends.get(keyOf(pathEnd)).path, live: true };
    }
    const scored = new Set();
    if (live && over(state)) {
      const row = state.results.find((entry) => entry.player === userId) || state.results[0];
      for (const cell of (row && row.cells) || []) scored.add(keyOf(cell));
    }
    drawBar(shown, live);
    drawCells(shown, lit, scored, live);
    drawOverlay(shown, path, scored, live);
    drawControls(playing);
    drawHint();
    drawHistory();
    drawEnd();
  }

  function drawBar(shown, live) {
    const dice = shown.dice || [];
    let moving = -1;
    const crossing = live && chosenCross ? crossingOf(chosenCross) : null;
    if (crossing) moving = dice.indexOf(crossing.die);
    const faces = dice.map((value, index) => {
      let extra = "";
      let label = format(S.die, { value });
      if (moving >= 0) {
        extra = index === moving ? "r3-die-moves" : "r3-die-pair";
        label = format(index === moving ? S.dieMoves : S.diePair, { value });
      }
      return dieFace(value, label, extra);
    });
    if (!faces.length) faces.push(h("span", { class: "r3-no-dice", text: S.noDice }));
    $("r3-dice").replaceChildren(...faces);
    $("r3-round").textContent = shown.round || "–";
    $("r3-score").textContent = shown.score ?? 0;
    const rolls = shown.rolls || [];
    const failedBefore = live ? state.failed_rolls || 0 : Math.max(0, rolls.length - 1);
    $("r3-failed").textContent = `${failedBefore} / 3`;
    $("r3-failed").classList.toggle("r3-warn", failedBefore >= 2);
    const failed = rolls.slice(0, -1);
    const note = $("r3-rolls");
    note.hidden = failed.length === 0;
    note.textContent = failed.length ? format(S.rollsFailed, { rolls: failed.map(diceText).join(", ") }) : "";
  }

  function drawCells(shown, lit, scored, live) {
    const crossed = new Set(shown.crossed.map(keyOf));
    const circled = new Set(shown.circled.map(keyOf));
    const standing = shown.position ? keyOf(shown.position) : null;
    const hintCross = live && hint ? keyOf(hint.move.cross) : null;
    const hintTo = live && hint ? keyOf(hint.move.to) : null;
    const chosen = live && chosenCross ? keyOf(chosenCross) : null;
    const target = live && chosenTo ? keyOf(chosenTo) : null;
    grid.classList.toggle("r3-past", !live);
    grid.classList.toggle("r3-busy", busy);
    for (const [key, button] of cells) {
      const cell = [Number(button.dataset.x), Number(button.dataset.y)];
      const value = valueOf(cell);
      const flags = {
        "r3-crossed": crossed.has(key),
        "r3-circled": circled.has(key),
        "r3-standing": key === standing,
        "r3-lit": lit.has(key),
        "r3-chosen": key === chosen,
        "r3-target": key === target,
        "r3-scored": scored.has(key),
        "r3-hint": key === hintCross || key === hintTo,
        "r3-corner": value === 30,
        "r3-high": value >= 20 && value < 30,
      };
      for (const [name, on] of Object.entries(flags)) button.classList.toggle(name, on);
      const value_ = button.firstChild;
      if (value_.textContent !== String(value)) value_.textContent = String(value);
      const words = [format(S.cell, { x: cell[0], y: cell[1], value })];
      if (flags["r3-crossed"]) words.push(S.cellCrossed);
      if (flags["r3-circled"]) words.push(S.cellCircled);
      if (flags["r3-standing"]) words.push(S.cellStanding);
      if (flags["r3-chosen"]) words.push(S.cellChosen);
      else if (flags["r3-lit"]) words.push(chosen ? S.cellCanEnd : S.cellCanCross);
      if (flags["r3-target"]) words.push(S.cellTarget);
      if (flags["r3-scored"]) words.push(S.cellScored);
      if (flags["r3-hint"]) words.push(S.cellHint);
      button.setAttribute("aria-label", words.join(", "));
      const usable = flags["r3-lit"] || flags["r3-chosen"];
      button.setAttribute("aria-disabled", usable ? "false" : "true");
      if (flags["r3-chosen"] || flags["r3-target"]) button.setAttribute("aria-pressed", "true");
      else button.removeAttribute("aria-pressed");
    }
    // When other cells light up, the roving focus goes to one of them if it is on none.
    const signature = [...lit.keys()].join(";");
    if (signature === litSignature) return;
    litSignature = signature;
    if (lit.size && !lit.has(focusKey) && focusKey !== chosen) {
      const wasFocused = document.activeElement === cells.get(focusKey);
      setFocusKey(lit.keys().next().value, wasFocused);
    }
  }

  function setFocusKey(key, focus) {
    if (!cells.has(key)) return;
    cells.get(focusKey).tabIndex = -1;
    focusKey = key;
    const button = cells.get(key);
    button.tabIndex = 0;
    if (focus) button.focus();
  }

  const centre = (cell) => [cell[0] - 0.5, cell[1] - 0.5];

  // The point a path starts from: the standing cell, or the grid's edge by the corner (round 1).
  function startPoint(start, first) {
    if (start) return centre(start);
    const [x, y] = centre(first);
    return [first[0] === 1 ? 0 : first[0] === SIZE ? SIZE : x, first[1] === 1 ? 0 : first[1] === SIZE ? SIZE : y];
  }

  function pathNode(path, kind) {
    if (!path || !path.cells || !path.cells.length) return [];
    const points = [startPoint(path.start, path.cells[0]), ...path.cells.map(centre)];
    const nodes = [
      svg("polyline", {
        class: `r3-path ${kind}`,
        points: points.map((point) => point.join(",")).join(" "),
        fill: "none",
        "stroke-width": 0.09,
        "stroke-linecap": "round",
        "stroke-linejoin": "round",
      }),
    ];
    path.cells.forEach((cell, index) => {
      const [cx, cy] = centre(cell);
      const last = index === path.cells.length - 1;
      nodes.push(svg("circle", { class: `r3-step-dot ${kind}`, cx, cy, r: last ? 0.14 : 0.08 }));
    });
    return nodes;
  }

  function drawOverlay(shown, path, scored, live) {
    const marks = [];
    for (const cell of shown.circled) {
      const [cx, cy] = centre(cell);
      const kind = scored.has(keyOf(cell)) ? "r3-ring r3-ring-scored" : "r3-ring";
      marks.push(svg("circle", { class: kind, cx, cy, r: 0.36, fill: "none", "stroke-width": 0.06 }));
    }
    for (const cell of shown.crossed) {
      const [cx, cy] = centre(cell);
      const d = 0.3;
      const kind = same(cell, shown.crossedNow) ? "r3-x r3-x-new" : "r3-x";
      marks.push(
        svg("line", { class: kind, x1: cx - d, y1: cy - d, x2: cx + d, y2: cy + d, "stroke-width": 0.05, "stroke-linecap": "round" }),
        svg("line", { class: kind, x1: cx - d, y1: cy + d, x2: cx + d, y2: cy - d, "stroke-width": 0.05, "stroke-linecap": "round" }),
      );
    }
    if (live && chosenCross) {
      const [cx, cy] = centre(chosenCross);
      const d = 0.3;
      marks.push(
        svg("line", { class: "r3-x r3-x-chosen", x1: cx - d, y1: cy - d, x2: cx + d, y2: cy + d, "stroke-width": 0.05, "stroke-linecap": "round" }),
        svg("line", { class: "r3-x r3-x-chosen", x1: cx - d, y1: cy + d, x2: cx + d, y2: cy - d, "stroke-width": 0.05, "stroke-linecap": "round" }),
      );
    }
    layers.marks.replaceChildren(...marks);
    let pathKind = "r3-path-past";
    if (path && path.live) pathKind = "r3-path-live";
    else if (path && path.last) pathKind = "r3-path-last";
    layers.path.replaceChildren(...pathNode(path, pathKind));
    layers.hint.replaceChildren(...(live && hint ? pathNode({ start: state.position, cells: hint.path }, "r3-path-hint") : []));
    const token = [];
    if (shown.position) {
      const [cx, cy] = centre(shown.position);
      token.push(svg("circle", { class: "r3-token", cx, cy: cy + 0.22, r: 0.1 }));
    }
    layers.token.replaceChildren(...token);
  }

  function drawControls(playing) {
    const step = $("r3-step");
    const back = $("r3-back");
    const confirm = $("r3-confirm");
    let text = "";
    if (past === null && seated(state) && inPlay(state)) {
      if (busy) text = S.stepBusy;
      else if (!chosenCross) text = S.stepCross;
      else if (!chosenTo) {
        const crossing = crossingOf(chosenCross);
        text = format(S.stepTo, { cell: cellText(chosenCross), die: crossing ? crossing.die : "" });
      } else text = format(S.stepConfirm, { to: cellText(chosenTo), value: valueOf(chosenTo) });
    } else if (past === null && !seated(state) && inPlay(state)) text = S.stepWatch;
    if (step.textContent !== text) step.textContent = text;
    step.hidden = !text;
    $("r3-help").hidden = !(past === null && seated(state) && inPlay(state));
    back.hidden = !(playing && chosenCross);
    back.disabled = busy;
    confirm.hidden = !playing;
    confirm.disabled = busy || !chosenTo;
  }

  // ---------------------------------------------------------------- choosing a turn

  function choose(cell) {
    if (busy || past !== null || !mine(state)) return;
    const crosses = crossCells();
    if (!chosenCross) {
      if (crosses.has(keyOf(cell))) {
        chosenCross = cell;
        chosenTo = null;
        draw();
      }
      return;
    }
    if (same(cell, chosenCross)) {
      back();
      return;
    }
    const ends = endsOf(chosenCross);
    if (ends.has(keyOf(cell))) {
      if (same(cell, chosenTo)) confirmTurn();
      else {
        chosenTo = cell;
        draw();
      }
    }
  }

  function back() {
    if (chosenTo) chosenTo = null;
    else if (chosenCross) {
      const key = keyOf(chosenCross);
      chosenCross = null;
      if (grid.contains(document.activeElement)) setFocusKey(key, true);
    } else return false;
    hoverTo = null;
    draw();
    return true;
  }

  function confirmTurn() {
    if (busy || !chosenCross || !chosenTo) return;
    const entry = (state.legal || []).find((move) => same(move.cross, chosenCross) && same(move.to, chosenTo));
    if (entry) send(entry);
  }

  function cellOf(target) {
    const button = target instanceof Element ? target.closest(".r3-cell") : null;
    return button ? [Number(button.dataset.x), Number(button.dataset.y)] : null;
  }

  grid.addEventListener("click", (event) => {
    const cell = cellOf(event.target);
    if (!cell) return;
    setFocusKey(keyOf(cell), false);
    choose(cell);
  });

  function hover(cell) {
    const next = cell && chosenCross && endsOf(chosenCross).has(keyOf(cell)) ? cell : null;
    if (!same(next, hoverTo) && (next || hoverTo)) {
      hoverTo = next;
      draw();
    }
  }

  grid.addEventListener("pointerover", (event) => hover(cellOf(event.target)));
  grid.addEventListener("pointerleave", () => hover(null));
  grid.addEventListener("focusin", (event) => {
    const cell = cellOf(event.target);
    if (cell && keyOf(cell) !== focusKey) setFocusKey(keyOf(cell), false);
    hover(cell);
  });

  const MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  grid.addEventListener("keydown", (event) => {
    const cell = cellOf(event.target);
    if (!cell) return;
    let next = null;
    if (MOVES[event.key]) {
      const [dx, dy] = MOVES[event.key];
      next = [Math.min(SIZE, Math.max(1, cell[0] + dx)), Math.min(SIZE, Math.max(1, cell[1] + dy))];
    } else if (event.key === "Home") next = [1, cell[1]];
    else if (event.key === "End") next = [SIZE, cell[1]];
    if (next) {
      event.preventDefault();
      setFocusKey(keyOf(next), true);
    }
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    if (document.querySelector("dialog[open]")) return;
    if (back()) event.preventDefault();
  });

  $("r3-back").addEventListener("click", back);
  $("r3-confirm").addEventListener("click", confirmTurn);

  // ---------------------------------------------------------------- the hint

  function drawHint() {
    const panel = $("r3-hint-panel");
    const options = state.options || {};
    panel.hidden = !(seated(state) && inPlay(state) && !options.daily);
    $("r3-hint-button").disabled = busy || hintPending || !mine(state) || past !== null;
  }

  async function askHint() {
    if (hintPending || !state) return;
    const askedFor = state.seq;
    const text = $("r3-hint-text");
    hintPending = true;
    text.textContent = S.hintLoading;
    draw();
    try {
      const response = await fetch(`/api/games/${gameId}/hint/`, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      let body = null;
      try {
        body = await response.json();
      } catch {
        body = null;
      }
      if (response.ok && body && body.move) {
        const answerSeq = body.seq ?? askedFor;
        if (answerSeq === state.seq) {
          hint = { seq: state.seq, move: body.move, path: body.path || [body.move.to] };
          text.textContent = format(S.hintCross, { cell: cellText(body.move.cross), to: cellText(body.move.to) });
        } else text.textContent = "";
      } else if (body && body.message) {
        text.textContent = format(S.hintFailed, { message: body.message });
      } else {
        text.textContent = S.hintMissing;
      }
    } catch {
      text.textContent = S.hintMissing;
    } finally {
      hintPending = false;
      if (state) draw();
    }
  }

  $("r3-hint-button").addEventListener("click", askHint);

  // ---------------------------------------------------------------- the history (T3.2)

  function historyLine(entry) {
    const rolls = (entry.rolls || []).map(diceText).join(", ");
    if (!entry.cross) return format(S.historyEnd, { round: entry.round, rolls });
    return format(S.historyRound, {
      round: entry.round,
      rolls,
      cross: cellText(entry.cross),
      die: entry.die,
      to: cellText(entry.to),
      value: entry.value,
    });
  }

  function drawHistory() {
    const history = state.history || [];
    const count = history.length;
    const list = $("r3-history");
    if (historyShown !== count) {
      historyShown = count;
      list.replaceChildren(
        ...history.map((entry, index) =>
          h(
            "li",
            { class: entry.cross ? "r3-round" : "r3-round r3-round-end" },
            h("button", { type: "button", class: "r3-round-button", "data-round": index + 1, text: historyLine(entry) }),
          ),
        ),
      );
    }
    $("r3-history-empty").hidden = count > 0;
    $("r3-history-nav").hidden = count === 0;
    const slider = $("r3-history-slider");
    slider.max = String(count);
    const at = past === null ? count : past;
    slider.value = String(at);
    slider.setAttribute("aria-valuetext", past === null ? S.historyNow : at === 0 ? S.historyStart : format(S.historyWhere, { round: at, count }));
    $("r3-history-prev").disabled = at <= 0;
    $("r3-history-next").disabled = past === null;
    let where = "";
    if (past !== null) where = past === 0 ? S.historyStart : format(S.historyWhere, { round: past, count });
    $("r3-history-where").textContent = where;
    $("r3-history-now").hidden = past === null;
    const play = $("r3-history-play");
    play.hidden = count === 0;
    play.textContent = replayTimer === null ? S.replay : S.replayStop;
    play.setAttribute("aria-pressed", replayTimer === null ? "false" : "true");
    for (const button of list.querySelectorAll(".r3-round-button")) {
      const current = past !== null && Number(button.dataset.round) === past;
      if (current) {
        button.setAttribute("aria-current", "step");
        scrollInto(list, button);
      }
      else button.removeAttribute("aria-current");
    }
  }

  // Only the list scrolls (the page stays where it is).
  function scrollInto(list, item) {
    const top = item.offsetTop;
    const bottom = top + item.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }

  // The replay: the grid round after round, from before the first one to the end.
  let replayTimer = null;
  const REPLAY_MS = 900;

  function stopReplay() {
    if (replayTimer === null) return;
    window.clearInterval(replayTimer);
    replayTimer = null;
  }

  function toggleReplay() {
    if (replayTimer !== null) {
      stopReplay();
      draw();
      return;
    }
    showPast(0);
    replayTimer = window.setInterval(() => {
      if (past === null) stopReplay();
      else showPast(past + 1, true);
      if (past === null) {
        stopReplay();
        draw();
      }
    }, REPLAY_MS);
    draw();
  }

  function showPast(k, replaying = false) {
    if (!replaying) stopReplay();
    const count = (state.history || []).length;
    past = k === null || k >= count ? null : Math.max(0, k);
    // The last round of a finished game is the grid as it stands: the live view shows it.
    hoverTo = null;
    draw();
  }

  $("r3-history-slider").addEventListener("input", (event) => showPast(Number(event.target.value)));
  $("r3-history-prev").addEventListener("click", () => {
    const count = (state.history || []).length;
    showPast((past === null ? count : past) - 1);
  });
  $("r3-history-next").addEventListener("click", () => {
    if (past !== null) showPast(past + 1);
  });
  $("r3-history-now").addEventListener("click", () => showPast(null));
  $("r3-history-play").addEventListener("click", toggleReplay);
  $("r3-history").addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest(".r3-round-button") : null;
    if (button) showPast(Number(button.dataset.round));
  });

  // ---------------------------------------------------------------- the end

  // The shell's results say why the game ended (end_reasons: games/kinds/road300.py);
  // this adds what scored.
  function drawEnd() {
    const scoredNote = $("r3-scored");
    if (scoredNote) scoredNote.textContent = over(state) ? S.scored : "";
  }

  function turnText(current) {
    if (over(current)) {
      const row = current.results.find((entry) => entry.player === userId) || current.results[0];
      const won = Boolean(row && row.won);
      return { text: format(won ? S.overWon : S.over, { score: row ? row.total : current.score }), mine: false };
    }
    if (!inPlay(current)) return "";
    const dice = diceText(current.dice);
    if (seated(current)) return { text: format(S.yourTurnCross, { dice }), mine: mine(current) };
    const player = (current.players || [])[0];
    return { text: format(S.theirTurn, { name: player ? player.name : "", dice }), mine: false };
  }

  // T4.3: only 300 points or more win; the end screen says which it was.
  function resultsVerdict(current) {
    const row = (current.results || []).find((entry) => entry.player === userId) || (current.results || [])[0];
    if (!row) return null;
    return format(row.won ? S.verdictWon : S.verdictLost, { name: row.name, total: row.total });
  }

  function resultColumns(row) {
    return {
      before: [],
      after: [
        { heading: S.resultsBot, text: row.bot_score ?? "–", class: "number r3-bot-score" },
        { heading: S.resultsWon, text: row.won ? S.yes : S.no, class: row.won ? "r3-won" : "r3-not-won" },
      ],
    };
  }

  return {
    render,
    turnText,
    resultColumns,
    resultsVerdict,
    // A turn refused as stale is sent again only on the same roll of the same round.
    retryKey: (current) => JSON.stringify([current.round, current.dice, current.crossed]),
  };
}
