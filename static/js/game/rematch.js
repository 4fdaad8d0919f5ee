// "Play again" on the end screen (docs/protocol.md: `rematch` in a finished game's STATE and
// POST /api/games/{id}/rematch/). A table game asks every person of it: the offer, who
// accepted and who declined show live in each of their pages, and once everyone accepted
// the new game is dealt and each page that asked for it goes there. A solo game starts again
// at once. A game that counts one attempt (the daily challenge) links its leaderboard instead.
import { cookie, format, h } from "./dom.js";

let busy = false; // an answer is on its way: the buttons wait
let knownGame; // the new game as this page first saw it: only a new one is gone to by itself
let problem = ""; // the last refusal, shown until the next answer

function gamePath(gameId) {
  return `/games/${gameId}/`;
}

function namesOf(state, ids) {
  const names = new Map(state.players.map((player) => [player.id, player.name]));
  return ids.map((id) => names.get(id) || "?").join(", ");
}

async function answer(state, accept, T, userId) {
  busy = true;
  problem = "";
  renderRematch(state, T, userId);
  let offer = null;
  try {
    const response = await fetch(`/api/games/${state.game_id}/rematch/`, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRFToken": cookie("csrftoken"),
      },
      body: JSON.stringify({ accept }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.ok) offer = body;
    else problem = T.rematch.errors[body.code] || body.message || String(response.status);
  } catch {
    problem = T.rematch.errors.offline;
  }
  busy = false;
  if (offer && offer.game !== null && accept) {
    // The game's STATE may have brought the new game first and be on its way there: a
    // second assign() would cancel that navigation and start it again.
    if (knownGame !== offer.game) {
      knownGame = offer.game;
      window.location.assign(gamePath(offer.game));
    }
    return;
  }
  // The STATE that every page of the game gets brings the offer as it now stands.
  renderRematch(offer ? { ...state, rematch: offer } : state, T, userId);
}

// Draws the end screen's part for playing again into #rematch (hidden when it has none).
export function renderRematch(state, T, userId) {
  const panel = document.getElementById("rematch");
  const offer = state.rematch;
  if (!panel) return;
  if (!offer) {
    panel.hidden = true;
    panel.dataset.key = "";
    return;
  }
  if (knownGame === undefined) knownGame = offer.game;
  const S = T.rematch;
  const asked = state.you && offer.asked.includes(userId);
  const accepted = offer.accepted.includes(userId);
  const texts = [];
  const actions = [];

  if (offer.leaderboard) {
    texts.push(S.one_attempt);
    actions.push(h("a", { class: "button", id: "rematch-leaderboard", href: offer.leaderboard, text: S.leaderboard }));
  } else if (offer.game !== null) {
    if (accepted && knownGame === null) {
      knownGame = offer.game;
      window.location.assign(gamePath(offer.game));
    }
    texts.push(S.started);
    actions.push(h("a", { class: "button", id: "rematch-go", href: gamePath(offer.game), text: S.go }));
  } else if (offer.declined.length) {
    texts.push(format(S.declined, { names: namesOf(state, offer.declined) }));
    actions.push(h("a", { class: "button", id: "rematch-lobby", href: "/", text: S.lobby }));
  } else if (asked) {
    const others = offer.accepted.filter((id) => id !== userId);
    const waiting = offer.asked.filter((id) => !offer.accepted.includes(id));
    if (others.length) texts.push(format(S.wants, { names: namesOf(state, others) }));
    if (accepted) {
      texts.push(S.you_accepted);
      if (waiting.length) texts.push(format(S.waiting, { names: namesOf(state, waiting) }));
    } else {
      const solo = offer.asked.length === 1 && state.players.length === 1;
      if (!others.length) texts.push(solo ? S.question_solo : S.question);
      actions.push(
        h("button", { type: "button", class: "primary", id: "rematch-accept", disabled: busy, text: S.play_again }),
      );
    }
    if (offer.asked.length > 1 || accepted) {
      actions.push(h("button", { type: "button", id: "rematch-decline", disabled: busy, text: S.decline }));
    }
  }
  if (problem) texts.push(problem);

  // Drawn again only when it changed: a STATE of the finished game (someone's socket opened
  // or closed) must not take the keyboard's focus off a button.
  const key = JSON.stringify([texts, actions.map((node) => [node.id, node.disabled || false])]);
  if (key === panel.dataset.key) return;
  panel.dataset.key = key;
  panel.hidden = !texts.length && !actions.length;
  panel.replaceChildren(...texts.map((text) => h("p", { class: "rematch-text", text })));
  if (actions.length) panel.append(h("div", { class: "rematch-actions" }, actions));
  const accept = panel.querySelector("#rematch-accept");
  if (accept) accept.addEventListener("click", () => answer(state, true, T, userId));
  const decline = panel.querySelector("#rematch-decline");
  if (decline) decline.addEventListener("click", () => answer(state, false, T, userId));
}
