// The game page's entry module: the parts every kind of game shares, around the kind's table.
//
// The shell draws the status line, the banners (connection lost, called off), notices, the
// turn line and the turn timer, the waiting room's seats with its start and join buttons, the
// panels for a seat the computer plays, the vote to end and leaving, the activity feed, the
// chat, and the end screen with the score sheet's shared columns (place, player, total, the
// rating change of a rated game) and the achievements the game earned the viewer. The
// protocol is static/js/client.js. The kind's table is an ES module under static/js/<kind>/
// whose static URL the page names in `data-table-script` on #game; the shell import()s it.
// Its markup is the kind's table template (templates/games/<kind>/table.html), included by
// templates/games/game.html once per part: banners, main, panels, results, dialogs, data.
//
// The contract between the shell and a table module:
//
//   export function createTable({ root, strings, userId, send, data }) -> table
//
//     root     the page's root element (#game); the table's markup is inside it
//     strings  the page's strings (json_script "ui-strings"), in the page's language: the
//              shell's (games/views.py) and the kind's own (its glue's table_strings)
//     userId   the viewer's user id (a number)
//     send     send(move): sends one entry of state.legal as a move; the client adds `ref`
//              and `expect_seq`, waits for its answer (busy) and sends a move refused as
//              stale again when still allowed. Nothing is sent while another move is busy
//              or the socket is closed: send then returns false.
//     data     the table's own data: {elementId: JSON} of each json_script block that the
//              table template's "data" part renders (Rat um Rad: {"map-data": map})
//
//   createTable is called once, before the first render; the table's markup is in the page.
//   The table object it returns has:
//
//     render(state, view)    required. Called with the newest STATE (docs/protocol.md) on
//                            every change, and with view = {busy} also whenever a move starts
//                            or stops being busy or the socket opens or drops: the table draws
//                            its own parts (and keeps its buttons disabled while view.busy, which
//                            is also true until the socket is open).
//     onEvent(event, seq)    optional. Each live EVENT (an activity-feed entry), after the
//                            feed shows it.
//     turnText(state)        optional. The turn line: {text, mine} (mine: it is the viewer's
//                            move; the line is highlighted) or a string; "" hides it. Without
//                            it the shell says whose turn it is from state.current_player.
//     resultColumns(row)     optional. The kind's columns of the score sheet for one row of
//                            state.results: {before: [column], after: [column]} around the
//                            Total column; a column is {heading, text, class, node} (the cell's
//                            text or node; the first row's headings head the table).
//     resultsVerdict(state)  optional. The end screen's sentence on the outcome instead of
//                            "Winner: ..." (Road to 300: whether 300 was reached).
//     retryKey(state)        optional. A string of what must be unchanged for a move refused
//                            as stale to be sent again (Rat um Rad: the face-up display).
//
//   The shell renders first the shared parts, then table.render(state, view), then the end
//   screen's score sheet (so resultColumns sees the state render got).
//
// The turn line's `mine` also drives the turn signal (game/turn-signal.js): the page title's
// "▶ Your turn" prefix and a beep when the move becomes the viewer's (sound toggle in the head),
// and a system notification then when the tab is hidden (game/turn-notify.js; the head's
// button asks the browser's permission, its toggle switches it off).
import { createClient } from "./client.js";
import { cookie, format, openModal } from "./game/dom.js";
import { Chat, Feed } from "./game/feed.js";
import { renderNewAchievements } from "./game/achievements.js";
import { renderResults } from "./game/results.js";
import { inPlay, legalOf } from "./game/state.js";
import { TurnNotifier } from "./game/turn-notify.js";
import { applyMyTurns } from "./my-turns.js";
import { TurnSignal } from "./game/turn-signal.js";
import { countdown } from "./time.js";
import { renderWaiting } from "./game/waiting.js";

const NOTICE_MS = 10000;
// A seat the computer plays because its person's time ran out, and leaving for good.
const OPEN_STATUSES = new Set(["WAITING", "PREPARATION", "RUNNING", "FINAL_ROUND"]);

