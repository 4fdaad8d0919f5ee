// The side panel "Your achievements": the page draws what the viewer had earned when it
// loaded; once the game is over, its state names the achievements this game earned the
// viewer first (state.you.new_achievements, docs/protocol.md 4.4), which turn earned here,
// marked as new, at the top of the list.
import { badge } from "./dom.js";

export function renderNewAchievements(panel, state, T) {
  if (!panel || state.status !== "FINISHED" || !state.you) return;
  const keys = Array.isArray(state.you.new_achievements) ? state.you.new_achievements : [];
  const list = panel.querySelector(".achievement-list");
  for (const key of [...keys].reverse()) {
    const item = [...panel.querySelectorAll("li[data-key]")].find((li) => li.dataset.key === key);
    if (!item || item.classList.contains("is-new")) continue;
    item.classList.add("is-earned", "is-new");
    const star = item.querySelector(".achievement-star");
    if (star) star.textContent = "★";
    const status = item.querySelector(".achievement-status");
    if (status) status.textContent = T.achievement_earned;
    item.append(" ", badge("new", T.achievement_new));
    if (list) list.prepend(item);
  }
}
