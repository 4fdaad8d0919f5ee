// The game page: draws the board and panels from the game socket's STATE and sends the
// moves the player picks from state.legal (docs/protocol.md).
import { openSocket } from "./socket.js";
import { BoardView } from "./game/board.js";
import { cookie, format, h } from "./game/dom.js";
import { Chat, Feed } from "./game/feed.js";
import {
  cardText,
  chip,
  inPlay,
  legalOf,
  renderDestinations,
  renderDraw,
  renderHand,
  renderPlayers,
  renderResults,
  renderWaiting,
} from "./game/panels.js";

const CHOICE_TYPES = ["SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION", "KEEP_DESTINATION_CARDS"];
const BUSY_TIMEOUT_MS = 8000;
const STATE_WAIT_MS = 3000; // after an ACK, for the STATE of its seq
const NOTICE_MS = 10000;
const HISTORY_REF = "history";

const $ = (id) => document.getElementById(id);
const json = (id) => JSON.parse($(id).textContent);

const root = $("game");
const T = json("ui-strings");
const map = json("map-data");
const userId = Number(root.dataset.userId);
const places = new Map(map.locations.map((place) => [place.id, place]));
const roadsById = new Map(map.roads.map((road) => [road.id, road]));
const placeName = (id) => (places.get(id) ? places.get(id).name : id);

let state = json("initial-state");
let lastSeq = state.seq; // highest seq of an EVENT or STATE seen
let refCount = 0;
let busy = null; // {ref, seq, move, faceUp, timer}: a move on its way; the buttons wait
let sent = null; // the last move sent, until its answer (a STATE can end `busy` before that)
let retry = null; // a move refused as stale, sent again if the next STATE still allows it
let choiceShownFor = null; // the pending cards the choice dialog last opened for by itself
let payRoad = null;
let confirmAction = null;
let noticeTimer = null;
const pinned = new Set(); // destination cards shown on the map until clicked again
let preview = null; // the destination card under the pointer or focus
let dialogCards = []; // cards of the open choice dialog
let shownPaths = null; // players whose longest path is drawn (end screen)

const board = new BoardView($("board"), map, T, openPayment);
const feed = new Feed($("feed"));
const chat = new Chat($("chat"), document.documentElement.lang);

// ------------------------------------------------------------------ socket

const socket = openSocket(root.dataset.socketPath, {
  onMessage: receive,
  onOpen() {
    $("connection-banner").hidden = true;
    socket.send({ type: "REQUEST_HISTORY", ref: HISTORY_REF });
  },
  onLost() {
    $("connection-banner").hidden = false;
    setBusy(null);
  },
});

function receive(message) {
  switch (message.type) {
    case "STATE":
      noteSeq(message.seq, false);
      if (message.seq >= state.seq) {
        state = message.state;
        if (busy && state.seq > busy.seq) setBusy(null);
        render();
        retryStale();
      }
      break;
    case "EVENT":
      noteSeq(message.seq, true);
      feed.add(message.seq, message.event || {});
      break;
    case "HISTORY":
      feed.replace(message.events || []);
      chat.replace(message.chat || []);
      break;
    case "CHAT":
      chat.add(message);
      break;
    case "ERROR":
      refused(message);
      break;
    case "ACK":
      if (sent && message.ref === sent.ref) sent = null;
      awaitState(message.seq);
      break;
    default:
      break; // PRESENCE: the STATE that follows carries the change
  }
}

// The STATE of an acknowledged move comes separately; if it got lost on the way (a server
// restarting its message broker), ask for the state instead of waiting for the next change.
function awaitState(seq) {
  window.setTimeout(() => {
    if (state.seq < seq) socket.send({ type: "SYNC" });
  }, STATE_WAIT_MS);
}

function noteSeq(seq, isEvent) {
  // An EVENT more than one move ahead means messages were lost: ask for the truth, and for
  // the feed with the entries that were lost.
  if (isEvent && seq > lastSeq + 1) {
    socket.send({ type: "SYNC" });
    socket.send({ type: "REQUEST_HISTORY", ref: HISTORY_REF });
  }
  lastSeq = Math.max(lastSeq, seq);
}

function refused(message) {
  if (message.ref === HISTORY_REF) return; // a server without history: the feed grows live
  // Another player's STATE may have come first and ended `busy`: the move is still ours.
  const mine = sent && message.ref === sent.ref ? sent : null;
  if (mine) {
    sent = null;
    if (busy === mine) setBusy(null);
  }
  if (message.code === "stale") {
    retry = mine;
    socket.send({ type: "SYNC" });
    return;
  }
  showNotice(errorText(message.code, message.message));
}

// The server's messages are English (bots read them too): the page says it in its language,
// naming the rule for a refused move ("R5.4: ..."), and falls back to the server's words.
function errorText(code, serverMessage) {
  const text = T.errors[code];
  if (!text) return serverMessage || code;
  const rule = /^(R\d+(?:\.\d+)*)\b/.exec(serverMessage || "");
  return format(text, { rule: rule ? rule[1] : "" });
}