const $ = (id) => document.getElementById(id);
const json = (id) => JSON.parse($(id).textContent);

const root = $("game");
const T = json("ui-strings");
const userId = Number(root.dataset.userId);

let confirmAction = null;
let noticeTimer = null;
const turnNotifier = new TurnNotifier({
  ask: $("notify-ask"),
  toggle: $("notify-toggle"),
  denied: $("notify-denied"),
  title: root.dataset.gameName,
  body: format(T.notify_body, { kind: root.dataset.kindName }),
  tag: root.dataset.gameId,
});
const turnSignal = new TurnSignal({
  button: $("sound-toggle"),
  titleTemplate: T.turn_title,
  onMyTurn: () => turnNotifier.myTurn(),
  onTurnOver: () => turnNotifier.close(),
});

// The table's data: each json_script block of its template's "data" part, by element id.
function tableData() {
  const data = {};
  const holder = $("table-data");
  for (const script of holder ? holder.querySelectorAll('script[type="application/json"]') : []) {
    data[script.id] = JSON.parse(script.textContent);
  }
  return data;
}

const { createTable } = await import(root.dataset.tableScript);

const feed = new Feed($("feed"));
// A solo game's page has no chat.
const chat = $("chat-panel") ? new Chat($("chat")) : null;
const unread = chat ? unreadCounter($("chat-panel"), $("chat-unread"), T.chat_unread) : null;
const table = createTable({
  root,
  strings: T,
  userId,
  send: (move) => client.sendMove(move),
  data: tableData(),
});

const client = createClient({
  path: root.dataset.socketPath,
  state: json("initial-state"),
  onChange: render,
  onEvent(seq, event) {
    feed.add(seq, event);
    if (table.onEvent) table.onEvent(event, seq);
  },
  onHistory(events, lines) {
    feed.replace(events);
    if (chat) chat.replace(lines);
  },
  onChat(line) {
    if (chat && chat.add(line) && line.player !== userId) unread.add();
  },
  onError: (code, message) => showNotice(errorText(code, message)),
  onOpen() {
    $("connection-banner").hidden = true;
  },
  onLost() {
    $("connection-banner").hidden = false;
  },
  onOffline: () => showNotice($("connection-banner").textContent.trim()),
  retryKey: (state) => (table.retryKey ? table.retryKey(state) : ""),
});

// The server's messages are English (bots read them too): the page says it in its language,
// naming the rule for a refused move ("R5.4: ..."), and falls back to the server's words.
function errorText(code, serverMessage) {
  const text = T.errors[code];
  if (!text) return serverMessage || code;
  const rule = /^(R\d+(?:\.\d+)*)\b/.exec(serverMessage || "");
  return format(text, { rule: rule ? rule[1] : "" });
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
  const state = client.state;
  const status = state.status;
  $("game-status").textContent = T.statuses[status] || status;
  $("spectator-badge").hidden = Boolean(state.you);
  $("aborted-banner").hidden = status !== "ABORTED";
  renderTurnLine(state);

  $("waiting").hidden = status !== "WAITING";
  if (status === "WAITING") {
    renderWaiting({ seats: $("seats"), start: $("start-button"), join: $("join-button"), text: $("waiting-text") }, state, T, userId);
  }

  table.render(state, { busy: client.busy });
  // A line sent while the socket is not open would be lost: the button waits, the text stays.
  if (chat) $("chat-send").disabled = !client.connected;
  renderVote(state);
  renderSeat(state);
  renderEnd(state);
}

function turnLine(state) {
  if (table.turnText) return table.turnText(state);
  if (!inPlay(state)) return "";
  const you = state.you ? state.you.player_id : null;
  const current = state.players.find((player) => player.id === state.current_player);
  const mine = you !== null && state.current_player === you;
  return { text: format(mine ? T.your_turn : T.their_turn, { name: current ? current.name : "" }), mine };
}

