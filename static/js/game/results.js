// The end screen's shared part: why the game ended, who won, your total, and the score sheet
// with the columns every kind has (place, player, total, and the rating change of a rated
// game, right after the total). The kind's table adds its own
// columns through resultColumns(row) (see static/js/shell.js) and draws any extras below.
import { format, h } from "./dom.js";
import { renderRematch } from "./rematch.js";

// A column of the kind's: {heading, text, class, node} -> one cell of a row.
function cell(column) {
  return h("td", { class: column.class || null, text: column.text }, column.node || null);
}

// A row's rating change as the score sheet shows it: "+3.2", "−1.5" (a real minus), "0.0".
export function ratingChangeText(change) {
  if (typeof change !== "number") return "–";
  const text = Math.abs(change).toFixed(1);
  if (text === "0.0") return text;
  return `${change > 0 ? "+" : "\u2212"}${text}`;
}

// extraColumns(row) -> {before: [column], after: [column]}, around the Total column.
// verdict: the kind's own sentence on the outcome (a solo game: whether its goal was reached),
// or null for "Winner: ...". Who won is each row's `won`, never its place.
export function renderResults(parts, state, T, userId, extraColumns, verdict = null) {
  const rows = state.results || [];
  parts.reason.textContent = T.end_reasons[state.end_reason] || "";
  const winners = rows.filter((row) => row.won).map((row) => row.name);
  const named = format(winners.length > 1 ? T.results_winners : T.results_winner, {
    names: winners.join(", "),
  });
  parts.winner.textContent = verdict || (winners.length ? named : T.results_no_winner);
  const mine = rows.find((row) => row.player === userId);
  const one = mine && new Intl.PluralRules(document.documentElement.lang).select(mine.total) === "one";
  parts.you.textContent = mine ? format(one ? T.results_you_one : T.results_you, { total: mine.total }) : "";
  parts.you.hidden = !mine;

  const extras = rows.map((row) => {
    const columns = extraColumns(row) || {};
    return { before: columns.before || [], after: columns.after || [] };
  });
  const first = extras[0] || { before: [], after: [] };
  // A rated game's rows carry rating_change (docs/protocol.md 4.4); others have no column.
  const rated = rows.some((row) => typeof row.rating_change === "number");
  const headings = [
    T.results_place,
    T.results_player,
    ...first.before.map((column) => column.heading || ""),
    T.results_total,
    ...(rated ? [T.results_rating] : []),
    ...first.after.map((column) => column.heading || ""),
  ];
  const head = h("thead", {}, h("tr", {}, headings.map((text) => h("th", { scope: "col", text }))));
  const body = h(
    "tbody",
    {},
    rows.map((row, index) => {
      let place = `${row.place}.`;
      if (row.tied) place += ` (${T.results_shared_place})`;
      const player = h("th", { scope: "row" });
      if (row.color) {
        player.append(
          h("span", { class: `swatch c-${row.color}`, title: T.colors[row.color] }, T.letters[row.color] || ""),
          " ",
        );
      }
      player.append(h("span", { class: "player-name", text: row.name }));
      return h(
        "tr",
        { class: [row.won && "winner", row.player === userId && "me"].filter(Boolean).join(" ") },
        h("td", { text: place }),
        player,
        extras[index].before.map(cell),
        h("td", { class: "number total", text: row.total }),
        rated ? ratingCell(row.rating_change, T) : null,
        extras[index].after.map(cell),
      );
    }),
  );
  parts.table.replaceChildren(head, body);
  renderRematch(state, T, userId); // "Play again", below the score sheet
}

function ratingCell(change, T) {
  const text = ratingChangeText(change);
  const sign = { "+": "rating-up", "\u2212": "rating-down" }[text[0]];
  return h("td", {
    class: ["number", "rating-change", sign].filter(Boolean).join(" "),
    title: T.results_rating_title,
    text,
  });
}