function sendMove(move) {
  if (busy) return;
  refCount += 1;
  const ref = `m${refCount}`;
  if (!socket.send({ ...move, ref, expect_seq: state.seq })) {
    showNotice($("connection-banner").textContent.trim());
    return;
  }
  setBusy({ ref, seq: state.seq, move, faceUp: JSON.stringify(state.face_up) });
  sent = busy;
}

// Someone else moved first (a vote, or another player's choice in the preparation). If the
// same move is still legal on an unchanged display, the player's choice still stands.
function retryStale() {
  if (!retry || state.seq <= retry.seq) return;
  const wanted = JSON.stringify(retry.move);
  const unchanged = JSON.stringify(state.face_up) === retry.faceUp;
  retry = null;
  const again = (state.legal || []).find((move) => JSON.stringify(move) === wanted);
  if (again && unchanged) sendMove(again);
}

function setBusy(next) {
  if (busy) window.clearTimeout(busy.timer);
  busy = next;
  if (busy) busy.timer = window.setTimeout(() => setBusy(null), BUSY_TIMEOUT_MS);
  render();
}

function showNotice(text) {
  $("notice-text").textContent = text;
  $("notice").hidden = false;
  window.clearTimeout(noticeTimer);
  noticeTimer = window.setTimeout(() => {
    $("notice").hidden = true;
  }, NOTICE_MS);
}

$("notice-close").addEventListener("click", () => {
  $("notice").hidden = true;
});

// ------------------------------------------------------------------ rendering

function render() {
  const status = state.status;
  const seated = Boolean(state.you);
  $("game-status").textContent = T.statuses[status] || status;
  $("spectator-badge").hidden = seated;
  $("aborted-banner").hidden = status !== "ABORTED";
  renderFinalRound();
  renderTurnLine();

  $("waiting").hidden = status !== "WAITING";
  if (status === "WAITING") {
    renderWaiting({ seats: $("seats"), start: $("start-button"), join: $("join-button"), text: $("waiting-text") }, state, T, userId);
  }

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
    Boolean(busy),
    sendMove,
    sendMove,
  );
  $("destinations-panel").hidden = !seated || !dealt;
  renderDestinations($("destinations"), state, T, placeName, pinned, previewCard, togglePin);
  renderVote();
  renderSeat();
  renderChoice();
  renderBoard();
  renderEnd();
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

function renderTurnLine() {
  const line = $("turn-line");
  const you = state.you ? state.you.player_id : null;
  let text = "";
  line.classList.remove("mine");
  if (state.status === "PREPARATION") {
    if (!you) text = T.preparation_others;
    else if (legalOf(state, CHOICE_TYPES[0]).length) text = T.preparation_you;
    else text = T.preparation_done;
  } else if (inPlay(state)) {
    const current = state.players.find((player) => player.id === state.current_player);
    const mine = you !== null && state.current_player === you;
    if (state.turn === "second_card") text = mine ? T.your_second_card : T.their_second_card;
    else if (state.turn === "choose_destinations") text = mine ? T.your_choose_destinations : T.their_choose_destinations;
    else text = mine ? T.your_turn : T.their_turn;
    text = format(text, { name: current ? current.name : "" });
    line.classList.toggle("mine", mine);
  }
  if (line.textContent !== text) line.textContent = text;
  line.hidden = !text;
}

function renderDeadline() {
  const node = $("deadline");
  const deadline = inPlay(state) || state.status === "PREPARATION" ? state.turn_deadline : null;
  const until = deadline ? Date.parse(deadline) : NaN;
  if (Number.isNaN(until)) {
    node.hidden = true;
    return;
  }
  const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  const time = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  node.textContent = format(T.time_left, { time });
  node.classList.toggle("urgent", seconds <= 10);
  node.hidden = false;
}
window.setInterval(renderDeadline, 1000);

function renderVote() {
  const vote = legalOf(state, "VOTE_END")[0];
  $("vote-panel").hidden = !vote;
  if (!vote) return;
  const button = $("vote-button");
  button.textContent = vote.end ? T.vote_end : T.vote_back;
  button.disabled = Boolean(busy);
  button.onclick = () => confirm(vote.end ? T.vote_end_question : T.vote_back_question, () => sendMove(vote));
}

// A seat the computer plays because its person's time ran out, and leaving for good.
const OPEN_STATUSES = new Set(["WAITING", "PREPARATION", "RUNNING", "FINAL_ROUND"]);

function renderSeat() {
  const you = state.you ? state.you.player_id : null;
  const me = state.players.find((player) => player.id === you);
  const open = OPEN_STATUSES.has(state.status);
  $("autopilot-panel").hidden = !(me && open && me.autopilot && !me.left);
  $("leave-panel").hidden = !(me && open && !me.left);
}

function sendSeatMessage(type) {
  refCount += 1;
  if (!socket.send({ type, ref: `s${refCount}` })) {
    showNotice($("connection-banner").textContent.trim());
  }
}

