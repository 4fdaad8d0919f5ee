// The live lobby: games by status, who is online, joining a game and the lobby chat, over
// the lobby socket (docs/protocol.md, section 3.4). The page is complete without it; this
// keeps the lists fresh and makes joining and chatting instant.
import { openSocket } from "./socket.js";
import { timeElement } from "./time.js";
import "./new_game.js";

const strings = JSON.parse(document.getElementById("lobby-strings").textContent);
const page = JSON.parse(document.getElementById("lobby-data").textContent);
const seated = new Set(page.seated);
const inviting = new Set(page.inviting); // the private waiting games this user created
const csrfToken = document.querySelector("input[name=csrfmiddlewaretoken]")?.value ?? "";

const FINISHED_SHOWN = 20;
const GAMES_LISTED = 100; // as many as the server's GAMES lists
const CHAT_LINES_KEPT = 200;
const GROUP_OF_STATUS = {
  WAITING: "waiting",
  PREPARATION: "running",
  RUNNING: "running",
  FINAL_ROUND: "running",
  FINISHED: "finished",
  ABORTED: "finished",
};

const banner = document.getElementById("connection-banner");
const gamesError = document.getElementById("games-error");
const playerList = document.getElementById("players");
const playerCount = document.getElementById("players-count");
const chatLog = document.getElementById("chat-log");
const chatForm = document.getElementById("chat-form");
const chatInput = document.getElementById("chat-text");
const chatError = document.getElementById("chat-error");

let lastChatSent = "";
const listed = new Map(); // the games shown, by id: GAMES replaces them, GAMES_CHANGED edits

// ---------------------------------------------------------------- helpers

function element(tag, { className, text, attributes } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function fill(template, values) {
  return template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));
}

function errorText(message) {
  return strings.errors[message.code] ?? fill(strings.error, { message: message.message });
}

function show(node, text) {
  node.textContent = text;
  node.hidden = false;
}

function hide(node) {
  node.hidden = true;
  node.textContent = "";
}

function gamePath(id) {
  return `/games/${encodeURIComponent(id)}/`;
}

// ---------------------------------------------------------------- games

function joinForm(game) {
  const button = element("button", { className: "button button-small", text: strings.join, attributes: { type: "submit" } }, [
    element("span", { className: "visually-hidden", text: ` ${game.name}` }),
  ]);
  const token = element("input", {
    attributes: { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken },
  });
  return element(
    "form",
    {
      className: "game-action join-form",
      attributes: { method: "post", action: `/join/${game.id}/`, "data-game": String(game.id) },
    },
    [token, button],
  );
}

// A game of a day (Road to 300's daily challenge) is named in the page's language around its
// day, as the server renders it (templates/games/_game_name.html); any other by its own name.
function gameName(game) {
  const link = element("a", { className: "game-name", attributes: { href: gamePath(game.id) } });
  const template = strings.day_names[game.kind];
  const day = (game.options ?? {}).day;
  if (template && typeof day === "string") {
    const [before, after = ""] = template.split("%(day)s");
    link.append(before, timeElement(day, { style: "day" }), after);
  } else {
    link.textContent = game.name;
  }
  return link;
}

function gameItem(game, group) {
  const meta = element("span", { className: "game-meta" });
  meta.append(
    element("span", {
      className: `badge badge-kind badge-kind-${game.kind}`,
      text: strings.kinds[game.kind] ?? game.kind,
    }),
    " ",
  );
  // The variant: each option's words for its value (defaults have none).
  const badges = strings.variants[game.kind] ?? {};
  for (const [name, value] of Object.entries(game.options ?? {})) {
    const word = (badges[name] ?? {})[String(value).toLowerCase()];
    if (word) meta.append(element("span", { className: "badge badge-variant", text: word }), " ");
  }
  if (game.pace === "turn_based") {
    const words = strings.turn_based[String(game.turn_seconds)];
    if (words) meta.append(element("span", { className: "badge badge-pace", text: words }), " ");
  }
  if (group !== "waiting") {
    meta.append(
      element("span", {
        className: `badge badge-${game.status.toLowerCase()}`,
        text: strings.status[game.status] ?? game.status,
      }),
      " ",
    );
  }
  meta.append(
    element("span", {
      className: "game-seats",
      text: fill(strings.seats, { players: game.players, max: game.max_players }),
    }),
    " ",
    // An ended game shows when it ended, as the player pages do; the others when they began.
    timeElement(game.finished || game.created, { className: "game-time" }),
  );
  const item = element("li", { className: "game-item" }, [
    gameName(game),
    " ",
    meta,
  ]);
  if (group === "waiting") {
    if (seated.has(game.id)) {
      // The creator of a private game finds its invitation link on the game page.
      const invite = inviting.has(game.id);
      item.append(
        element("a", {
          className: "button button-small button-secondary game-action",
          text: invite ? strings.invite : strings.open,
          attributes: { href: invite ? `${gamePath(game.id)}#invitation` : gamePath(game.id) },
        }),
      );
    } else if (game.players < game.max_players) {
      item.append(joinForm(game));
    }
  }
  return item;
}

