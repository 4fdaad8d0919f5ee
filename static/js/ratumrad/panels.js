// Rat um Rad's side panels and its part of the end screen, drawn from one STATE. Nothing here
// talks to the server: buttons call the handlers the table passes in.
import { badge, format, h } from "../game/dom.js";
import { inPlay, legalOf } from "../game/state.js";

export const CARD_ORDER = ["red", "blue", "orange", "green", "yellow", "pink", "black", "white", "joker"];

// A colour's letter on the colour itself: colour-blind players read the letter.
export function chip(T, color) {
  return h("span", { class: `chip c-${color}`, "aria-hidden": "true", text: T.letters[color] || "" });
}

function stat(label, value) {
  return h("div", { class: "stat" }, h("dt", { text: label }), h("dd", { text: value }));
}

export function renderPlayers(list, state, T, userId) {
  const dealt = state.status !== "WAITING";
  const items = state.players.map((player) => {
    const current = inPlay(state) && state.current_player === player.id;
    const item = h("li", {
      class: ["player", current && "current", player.id === userId && "me", player.left && "gone"]
        .filter(Boolean)
        .join(" "),
    });
    const head = h("div", { class: "player-head" });
    if (player.color) {
      head.append(
        h(
          "span",
          { class: `swatch c-${player.color}`, title: T.colors[player.color] || player.color },
          T.letters[player.color] || "",
        ),
      );
      head.lastChild.append(h("span", { class: "visually-hidden", text: ` ${T.colors[player.color]}` }));
    }
    head.append(h("span", { class: "player-name", text: player.name }));
    if (player.id === userId) head.append(badge("you", T.you));
    if (current) head.append(badge("turn", T.current_player));
    if (player.is_bot) head.append(badge("bot", T.bot, T.bot_title));
    if (player.autopilot) head.append(badge("autopilot", T.autopilot, T.autopilot_title));
    if (player.left) head.append(badge("left", T.left, T.left_title));
    if (!player.is_bot && !player.left) {
      head.append(
        badge(player.connected ? "online" : "offline", player.connected ? T.online : T.offline),
      );
    }
    if (state.status === "PREPARATION" && player.prepared) head.append(badge("prepared", T.prepared));
    if (player.voted_end) head.append(badge("vote", T.voted_end));
    item.append(head);
    if (dealt) {
      let cards = String(player.destination_cards ?? 0);
      if (player.pending_destination_cards) {
        cards += ` (${format(T.pending_cards, { count: player.pending_destination_cards })})`;
      }
      item.append(
        h(
          "dl",
          { class: "stats" },
          stat(T.score, player.score ?? 0),
          stat(T.wheels, player.wheels ?? 0),
          stat(T.wheel_cards, player.wheel_cards ?? 0),
          stat(T.destination_cards, cards),
        ),
      );
    }
    return item;
  });
  list.replaceChildren(...items);
}

export function renderHand(list, state, T) {
  const hand = state.you && state.you.hand;
  if (!hand) {
    list.replaceChildren();
    return;
  }
  const items = CARD_ORDER.map((color) =>
    h(
      "li",
      { class: `hand-card${hand[color] ? "" : " none"}` },
      chip(T, color),
      h("span", { class: "hand-color", text: T.colors[color] }),
      h("span", { class: "hand-count", text: hand[color] ?? 0 }),
    ),
  );
  list.replaceChildren(...items);
}

// The display and the piles; onTake(move) sends a TAKE_WHEEL entry of state.legal.
export function renderDraw(parts, state, T, busy, onTake, onDrawDestinations) {
  const takes = legalOf(state, "TAKE_WHEEL");
  const secondCard = state.turn === "second_card" && state.you && state.current_player === state.you.player_id;
  let jokerBlocked = false;
  const slots = (state.face_up || []).map((color, slot) => {
    const move = takes.find((m) => m.source === "face_up" && m.slot === slot);
    if (!color) {
      return h("li", {}, h("button", { type: "button", class: "card-button empty", disabled: true, text: T.empty_slot }));
    }
    const blocked = color === "joker" && secondCard && !move;
    jokerBlocked = jokerBlocked || blocked;
    const button = h(
      "button",
      {
        type: "button",
        class: `card-button c-${color}`,
        disabled: !move || busy,
        title: blocked ? T.joker_not_second : format(T.take_face_up, { color: T.colors[color] }),
        "aria-label": format(T.take_face_up, { color: T.colors[color] }),
        "aria-describedby": blocked ? "joker-note" : null,
      },
      chip(T, color),
      h("span", { class: "card-name", text: T.colors[color] }),
    );
    if (move) button.addEventListener("click", () => onTake(move));
    return h("li", {}, button);
  });
  parts.faceUp.replaceChildren(...slots);
  parts.jokerNote.textContent = T.joker_not_second;
  parts.jokerNote.hidden = !jokerBlocked;

  const deckMove = takes.find((m) => m.source === "deck");
  parts.deck.replaceChildren(h("span", { class: "deck-back", "aria-hidden": "true" }), format(T.deck, { count: state.deck ?? 0 }));
  parts.deck.disabled = !deckMove || busy;
  parts.deck.title = T.take_from_deck;
  parts.deck.setAttribute("aria-label", `${T.take_from_deck} (${format(T.deck, { count: state.deck ?? 0 })})`);
  parts.deck.onclick = deckMove ? () => onTake(deckMove) : null;
  parts.discard.textContent = format(T.discard, { count: state.discard ?? 0 });
  parts.shortDeck.textContent = format(T.short_deck, { count: state.short_deck ?? 0 });

  const draw = legalOf(state, "DRAW_DESTINATION_CARDS")[0];
  parts.drawDestinations.hidden = !draw;
  parts.drawDestinations.disabled = !draw || busy;
  parts.drawDestinations.onclick = draw ? () => onDrawDestinations(draw) : null;
}

