// How many games wait for this person's move: the nav's "My games" badge and the page title's
// "(n)" prefix. The page renders both. Every socket of the site then passes on MY_TURNS
// ({game, your_move}: sent for turn-based games) through `applyMyTurns`, and a game page
// passes on its own game's turn as it sees it; both follow.
//
// This module owns the page's title: "(n) " and then its core, which a game page's turn
// signal may set ("▶ Your turn · ...": `setTitleCore`).
const badge = document.getElementById("my-turns");
const waiting = new Set(
  (badge?.dataset.games ?? "")
    .split(",")
    .filter(Boolean)
    .map(Number),
);
export const baseTitle = document.title.replace(/^\(\d+\) /, "");
let core = baseTitle;

function render() {
  const count = waiting.size;
  if (badge) {
    badge.dataset.count = String(count);
    badge.hidden = count === 0;
    // The badge's last text is the number (a hidden label for screen readers comes first).
    badge.lastChild.textContent = String(count);
  }
  const title = count ? `(${count}) ${core}` : core;
  if (document.title !== title) document.title = title;
}

export function setTitleCore(text) {
  core = text;
  render();
}

export function applyMyTurns(message) {
  if (message.type !== "MY_TURNS" || !Number.isInteger(message.game)) return;
  if (!badge) return; // nobody logged in: no count
  if (message.your_move) waiting.add(message.game);
  else waiting.delete(message.game);
  render();
}