// Newest first, as the server lists them: by creation, then by id.
function newestFirst(one, other) {
  return Date.parse(other.created) - Date.parse(one.created) || other.id - one.id;
}

function listGames(games) {
  listed.clear();
  for (const game of games) listed.set(game.id, game);
  renderGames(games);
}

function changeGames(message) {
  for (const id of message.removed) listed.delete(id);
  for (const game of message.games) listed.set(game.id, game);
  const games = [...listed.values()].sort(newestFirst).slice(0, GAMES_LISTED);
  if (games.length < listed.size) listGames(games);
  else renderGames(games);
}

function renderGames(games) {
  for (const group of ["waiting", "running", "finished"]) {
    let shown = games.filter((game) => GROUP_OF_STATUS[game.status] === group);
    if (group === "finished") shown = shown.slice(0, FINISHED_SHOWN);
    const items = shown.length
      ? shown.map((game) => gameItem(game, group))
      : [element("li", { className: "muted game-empty", text: strings.no_games })];
    document.getElementById(`games-${group}`).replaceChildren(...items);
  }
}

function joinGame(form) {
  const gameId = Number(form.dataset.game);
  const sent = socket.send({ type: "WANT_TO_JOIN_GAME", game_id: gameId, ref: `join-${gameId}` });
  if (!sent) return false;
  hide(gamesError);
  form.querySelector("button").disabled = true;
  return true;
}

document.querySelector(".lobby-games").addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches(".join-form")) return;
  // Over the socket when it is open; otherwise the form posts to the server as it is.
  if (joinGame(form)) event.preventDefault();
});

// ---------------------------------------------------------------- players

function renderPlayers(players) {
  const items = players.map((player) => {
    const item = element("li", {}, [
      element("a", { text: player.name, attributes: { href: `/players/${player.id}/` } }),
    ]);
    if (player.id === page.user) item.append(" ", element("span", { className: "badge", text: strings.you }));
    return item;
  });
  if (!items.length) items.push(element("li", { className: "muted", text: strings.no_players }));
  playerList.replaceChildren(...items);
  playerCount.textContent = `(${players.length})`;
}

// ---------------------------------------------------------------- chat

function chatLine(line) {
  return element("li", { className: "chat-line" }, [
    element("span", { className: "chat-name", text: line.name }),
    " ",
    timeElement(line.at, { className: "chat-time", style: "clock" }),
    " ",
    element("span", { className: "chat-text", text: line.text }),
  ]);
}

function scrolledToEnd() {
  return chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 40;
}

function showChat(lines) {
  const items = lines.map(chatLine);
  if (!items.length) items.push(element("li", { className: "muted chat-empty", text: strings.no_chat }));
  chatLog.replaceChildren(...items);
  chatLog.scrollTop = chatLog.scrollHeight;
}

function addChat(line) {
  const follow = scrolledToEnd();
  chatLog.querySelector(".chat-empty")?.remove();
  chatLog.append(chatLine(line));
  while (chatLog.children.length > CHAT_LINES_KEPT) chatLog.firstElementChild.remove();
  if (follow || line.player === page.user) chatLog.scrollTop = chatLog.scrollHeight;
}

chatForm.hidden = false;
chatForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = chatInput.value.trim();
  if (!text) return;
  if (!socket.send({ type: "CHAT", text, ref: "chat" })) {
    show(chatError, strings.not_connected);
    return;
  }
  hide(chatError);
  lastChatSent = text;
  chatInput.value = "";
});

// ---------------------------------------------------------------- the socket

function onError(message) {
  const ref = message.ref ?? "";
  if (ref === "chat") {
    show(chatError, errorText(message));
    if (!chatInput.value) chatInput.value = lastChatSent;
    return;
  }
  if (ref.startsWith("join-")) {
    const gameId = ref.slice("join-".length);
    if (message.code === "already_seated") {
      window.location.assign(gamePath(gameId));
      return;
    }
    for (const button of document.querySelectorAll(".join-form button")) button.disabled = false;
  }
  show(gamesError, errorText(message));
}

function onMessage(message) {
  switch (message.type) {
    case "GAMES":
      listGames(message.games);
      break;
    case "GAMES_CHANGED":
      changeGames(message);
      break;
    case "CONNECTED_PLAYERS":
      renderPlayers(message.players);
      break;
    case "HISTORY":
      showChat(message.chat);
      break;
    case "CHAT":
      addChat(message);
      break;
    case "JOINED_GAME":
      seated.add(Number(message.game_id));
      window.location.assign(gamePath(message.game_id));
      break;
    case "ERROR":
      onError(message);
      break;
    default:
      break;
  }
}

function onOpen() {
  banner.hidden = true;
  socket.send({ type: "REQUEST_GAMES", changes: true });
  socket.send({ type: "REQUEST_ALL_CONNECTED_PLAYERS" });
  socket.send({ type: "REQUEST_HISTORY" });
}

function onLost() {
  banner.hidden = false;
}

// The server-rendered times are rewritten by ./time.js.
chatLog.scrollTop = chatLog.scrollHeight;

const socket = openSocket("/ws/lobby/", { onMessage, onOpen, onLost });