function renderTurnLine(state) {
  const line = $("turn-line");
  const answer = turnLine(state) || "";
  const text = typeof answer === "string" ? answer : answer.text || "";
  const mine = typeof answer !== "string" && Boolean(answer.mine);
  line.classList.toggle("mine", mine);
  if (line.textContent !== text) line.textContent = text;
  line.hidden = !text;
  turnNotifier.update(Boolean(state.you));
  turnSignal.update(mine && Boolean(text), Boolean(state.you));
  // The nav's count of games waiting: this game's own turn as this page sees it.
  const game = Number(root.dataset.gameId);
  applyMyTurns({ type: "MY_TURNS", game, your_move: Boolean(state.you) && mine && Boolean(text) });
}

function renderDeadline() {
  const state = client.state;
  const node = $("deadline");
  const deadline = inPlay(state) || state.status === "PREPARATION" ? state.turn_deadline : null;
  const until = deadline ? Date.parse(deadline) : NaN;
  if (Number.isNaN(until)) {
    node.hidden = true;
    return;
  }
  const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  node.textContent = format(T.time_left, { time: countdown(seconds) });
  node.classList.toggle("urgent", seconds <= 10);
  node.hidden = false;
}
window.setInterval(renderDeadline, 1000);

// The vote to end the game, offered while state.legal holds a VOTE_END.
function renderVote(state) {
  const vote = legalOf(state, "VOTE_END")[0];
  $("vote-panel").hidden = !vote;
  if (!vote) return;
  const button = $("vote-button");
  button.textContent = vote.end ? T.vote_end : T.vote_back;
  button.disabled = client.busy;
  button.onclick = () => confirm(vote.end ? T.vote_end_question : T.vote_back_question, () => client.sendMove(vote));
}

function renderSeat(state) {
  const you = state.you ? state.you.player_id : null;
  const me = state.players.find((player) => player.id === you);
  const open = OPEN_STATUSES.has(state.status);
  $("autopilot-panel").hidden = !(me && open && me.autopilot && !me.left);
  $("leave-panel").hidden = !(me && open && !me.left);
}

$("take-back-button").addEventListener("click", () => client.sendSeat("TAKE_SEAT_BACK"));
$("leave-button").addEventListener("click", () => {
  const question = client.state.status === "WAITING" ? T.leave_waiting_question : T.leave_question;
  confirm(question, () => client.sendSeat("LEAVE_GAME"));
});

function renderEnd(state) {
  const finished = state.status === "FINISHED" && Array.isArray(state.results);
  $("results").hidden = !finished;
  if (!finished) return;
  renderNewAchievements($("achievements-panel"), state, T);
  renderResults(
    {
      reason: $("results-reason"),
      winner: $("results-winner"),
      you: $("results-you"),
      table: $("results-table"),
    },
    state,
    T,
    userId,
    (row) => (table.resultColumns ? table.resultColumns(row) : null),
    table.resultsVerdict ? table.resultsVerdict(state) : null,
  );
}

// ------------------------------------------------------------------ dialogs

// Every dialog's cancel button, the table's too.
root.addEventListener("click", (event) => {
  const button = event.target.closest(".dialog-cancel");
  if (button && button.closest("dialog")) button.closest("dialog").close();
});

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

// ------------------------------------------------------------------ waiting room and chat

// Other people's chat lines that came while the chat was folded away: a count on its heading
// until it is opened.
function unreadCounter(panel, badge, words) {
  let count = 0;
  const show = () => {
    badge.textContent = format(words, { count });
    badge.hidden = count === 0;
  };
  panel.addEventListener("toggle", () => {
    if (panel.open) {
      count = 0;
      show();
    }
  });
  return {
    add() {
      if (panel.open) return;
      count += 1;
      show();
    },
  };
}

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
  if (await post(root.dataset.joinUrl)) client.sync();
});

$("chat-form")?.addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("chat-text");
  const text = input.value.trim();
  if (!text) return;
  if (client.send({ type: "CHAT", text })) input.value = "";
});

render();
renderDeadline();
