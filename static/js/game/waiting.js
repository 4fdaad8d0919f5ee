// The waiting room: the seats taken and free, and who may start or join.
import { badge, format, h } from "./dom.js";

export function renderWaiting(parts, state, T, userId) {
  const seats = state.players.map((player) => {
    const item = h("li", { class: player.id === userId ? "me" : null }, h("span", { class: "player-name", text: player.name }));
    if (player.id === userId) item.append(" ", badge("you", T.you));
    if (player.is_bot) item.append(" ", badge("bot", T.bot, T.bot_title));
    if (player.id === state.creator) item.append(" ", badge("creator", T.creator));
    return item;
  });
  for (let i = state.players.length; i < (state.max_players || 0); i += 1) {
    seats.push(h("li", { class: "free" }, T.free_seat));
  }
  parts.seats.replaceChildren(...seats);
  const isCreator = Boolean(state.you) && state.creator === userId;
  const enough = state.players.length >= (state.min_players ?? 2);
  parts.start.hidden = !isCreator;
  parts.start.disabled = !enough;
  parts.join.hidden = Boolean(state.you) || state.players.length >= (state.max_players || 0);
  const creator = state.players.find((player) => player.id === state.creator);
  if (isCreator) parts.text.textContent = enough ? "" : T.need_players;
  else parts.text.textContent = format(T.waiting_for_creator, { name: creator ? creator.name : "?" });
}
