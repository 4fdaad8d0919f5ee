// RAGE's table on the game page: the round, trump and the turned-up pile, the variant, every
// seat (bid, tricks won, hand size, score, dealer, leader, whose turn), the current trick laid
// out by seat and the last trick on demand, the bid buttons (G2; under plus/minus one the
// dealer's forbidden bid is shown disabled with a note), the hand with the playable cards lit
// (G3.2) and the Joker's colour chooser (G3.5), and the score sheet round by round (G4.4).
// The markup is templates/games/rage/table.html (its strings are the data- attributes of
// #rage-strings); the shell (static/js/shell.js) calls createTable once and render(state,
// view) on every change. Everything drawn is classes (no inline style).
import { badge, format, h, openModal } from "../game/dom.js";
import { inPlay, legalOf } from "../game/state.js";
import { COLORS, cardFace, cardName, cardNode, colorLetter, colorName } from "./cards.js";

const $ = (id) => document.getElementById(id);

function readStrings(node) {
  const strings = {};
  if (node) for (const [name, value] of Object.entries(node.dataset)) strings[name] = value;
  return strings;
}

export function createTable({ userId, send }) {
  const S = readStrings($("rage-strings"));
  const jokerDialog = $("rg-joker-dialog");

  let state = null;
  let busy = false;
  let showLast = false;
  let sheetShown = ""; // what the sheets were drawn from

  // ---------------------------------------------------------------- reading the state

  const players = () => state.players || [];
  const nameOf = (id) => {
    const player = players().find((row) => row.id === id);
    return player ? player.name : "";
  };
  const seated = (current) => Boolean(current.you) && players().some((row) => row.id === userId);
  const over = (current) => current.status === "FINISHED";
  const started = (current) => current.status !== "WAITING" && Boolean(current.phase);
  const myMove = (current) => inPlay(current) && (current.to_move || []).includes(userId) && (current.legal || []).length > 0;

  // ---------------------------------------------------------------- rendering

  function render(next, view = {}) {
    state = next;
    busy = Boolean(view.busy);
    const live = started(state);
    $("rg-area").hidden = !live && !over(state);
    if (!live) {
      drawSheets();
      return;
    }
    drawBar();
    drawPile();
    drawSeats();
    drawTrick();
    drawBids();
    drawHand();
    drawSheets();
    if (jokerDialog.open && (busy || !legalOf(state, "PLAY_CARD").some((move) => move.card === "joker"))) {
      jokerDialog.close();
    }
  }

  function drawBar() {
    $("rg-round").textContent = format(S.roundOf, { round: state.round, rounds: state.rounds || 10 });
    $("rg-cards").textContent = String(state.cards ?? "");
    $("rg-stack").textContent = String(state.stack_size ?? 0);
    const trump = $("rg-trump");
    trump.classList.remove(...COLORS.map((color) => `rg-trump-${color}`));
    if (state.trump) {
      trump.textContent = format(S.trumpColor, { color: colorName(S, state.trump), letter: colorLetter(S, state.trump) });
      trump.classList.add(`rg-trump-${state.trump}`);
    } else trump.textContent = state.no_trump ? S.trumpNone : "–";
    trump.classList.toggle("rg-no-trump", Boolean(state.no_trump));
    const options = state.options || {};
    const names = [S[`bids${(options.bids || "open").replace(/^./, (c) => c.toUpperCase())}`] || options.bids];
    if (options.plus_minus_one) names.push(S.plusMinusOne);
    if (options.durchmarsch) names.push(S.durchmarsch);
    $("rg-variant").textContent = format(S.variant, { options: names.join(" · ") });
  }

  function drawPile() {
    const pile = state.trump_pile || [];
    $("rg-pile").replaceChildren(
      ...pile.map((card, index) => {
        const top = index === pile.length - 1;
        const faceDown = top && state.no_trump;
        const node = cardNode(S, card, null, ["rg-small", top && "rg-top", faceDown && "rg-face-down"].filter(Boolean).join(" "));
        if (faceDown) node.setAttribute("aria-label", `${cardName(S, card)}: ${S.faceDown}`);
        return h("li", {}, node);
      }),
    );
  }

  // A bid: its number, "?" while hidden (a tick and "bid made" while the others still bid).
  function bidValue(player) {
    if (player.bid !== null && player.bid !== undefined) return String(player.bid);
    if (player.has_bid && state.phase === "bidding") {
      return h(
        "span",
        { class: "rg-bid-in", title: S.bidMade },
        h("span", { "aria-hidden": "true", text: "✓" }),
        h("span", { class: "visually-hidden", text: S.bidMade }),
      );
    }
    return player.has_bid ? S.bidHidden : S.bidNone;
  }

  function stat(label, value, cls) {
    const dd = typeof value === "string" ? h("dd", { text: value }) : h("dd", {}, value);
    return h("div", { class: `rg-seat-stat ${cls}` }, h("dt", { text: label }), dd);
  }

  function drawSeats() {
    const toMove = new Set(inPlay(state) ? state.to_move || [] : []);
    $("rg-seats").replaceChildren(
      ...players().map((player) => {
        const turn = toMove.has(player.id);
        const item = h("li", {
          class: ["rg-seat", turn && "rg-turn", player.id === userId && "rg-me", player.left && "rg-gone"].filter(Boolean).join(" "),
          "data-player": player.id,
        });
        const head = h("div", { class: "rg-seat-head" }, h("span", { class: "rg-seat-name", text: player.name }));
        if (player.id === userId) head.append(badge("you", S.you));
        if (player.id === state.dealer) head.append(badge("dealer rg-dealer", S.dealer, S.dealerTitle));
        if (player.id === state.leader && state.phase === "playing") head.append(badge("leader rg-leader", S.leader, S.leaderTitle));
        if (turn) head.append(badge("turn rg-turn-badge", S.turn));
        if (player.is_bot) head.append(badge("bot", S.bot));
        if (player.autopilot) head.append(badge("autopilot", S.autopilot));
        if (player.left) head.append(badge("left", S.left));
        else if (!player.is_bot && player.connected === false) head.append(badge("offline", S.offline));
        item.append(
          head,
          h(
            "dl",
            { class: "rg-seat-stats" },
            stat(S.bid, bidValue(player), "rg-seat-bid"),
            stat(S.tricks, String(player.tricks_won ?? 0), "rg-seat-tricks"),
            stat(S.handSize, String(player.hand_size ?? 0), "rg-seat-hand"),
            stat(S.score, String(player.score ?? 0), "rg-seat-score"),
          ),
        );
        return item;
      }),
    );
  }

  // One slot per seat, in seat order from the trick's leader.
  function trickSlots(entries, leader, list) {
    const rows = players();
    const start = Math.max(0, rows.findIndex((player) => player.id === leader));
    const byPlayer = new Map(entries.map((entry) => [entry.player, entry]));
    const slots = [];
    for (let i = 0; i < rows.length; i += 1) {
      const player = rows[(start + i) % rows.length];
      const entry = byPlayer.get(player.id);
      const slot = h("li", { class: entry ? "rg-slot rg-played" : "rg-slot rg-empty", "data-player": player.id });
      slot.append(h("span", { class: "rg-slot-name", text: player.name }));
      if (entry) slot.append(cardNode(S, entry.card, entry.card === "joker" ? entry.color : null));
      else slot.append(h("span", { class: "rg-card rg-card-space", role: "img", "aria-label": S.notPlayed }));
      slots.push(slot);
    }
    list.replaceChildren(...slots);
  }

  function drawTrick() {
    const trick = state.trick || [];
    trickSlots(trick, state.leader, $("rg-trick"));
    $("rg-lead").textContent =
      state.phase === "playing" ? (state.lead_color ? format(S.leadColor, { color: `${colorName(S, state.lead_color)} (${colorLetter(S, state.lead_color)})` }) : S.leadNone) : "";
    const tricks = state.tricks || [];
    const last = tricks[tricks.length - 1];
    const toggle = $("rg-last-toggle");
    toggle.disabled = !last;
    if (!last) showLast = false;
    toggle.textContent = showLast ? S.lastHide : S.lastShow;
    toggle.setAttribute("aria-expanded", showLast ? "true" : "false");
    $("rg-last").hidden = !showLast;
    const winner = $("rg-last-winner");
    const said = last ? format(last.winner === userId ? S.lastWinnerYou : S.lastWinner, { number: tricks.length, name: nameOf(last.winner) }) : "";
    if (winner.textContent !== said) winner.textContent = said;
    winner.hidden = !last;
    if (showLast && last) {
      const leader = last.cards.length ? last.cards[0].player : null;
      trickSlots(last.cards, leader, $("rg-last-cards"));
      for (const slot of $("rg-last-cards").children) {
        if (Number(slot.dataset.player) === last.winner) slot.classList.add("rg-winner");
      }
    }
  }

  function drawBids() {
    const area = $("rg-bid-area");
    const bids = legalOf(state, "BID");
    area.hidden = !bids.length;
    $("rg-area").classList.toggle("rg-bidding", bids.length > 0);
    if (!bids.length) {
      $("rg-bids").replaceChildren();
      return;
    }
    const allowed = new Map(bids.map((move) => [move.tricks, move]));
    const buttons = [];
    let forbidden = null;
    for (let tricks = 0; tricks <= (state.cards || 0); tricks += 1) {
      const move = allowed.get(tricks);
      if (!move) forbidden = tricks;
      buttons.push(
        h("button", {
          type: "button",
          class: move ? "rg-bid-button" : "rg-bid-button rg-forbidden",
          "data-tricks": tricks,
          disabled: busy || !move,
          "aria-label": format(move ? S.bidButton : S.bidForbidden, { tricks }),
          "aria-describedby": move ? null : "rg-bid-note",
          text: tricks,
        }),
      );
    }
    $("rg-bids").replaceChildren(...buttons);
    const note = $("rg-bid-note");
    note.hidden = forbidden === null;
    note.textContent = forbidden === null ? "" : format(S.forbidden, { tricks: forbidden, cards: state.cards });
  }

  function drawHand() {
    const area = $("rg-hand-area");
    const hand = (state.you && state.you.hand) || [];
    area.hidden = !seated(state) || !inPlay(state);
    const playable = new Set(legalOf(state, "PLAY_CARD").map((move) => move.card));
    const list = $("rg-hand");
    const focused = document.activeElement && list.contains(document.activeElement) ? document.activeElement.dataset.index : null;
    list.replaceChildren(
      ...hand.map((card, index) => {
        const face = cardFace(S, card);
        const lit = playable.has(card);
        const button = h(
          "button",
          {
            type: "button",
            class: `${face.class} ${lit ? "rg-lit" : playable.size ? "rg-dim" : "rg-idle"}`,
            "data-card": card,
            "data-index": index,
            disabled: busy || !lit,
            "aria-label": format(lit ? S.cardPlayable : S.cardBlocked, { card: cardName(S, card) }),
            title: cardName(S, card),
          },
          face.children,
        );
        return h("li", {}, button);
      }),
    );
    $("rg-help").hidden = !playable.size;
    if (focused !== null) {
      const again = list.querySelector(`button[data-index="${focused}"]:not(:disabled)`) || list.querySelector("button:not(:disabled)");
      if (again) again.focus();
    }
  }

  // ---------------------------------------------------------------- the score sheet (G4.4)

  function sheetTable(table) {
    const sheet = state.sheet || [];
    const rows = players();
    const head = h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col", text: S.sheetRound }),
        h("th", { scope: "col", text: S.sheetCards }),
        rows.map((player) => h("th", { scope: "col", class: player.id === userId ? "rg-me" : null, text: player.name })),
      ),
    );
    const body = h(
      "tbody",
      {},
      sheet.map((round, index) => {
        const byPlayer = new Map(round.map((row) => [row.player, row]));
        const first = round[0] || {};
        return h(
          "tr",
          { class: "rg-sheet-round" },
          h("th", { scope: "row", text: index + 1 }),
          h("td", { class: "number", text: first.cards ?? "" }),
          rows.map((player) => {
            const row = byPlayer.get(player.id);
            if (!row) return h("td", { text: "" });
            const made = row.bid === row.tricks;
            const points = row.points > 0 ? `+${row.points}` : String(row.points);
            return h(
              "td",
              { class: ["rg-sheet-cell", made ? "rg-made" : "rg-missed", player.id === userId && "rg-me"].filter(Boolean).join(" ") },
              h("span", { class: "rg-sheet-total", text: row.total }),
              h("span", { class: "rg-sheet-detail", "aria-hidden": "true", text: `${row.bid}/${row.tricks} ${points}` }),
              h("span", {
                class: "visually-hidden",
                text: format(S.sheetCell, {
                  bid: row.bid,
                  tricks: row.tricks,
                  action: row.action_points,
                  bid_points: row.bid_points,
                  points: row.points,
                  total: row.total,
                }),
              }),
            );
          }),
        );
      }),
    );
    table.replaceChildren(head, body);
  }

  function drawSheets() {
    const sheet = state.sheet || [];
    const key = JSON.stringify([sheet.length, players().map((player) => player.name), state.status]);
    if (key !== sheetShown) {
      sheetShown = key;
      sheetTable($("rg-sheet"));
      if (over(state)) sheetTable($("rg-final-sheet"));
    }
    $("rg-sheet-panel").hidden = over(state); // the results show the whole sheet
    $("rg-sheet-empty").hidden = sheet.length > 0;
    $("rg-sheet").hidden = sheet.length === 0;
    $("rg-sheet-legend").hidden = sheet.length === 0;
  }

  // ---------------------------------------------------------------- moves

  $("rg-bids").addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest(".rg-bid-button") : null;
    if (!button || button.disabled || busy) return;
    const tricks = Number(button.dataset.tricks);
    const move = legalOf(state, "BID").find((entry) => entry.tricks === tricks);
    if (move) send(move);
  });

  $("rg-hand").addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("button.rg-card") : null;
    if (!button || button.disabled || busy) return;
    const card = button.dataset.card;
    const moves = legalOf(state, "PLAY_CARD").filter((entry) => entry.card === card);
    if (!moves.length) return;
    if (card === "joker") askJokerColor(moves);
    else send(moves[0]);
  });

  function askJokerColor(moves) {
    const list = $("rg-joker-colors");
    list.replaceChildren(
      ...moves.map((move) =>
        h(
          "button",
          {
            type: "button",
            class: `rg-joker-color rg-c-${move.color}`,
            "data-color": move.color,
            "aria-label": format(S.jokerAs, { color: colorName(S, move.color) }),
          },
          h("span", { class: "rg-card-letter", "aria-hidden": "true", text: colorLetter(S, move.color) }),
          h("span", { class: "rg-joker-color-name", text: colorName(S, move.color) }),
        ),
      ),
    );
    openModal(jokerDialog);
  }

  $("rg-joker-colors").addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest(".rg-joker-color") : null;
    if (!button) return;
    const move = legalOf(state, "PLAY_CARD").find((entry) => entry.card === "joker" && entry.color === button.dataset.color);
    jokerDialog.close();
    if (move && !busy) send(move);
  });

  $("rg-last-toggle").addEventListener("click", () => {
    showLast = !showLast;
    if (state) drawTrick();
  });

  // ---------------------------------------------------------------- the shell's hooks

  function turnText(current) {
    if (over(current)) {
      const row = (current.results || []).find((entry) => entry.player === userId);
      return { text: row ? format(S.overYou, { place: row.place, total: row.total }) : S.over, mine: false };
    }
    if (!inPlay(current) || !current.phase) return "";
    const toMove = current.to_move || [];
    if (myMove(current)) {
      return { text: current.phase === "bidding" ? S.yourBid : S.yourTurn, mine: true };
    }
    const rows = current.players || [];
    const names = toMove.map((id) => (rows.find((row) => row.id === id) || {}).name || "").filter(Boolean).join(", ");
    if (!names) return "";
    return { text: format(current.phase === "bidding" ? S.waitingBids : S.waitingFor, { names }), mine: false };
  }

  function resultColumns(row) {
    const made = (state && state.sheet ? state.sheet : []).reduce(
      (count, round) => count + round.filter((entry) => entry.player === row.player && entry.bid === entry.tricks).length,
      0,
    );
    return { before: [], after: [{ heading: S.resultsMade, text: String(made), class: "number rg-made-count" }] };
  }

  return {
    render,
    turnText,
    resultColumns,
    // A move refused as stale is sent again only at the same point of the same round.
    retryKey: (current) =>
      JSON.stringify(current.phase === "bidding" ? [current.round, current.phase] : [current.round, current.phase, (current.tricks || []).length, (current.trick || []).length]),
  };
}
