// How many games wait for this person's move: the nav's "My games" badge and the page title's
// "(n)" prefix. The page renders both; every socket of the site then passes on MY_TURNS
// ({game, your_move}) through `applyMyTurns`, and both follow.
const badge = document.getElementById("my-turns");
const waiting = new Set(
  (badge?.dataset.games ?? "")
    .split(",")
    .filter(Boolean)
    .map(Number),
);
const baseTitle = document.title.replace(/^\(\d+\) /, "");

function render() {
  if (!badge) return;
  const count = waiting.size;
  badge.dataset.count = String(count);
  badge.hidden = count === 0;
  // The badge's last text is the number (a hidden label for screen readers comes first).
  badge.lastChild.textContent = String(count);
  document.title = count ? `(${count}) ${baseTitle}` : baseTitle;
}

export function applyMyTurns(message) {
  if (message.type !== "MY_TURNS" || !Number.isInteger(message.game)) return;
  if (message.your_move) waiting.add(message.game);
  else waiting.delete(message.game);
  render();
}