export function cardText(T, card, placeName) {
  return format(T.card, { a: placeName(card.a), b: placeName(card.b) });
}

// A destination card's face: its places, its points and, for a long card, the badge.
export function cardFace(T, card, placeName) {
  return [
    h("span", { class: "destination-places", text: cardText(T, card, placeName) }),
    h("span", { class: "destination-points", text: format(T.card_points, { points: card.points }) }),
    card.long ? badge("long", T.card_long) : null,
  ];
}

// Your destination cards; focus or hover shows a card on the map, a click pins it.
export function renderDestinations(list, state, T, placeName, pinned, onPreview, onPin) {
  const cards = (state.you && state.you.destinations) || [];
  if (!cards.length) {
    list.replaceChildren(h("li", { class: "empty-note", text: T.no_destinations }));
    return;
  }
  const items = cards.map((card) => {
    const button = h(
      "button",
      {
        type: "button",
        class: `destination${card.complete ? " complete" : ""}${card.long ? " long" : ""}`,
        "aria-pressed": pinned.has(card.id) ? "true" : "false",
      },
      h("span", { class: "tick", "aria-hidden": "true", text: card.complete ? "✓" : "" }),
      cardFace(T, card, placeName),
      h("span", { class: card.complete ? "destination-state" : "visually-hidden", text: card.complete ? T.complete : T.not_complete }),
    );
    const preview = () => onPreview(card);
    const stop = () => onPreview(null);
    button.addEventListener("mouseenter", preview);
    button.addEventListener("focus", preview);
    button.addEventListener("mouseleave", stop);
    button.addEventListener("blur", stop);
    button.addEventListener("click", () => onPin(card.id));
    return h("li", {}, button);
  });
  list.replaceChildren(...items);
}

function signed(points, sign) {
  return points ? `${sign}${points}` : "0";
}

// The score sheet's own columns (R8.3), around the shared place, player and total: road
// points, destination cards reached and missed, the longest path; after the total, a button
// that shows the player's longest path on the map.
export function resultColumns(row, T, shownPaths, onTogglePath) {
  let path = String(row.longest_path);
  if (row.longest_path_bonus) path += ` · ${T.results_bonus}`;
  if (row.longest_path_tie) path += ` (${T.results_tie})`;
  const toggle = h("button", {
    type: "button",
    class: "path-toggle",
    "aria-pressed": shownPaths.has(row.player) ? "true" : "false",
    disabled: !(row.longest_path_roads && row.longest_path_roads.length),
    text: T.results_show_path,
  });
  toggle.addEventListener("click", () => onTogglePath(row.player));
  return {
    before: [
      { heading: T.results_road_points, class: "number", text: signed(row.road_points, "+") },
      {
        heading: T.results_reached,
        class: "number",
        text: `${row.destinations_reached} (${signed(row.destinations_reached_points, "+")})`,
      },
      {
        heading: T.results_missed,
        class: "number",
        text: `${row.destinations_missed} (${signed(row.destinations_missed_points, "−")})`,
      },
      { heading: T.results_longest_path, text: path },
    ],
    after: [{ heading: "", node: toggle }],
  };
}

// Below the score sheet: every player's destination cards revealed, and the cards left.
export function renderResultCards(list, state, T, placeName, userId) {
  const rows = state.results || [];
  const details = rows.map((row) => {
    const cards = (row.destinations || []).map((card) =>
      h(
        "li",
        { class: card.complete ? "reached" : "missed" },
        h("span", { class: "tick", "aria-hidden": "true", text: card.complete ? "✓" : "✗" }),
        " ",
        h("span", { text: cardText(T, card, placeName) }),
        " ",
        h("span", { class: "points", text: card.complete ? `+${card.points}` : `−${card.points}` }),
        " ",
        h("span", { class: "visually-hidden", text: card.complete ? T.reached : T.missed }),
        card.long ? badge("long", T.card_long) : null,
      ),
    );
    const hand = row.hand || {};
    const left = CARD_ORDER.filter((color) => hand[color]).map((color) => `${T.colors[color]} ${hand[color]}`);
    return h(
      "details",
      { class: "result-cards", open: row.player === userId },
      h("summary", { text: format(T.results_cards_of, { name: row.name }) }),
      h("ul", {}, cards),
      h("p", { class: "hand-left", text: format(T.results_hand_of, { cards: left.join(", ") || "0" }) }),
    );
  });
  list.replaceChildren(...details);
}
