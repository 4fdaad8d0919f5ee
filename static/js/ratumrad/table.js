// Rat um Rad's table on the game page: the Basel map, the players with their numbers, your
// hand, the display and the piles, your destination cards, the payment picker, the choice of
// destination cards, the final-round banner and the end screen's own columns, paths and
// cards. The markup is templates/games/ratumrad/table.html; the shell (static/js/shell.js)
// calls createTable once and render(state, view) on every change.
import { format, h, openModal } from "../game/dom.js";
import { inPlay, legalOf } from "../game/state.js";
import { BoardView, LAST_MOVE_MS, MAX_ZOOM } from "./board.js";
import {
  cardFace,
  chip,
  renderDestinations,
  renderDraw,
  renderHand,
  renderPlayers,
  renderResultCards,
  resultColumns,
} from "./panels.js";

const CHOICE_TYPES = ["SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION", "KEEP_DESTINATION_CARDS"];
const ZOOMS = [1, 1.6, 2.5, 3.5, 5]; // the buttons' steps; a wheel or two fingers zoom freely

const $ = (id) => document.getElementById(id);

export function createTable({ strings: T, userId, send, data }) {
  const map = data["map-data"];
  const places = new Map(map.locations.map((place) => [place.id, place]));
  const roadsById = new Map(map.roads.map((road) => [road.id, road]));
  const placeName = (id) => (places.get(id) ? places.get(id).name : id);

  let state = null;
  let firstDraw = null; // {player, event}: the first wheel card of the turn under way
  let busy = false; // a move is on its way: the buttons wait
  let choiceShownFor = null; // the pending cards the choice dialog last opened for by itself
  let payRoad = null;
  const pinned = new Set(); // destination cards shown on the map until clicked again
  let preview = null; // the destination card under the pointer or focus
  let dialogCards = []; // cards of the open choice dialog
  let shownPaths = null; // players whose longest path is drawn (end screen)
  const pathToggles = new Map(); // player id -> their "show on the map" button

  const board = new BoardView($("board"), map, T, openPayment, $("road-tip"));

  // ---------------------------------------------------------------- rendering

  function render(next, view = {}) {
    state = next;
    if (state.turn !== "second_card") firstDraw = null; // that turn is over
    busy = Boolean(view.busy);
    draw();
  }

  function draw() {
    noteFocus();
    const status = state.status;
    const seated = Boolean(state.you);
    renderFinalRound();
    renderPlayers($("players"), state, T, userId);
    const dealt = status !== "WAITING";
    $("hand-panel").hidden = !seated || !dealt;
    renderHand($("hand"), state, T);
    $("draw-panel").hidden = !dealt || status === "FINISHED" || status === "ABORTED";
    renderDraw(
      {
        faceUp: $("face-up"),
        deck: $("deck-button"),
        discard: $("discard-count"),
        shortDeck: $("short-deck-count"),
        jokerNote: $("joker-note"),
        drawDestinations: $("draw-destinations"),
      },
      state,
      T,
      busy,
      send,
      send,
    );
    $("destinations-panel").hidden = !seated || !dealt;
    renderDestinations($("destinations"), state, T, placeName, pinned, previewCard, togglePin);
    renderChoice();
    renderBoard();
    renderEnd();
    restoreFocus();
    if (payRoad !== null && !legalOf(state, "BUILD_ROAD").some((m) => m.road === payRoad)) {
      $("pay-dialog").close();
    }
  }

  function renderFinalRound() {
    const banner = $("final-round-banner");
    banner.hidden = !state.final_round || !inPlay(state);
    if (!banner.hidden) {
      let text = T.final_round;
      if (state.final_turns_left !== null && state.final_turns_left !== undefined) {
        text += ` ${format(T.final_turns_left, { count: state.final_turns_left })}`;
      }
      banner.textContent = text;
    }
  }

  function turnText(current) {
    const you = current.you ? current.you.player_id : null;
    if (current.status === "PREPARATION") {
      if (!you) return { text: T.preparation_others, mine: false };
      if (legalOf(current, CHOICE_TYPES[0]).length) return { text: T.preparation_you, mine: false };
      return { text: T.preparation_done, mine: false };
    }
    if (!inPlay(current)) return { text: "", mine: false };
    const player = current.players.find((entry) => entry.id === current.current_player);
    const mine = you !== null && current.current_player === you;
    let text;
    if (current.turn === "second_card") text = mine ? T.your_second_card : T.their_second_card;
    else if (current.turn === "choose_destinations") text = mine ? T.your_choose_destinations : T.their_choose_destinations;
    else text = mine ? T.your_turn_choices : T.their_turn;
    return { text: format(text, { name: player ? player.name : "" }), mine };
  }

  function renderBoard() {
    const owners = new Map();
    const players = new Map(state.players.map((player) => [player.id, player]));
    for (const built of state.roads || []) owners.set(built.road, players.get(built.owner) || { color: "grey", name: "" });
    const buildable = new Set(busy ? [] : legalOf(state, "BUILD_ROAD").map((move) => move.road));
    board.update(owners, buildable, state.players.length, (road) => whyNot(road, owners));
    updateHighlights();
  }

  // Why the viewer cannot build a free road now (R6.1, R6.3), or "" when nothing says so.
  function whyNot(road, owners) {
    const you = state.you ? state.you.player_id : null;
    if (you === null || busy) return "";
    if (state.status === "FINISHED" || state.status === "ABORTED") return T.why_over;
    if (!inPlay(state)) return T.why_not_started;
    if (road.double_of !== null && road.double_of !== undefined) {
      const twin = owners.get(road.double_of);
      if (twin && twin.id === you) return T.why_own_double;
    }
    if (state.current_player !== you) {
      const player = state.players.find((entry) => entry.id === state.current_player);
      return format(T.why_their_turn, { name: player ? player.name : "" });
    }
    if (state.turn === "second_card") return T.why_second_card;
    if (state.turn === "choose_destinations") return T.why_choose_destinations;
    const me = state.players.find((entry) => entry.id === you);
    const wheels = me ? (me.wheels ?? 0) : 0;
    if (wheels < road.length) return format(T.why_wheels, { wheels, length: road.length });
    const hand = state.you.hand || {};
    const jokers = hand.joker || 0;
    if (road.color === "grey") {
      const best = Math.max(0, ...Object.entries(hand).filter(([c]) => c !== "joker").map(([, n]) => n));
      return format(T.why_cards_any, { length: road.length, have: best, jokers });
    }
    const color = T.colors[road.color];
    return format(T.why_cards, { length: road.length, color, have: hand[road.color] || 0, jokers });
  }

  function updateHighlights() {
    const cards = [];
    const mine = (state.you && state.you.destinations) || [];
    for (const card of mine) if (pinned.has(card.id)) cards.push({ a: card.a, b: card.b, strong: false });
    for (const card of dialogCards) cards.push({ a: card.a, b: card.b, strong: false });
    if (preview) cards.push({ a: preview.a, b: preview.b, strong: true });
    board.setHighlights(cards);
  }

  function previewCard(card) {
    preview = card;
    updateHighlights();
  }

  function togglePin(cardId) {
    if (pinned.has(cardId)) pinned.delete(cardId);
    else pinned.add(cardId);
    draw();
  }

  // ---------------------------------------------------------------- the keyboard's place

  // The display and the destination cards are drawn anew on every change, and a move on its
  // way disables the buttons: either would drop the focus (to the page's top, for Tab). It
  // comes back to the same place (a face-up slot, else the deck) once that can be used again.
  let focusKey = null; // "deck-button", "draw-destinations", "face-up:<slot>", "destinations:<n>"

  function focusedKey() {
    const node = document.activeElement;
    if (!node || !node.isConnected) return null;
    if (node.id === "deck-button" || node.id === "draw-destinations") return node.id;
    for (const list of ["face-up", "destinations"]) {
      const index = [...$(list).querySelectorAll("button")].indexOf(node);
      if (index >= 0) return `${list}:${index}`;
    }
    return null;
  }

  function noteFocus() {
    const key = focusedKey();
    const active = document.activeElement;
    if (key) focusKey = key;
    else if (active && active !== document.body && active.isConnected) focusKey = null; // elsewhere
  }

  function restoreFocus() {
    if (!focusKey) return;
    const active = document.activeElement;
    if (focusedKey() === focusKey && !active.disabled) return;
    if (active && active !== document.body && active.isConnected && !focusedKey()) {
      focusKey = null; // a dialog or the player took it elsewhere
      return;
    }
    const [list, index] = focusKey.split(":");
    const wanted = index === undefined ? $(list) : $(list).querySelectorAll("button")[Number(index)];
    const candidates = list === "face-up" ? [wanted, $("deck-button")] : [wanted];
    for (const node of candidates) {
      if (node && !node.disabled && node.getClientRects().length) {
        node.focus();
        return;
      }
    }
    if (!busy) focusKey = null;
  }

  // ---------------------------------------------------------------- the end screen

  function finished(current) {
    return current.status === "FINISHED" && Array.isArray(current.results);
  }

  // At first the bonus holders' paths; the score sheet's buttons show any other.
  function paths(current) {
    if (shownPaths === null) {
      shownPaths = new Set(current.results.filter((row) => row.longest_path_bonus).map((row) => row.player));
    }
    return shownPaths;
  }

  function renderEnd() {
    if (!finished(state)) {
      board.setPaths([]);
      return;
    }
    renderResultCards($("results-cards"), state, T, placeName, userId);
    drawPaths();
  }

  function drawPaths() {
    const shown = paths(state);
    board.setPaths(
      state.results
        .filter((row) => shown.has(row.player))
        .map((row) => ({ roads: row.longest_path_roads || [], color: row.color })),
    );
  }

  // The shell draws the score sheet again on every change; a button keeps its row's player.
  function columns(row) {
    const shown = paths(state);
    const found = resultColumns(row, T, shown, togglePath);
    pathToggles.set(row.player, found.after[0].node);
    return found;
  }

  function togglePath(playerId) {
    const shown = paths(state);
    if (shown.has(playerId)) shown.delete(playerId);
    else shown.add(playerId);
    for (const [player, button] of pathToggles) {
      if (button.isConnected) button.setAttribute("aria-pressed", shown.has(player) ? "true" : "false");
      else pathToggles.delete(player);
    }
    drawPaths();
  }

  // ---------------------------------------------------------------- building

  // The legal payments for one road, then a confirm.
  function openPayment(roadId) {
    const moves = legalOf(state, "BUILD_ROAD").filter((move) => move.road === roadId);
    if (!moves.length || busy) return;
    const road = roadsById.get(roadId);
    const hand = (state.you && state.you.hand) || {};
    payRoad = roadId;
    $("pay-title").textContent = format(T.pay_title, { a: placeName(road.a), b: placeName(road.b) });
    $("pay-summary").textContent = format(T.pay_summary, { length: road.length, points: road.points });
    const options = moves.map((move, index) => {
      // A legal entry pays with the fewest jokers (R6.5): its colour first, jokers for the rest.
      const own = Math.min(hand[move.color] || 0, road.length);
      const jokers = road.length - own;
      const parts = [];
      if (own) {
        parts.push(format(own === 1 ? T.pay_card : T.pay_cards, { count: own, color: T.colors[move.color] }));
      }
      if (jokers) parts.push(format(jokers === 1 ? T.pay_joker : T.pay_jokers, { count: jokers }));
      const input = h("input", { type: "radio", name: "payment", value: index, required: true });
      if (moves.length === 1 || index === 0) input.checked = true;
      return h(
        "label",
        { class: "choice" },
        input,
        chip(T, move.color),
        jokers ? chip(T, "joker") : null,
        h("span", { text: parts.join(" + ") }),
      );
    });
    $("pay-options").replaceChildren(...options);
    $("pay-form").onsubmit = (event) => {
      event.preventDefault();
      const chosen = $("pay-form").querySelector("input[name=payment]:checked");
      if (!chosen || send(moves[Number(chosen.value)])) $("pay-dialog").close();
    };
    openModal($("pay-dialog"));
  }

  $("pay-dialog").addEventListener("close", () => {
    payRoad = null;
  });

  // ---------------------------------------------------------------- destination cards

  // Choosing destination cards: in the preparation (R2.4) and after drawing them (R7.1).
  function choiceMoves() {
    for (const type of CHOICE_TYPES) {
      const moves = legalOf(state, type);
      if (moves.length) return { type, moves };
    }
    return null;
  }

  function renderChoice() {
    const choice = choiceMoves();
    const reopen = $("reopen-choice");
    const dialog = $("keep-dialog");
    if (!choice) {
      reopen.hidden = true;
      if (dialog.open) dialog.close();
      choiceShownFor = null;
      return;
    }
    reopen.textContent = T.choose_again;
    reopen.hidden = dialog.open;
    const pending = state.you.pending_destinations || [];
    const key = `${choice.type}:${pending.map((card) => card.id).join(",")}`;
    if (choiceShownFor !== key && !busy) {
      choiceShownFor = key;
      openChoice();
    }
  }

  function openChoice() {
    const choice = choiceMoves();
    if (!choice || busy) return;
    const preparation = choice.type === CHOICE_TYPES[0];
    const pending = state.you.pending_destinations || [];
    dialogCards = pending;
    $("keep-title").textContent = preparation ? T.prep_title : T.keep_title;
    $("keep-hint").textContent = preparation ? T.prep_hint : T.keep_hint;
    $("keep-error").hidden = true;
    const options = pending.map((card) => {
      const input = h("input", { type: "checkbox", name: "keep", value: card.id });
      input.checked = true;
      const label = h(
        "label",
        { class: "choice" },
        input,
        cardFace(T, card, placeName),
      );
      const show = () => previewCard(card);
      const hide = () => previewCard(null);
      label.addEventListener("mouseenter", show);
      label.addEventListener("mouseleave", hide);
      input.addEventListener("focus", show);
      input.addEventListener("blur", hide);
      return label;
    });
    $("keep-options").replaceChildren(...options);
    dialogCards = [...pending, ...renderHeldLong(preparation)];
    $("keep-form").onsubmit = (event) => {
      event.preventDefault();
      const kept = [...$("keep-form").querySelectorAll("input[name=keep]:checked")].map((input) => Number(input.value));
      const wanted = new Set(kept);
      const move = choice.moves.find(
        (entry) => entry.keep.length === wanted.size && entry.keep.every((id) => wanted.has(id)),
      );
      if (!move) {
        $("keep-error").textContent = format(T.keep_invalid, { hint: preparation ? T.prep_hint : T.keep_hint });
        $("keep-error").hidden = false;
        return;
      }
      // Offline (or a move still on its way): the choice stays open, the banner says why.
      if (send(move)) $("keep-dialog").close();
    };
    openModal($("keep-dialog"));
    keepMapInSight($("keep-dialog"));
    $("reopen-choice").hidden = true;
    updateHighlights();
  }

  // In the preparation the long card is already yours (R2.3): the dialog shows it beside the
  // short ones to choose from, and its places light up on the map with theirs.
  function renderHeldLong(preparation) {
    const mine = (state.you && state.you.destinations) || [];
    const held = preparation ? mine.filter((card) => card.long) : [];
    const rows = held.map((card) =>
      h(
        "li",
        { class: "choice keep-held-card" },
        cardFace(T, card, placeName),
      ),
    );
    $("keep-held-list").replaceChildren(...rows);
    $("keep-held").hidden = !held.length;
    return held;
  }

  // On a narrow screen the dialog is a sheet over the lower part of the page: the page
  // scrolls so that the map's top shows above it (the cards' places light up there).
  function keepMapInSight(dialog) {
    const map = $("board-scroll").getBoundingClientRect();
    const sheet = dialog.getBoundingClientRect();
    const middle = map.left + map.width / 2;
    if (middle < sheet.left || middle > sheet.right) return; // beside the map
    if (map.top >= 0 && map.top + 96 <= sheet.top) return;
    window.scrollBy({ top: map.top - 8, behavior: "instant" });
  }

  $("keep-dialog").addEventListener("close", () => {
    dialogCards = [];
    preview = null;
    $("reopen-choice").hidden = !choiceMoves();
    updateHighlights();
  });
  $("reopen-choice").addEventListener("click", openChoice);

  // ---------------------------------------------------------------- the last move

  // Who did what, for a few seconds: a caption beside the map, and the road ringed on it. A
  // turn of two wheel cards is one caption: both draws (a card from the deck stays unnamed:
  // its event carries no colour).
  let captionTimer = null;

  function drawn(event) {
    return event.source === "face_up" ? format(T.drew_face_up, { color: T.colors[event.color] || "" }) : T.drew_deck;
  }

  function captionOf(event) {
    if (event.kind !== "took_wheel") return event.text;
    // The state before this event says whether it is the second card of a turn.
    const second = state.turn === "second_card" && state.current_player === event.player;
    const first = second && firstDraw && firstDraw.player === event.player ? firstDraw.event : null;
    firstDraw = second ? null : { player: event.player, event };
    if (!first) return event.text;
    const player = state.players.find((entry) => entry.id === event.player);
    const name = player ? player.name : "";
    if (first.source === "deck" && event.source === "deck") return format(T.drew_two_deck, { name });
    return format(T.drew_two, { name, first: drawn(first), second: drawn(event) });
  }

  function onEvent(event) {
    if (!event.text || !("player" in event) || !state || !inPlay(state)) return;
    const caption = $("last-move");
    caption.textContent = captionOf(event);
    caption.hidden = false;
    window.clearTimeout(captionTimer);
    captionTimer = window.setTimeout(() => {
      caption.hidden = true;
    }, LAST_MOVE_MS);
    if (event.kind === "built_road") {
      const player = state.players.find((entry) => entry.id === event.player);
      board.flashRoad(event.road, player ? player.name : "");
    }
  }

  // ---------------------------------------------------------------- map size

  // The buttons zoom about the middle of the view, step by step.
  function showZoom() {
    $("zoom-out").disabled = board.view.zoom <= 1;
    $("zoom-in").disabled = board.view.zoom >= MAX_ZOOM;
  }

  function step(direction) {
    const now = board.view.zoom;
    const next =
      direction > 0
        ? ZOOMS.find((level) => level > now * 1.01)
        : [...ZOOMS].reverse().find((level) => level < now / 1.01);
    board.view.zoomTo(next ?? (direction > 0 ? MAX_ZOOM : 1));
  }

  board.root.addEventListener("zoomchange", showZoom);
  $("zoom-in").addEventListener("click", () => step(1));
  $("zoom-out").addEventListener("click", () => step(-1));
  // The whole map at once, in view: every place without scrolling.
  $("zoom-fit").addEventListener("click", () => {
    board.view.zoomTo(1);
    $("board-scroll").scrollIntoView({ block: "nearest" });
  });
  showZoom();

  return {
    render,
    onEvent,
    turnText,
    resultColumns: columns,
    // A choice refused as stale is sent again only on an unchanged display.
    retryKey: (current) => JSON.stringify(current.face_up),
  };
}
