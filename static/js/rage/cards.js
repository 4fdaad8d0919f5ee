// RAGE's cards as DOM nodes: a colour card is its colour (a class), its colour's letter and its
// value, so the colour is never told by the colour alone; an action card is its symbol and a
// short name. Every string comes from the table's strings (templates/games/rage/table.html).
import { format, h } from "../game/dom.js";

export const COLORS = ["blue", "green", "red", "yellow", "violet", "cyan"];
export const ACTIONS = ["joker", "no_trump", "change_trump", "plus5", "minus5"];
const SYMBOLS = { joker: "★", no_trump: "⊘", change_trump: "⇄", plus5: "+5", minus5: "−5" };
const KEYS = { joker: "Joker", no_trump: "NoTrump", change_trump: "ChangeTrump", plus5: "Plus5", minus5: "Minus5" };

export function colorOf(card) {
  const dash = card.lastIndexOf("-");
  if (dash < 0) return null;
  const color = card.slice(0, dash);
  return COLORS.includes(color) ? color : null;
}

export function valueOf(card) {
  const dash = card.lastIndexOf("-");
  return dash < 0 ? "" : card.slice(dash + 1);
}

const cap = (color) => color.charAt(0).toUpperCase() + color.slice(1);
export const colorName = (S, color) => S[`color${cap(color)}`] || color;
export const colorLetter = (S, color) => S[`letter${cap(color)}`] || color.charAt(0).toUpperCase();

// "blue 7", "Joker", "Joker (red)".
export function cardName(S, card, color) {
  if (KEYS[card]) {
    const name = S[`name${KEYS[card]}`] || card;
    return card === "joker" && color ? `${name} (${colorName(S, color)})` : name;
  }
  return format(S.colorCard, { color: colorName(S, colorOf(card)), value: valueOf(card) });
}

// The face of a card: {class, children} for a <button> or a <span>.
// color: the colour a Joker named (shown as its letter in a corner).
export function cardFace(S, card, color = null) {
  const own = colorOf(card);
  if (own) {
    return {
      class: `rg-card rg-c-${own}`,
      children: [
        h("span", { class: "rg-card-letter", "aria-hidden": "true", text: colorLetter(S, own) }),
        h("span", { class: "rg-card-value", "aria-hidden": "true", text: valueOf(card) }),
      ],
    };
  }
  const key = KEYS[card] || "";
  const classes = [`rg-card rg-action rg-a-${card.replace("_", "-")}`];
  const children = [
    h("span", { class: "rg-card-symbol", "aria-hidden": "true", text: SYMBOLS[card] || "?" }),
    h("span", { class: "rg-card-short", "aria-hidden": "true", text: S[`short${key}`] || card }),
  ];
  if (card === "joker" && color) {
    classes.push(`rg-c-${color}`, "rg-named");
    children.unshift(h("span", { class: "rg-card-letter", "aria-hidden": "true", text: colorLetter(S, color) }));
  }
  return { class: classes.join(" "), children };
}

// A card shown (not played from the hand): a span with the card's name for screen readers.
export function cardNode(S, card, color = null, extra = "") {
  const face = cardFace(S, card, color);
  return h(
    "span",
    { class: `${face.class} ${extra}`.trim(), role: "img", "aria-label": cardName(S, card, color), title: cardName(S, card, color) },
    face.children,
  );
}