$("take-back-button").addEventListener("click", () => sendSeatMessage("TAKE_SEAT_BACK"));
$("leave-button").addEventListener("click", () => {
  const question = state.status === "WAITING" ? T.leave_waiting_question : T.leave_question;
  confirm(question, () => sendSeatMessage("LEAVE_GAME"));
});

function renderBoard() {
  const owners = new Map();
  const players = new Map(state.players.map((player) => [player.id, player]));
  for (const built of state.roads || []) owners.set(built.road, players.get(built.owner) || { color: "grey", name: "" });
  const buildable = new Set(busy ? [] : legalOf(state, "BUILD_ROAD").map((move) => move.road));
  board.update(owners, buildable);
  updateHighlights();
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
  render();
}

function renderEnd() {
  const finished = state.status === "FINISHED" && Array.isArray(state.results);
  $("results").hidden = !finished;
  if (!finished) {
    board.setPaths([]);
    return;
  }
  if (shownPaths === null) {
    // At first the bonus holders' paths; the table's buttons show any other.
    shownPaths = new Set(state.results.filter((row) => row.longest_path_bonus).map((row) => row.player));
  }
  renderResults(
    {
      reason: $("results-reason"),
      winner: $("results-winner"),
      you: $("results-you"),
      table: $("results-table"),
      cards: $("results-cards"),
    },
    state,
    T,
    placeName,
    userId,
    shownPaths,
    togglePath,
  );
  board.setPaths(
    state.results
      .filter((row) => shownPaths.has(row.player))
      .map((row) => ({ roads: row.longest_path_roads || [], color: row.color })),
  );
}

function togglePath(playerId) {
  if (shownPaths.has(playerId)) shownPaths.delete(playerId);
  else shownPaths.add(playerId);
  render();
}

// ------------------------------------------------------------------ dialogs

function openModal(dialog) {
  if (dialog.open) return;
  const back = document.activeElement;
  dialog.addEventListener(
    "close",
    () => {
      if (back && back.isConnected && typeof back.focus === "function") back.focus();
    },
    { once: true },
  );
  dialog.showModal();
}

for (const button of document.querySelectorAll(".dialog-cancel")) {
  button.addEventListener("click", () => button.closest("dialog").close());
}

function confirm(text, action) {
  $("confirm-text").textContent = text;
  confirmAction = action;
  openModal($("confirm-dialog"));
}

$("confirm-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const action = confirmAction;
  confirmAction = null;
  $("confirm-dialog").close();
  if (action) action();
});

// Building: the legal payments for one road, then a confirm.
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
    $("pay-dialog").close();
    if (chosen) sendMove(moves[Number(chosen.value)]);
  };
  openModal($("pay-dialog"));
}

$("pay-dialog").addEventListener("close", () => {
  payRoad = null;
});

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
      h("span", { class: "destination-places", text: cardText(T, card, placeName) }),
      h("span", { class: "destination-points", text: format(T.card_points, { points: card.points }) }),
      card.long ? h("span", { class: "badge badge-long", text: T.card_long }) : null,
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
    $("keep-dialog").close();
    sendMove(move);
  };
  openModal($("keep-dialog"));
  $("reopen-choice").hidden = true;
  updateHighlights();
}

$("keep-dialog").addEventListener("close", () => {
  dialogCards = [];
  preview = null;
  $("reopen-choice").hidden = !choiceMoves();
  updateHighlights();
});
$("reopen-choice").addEventListener("click", openChoice);

// ------------------------------------------------------------------ map size

const ZOOMS = [1, 1.6, 2.4, 3.2];
let zoom = 0;

function setZoom(level) {
  zoom = Math.max(0, Math.min(ZOOMS.length - 1, level));
  $("board").style.width = `${ZOOMS[zoom] * 100}%`;
  $("board-scroll").classList.toggle("zoomed", zoom > 0);
  $("zoom-out").disabled = zoom === 0;
  $("zoom-in").disabled = zoom === ZOOMS.length - 1;
}

$("zoom-in").addEventListener("click", () => setZoom(zoom + 1));
$("zoom-out").addEventListener("click", () => setZoom(zoom - 1));
setZoom(0);

// ------------------------------------------------------------------ waiting room and chat

async function post(url) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": cookie("csrftoken") },
  });
  if (!response.ok) {
    let message = String(response.status);
    let code = "";
    try {
      const body = await response.json();
      message = body.message || message;
      code = body.code || "";
    } catch {
      // not JSON: keep the status
    }
    showNotice(format(T.request_failed, { message: errorText(code, message) }));
  }
  return response.ok;
}

$("start-button").addEventListener("click", async () => {
  const button = $("start-button");
  button.disabled = true;
  if (!(await post(root.dataset.startUrl))) button.disabled = false;
});

$("join-button").addEventListener("click", async () => {
  if (await post(root.dataset.joinUrl)) socket.send({ type: "SYNC" });
});

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("chat-text");
  const text = input.value.trim();
  if (!text) return;
  if (socket.send({ type: "CHAT", text })) input.value = "";
  else showNotice($("connection-banner").textContent.trim());
});

render();
renderDeadline();
