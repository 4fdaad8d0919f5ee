// Small helpers to build DOM and SVG nodes, shared by the game page's shell and every kind's
// table. Text always goes in as textContent, never as HTML.
export const SVG_NS = "http://www.w3.org/2000/svg";

function build(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "class") node.setAttribute("class", value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

// "{name}'s turn" + {name: "Lea"} -> "Lea's turn"
export function format(template, values = {}) {
  return String(template).replace(/\{(\w+)\}/g, (whole, key) =>
    key in values ? String(values[key]) : whole,
  );
}

// A small label on a player or a card: "you", "computer", "long"...
export function badge(kind, text, title) {
  return h("span", { class: `badge badge-${kind}`, title: title || null, text });
}

export function show(node, visible) {
  node.hidden = !visible;
}

export function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

// Opens a <dialog> as a modal; when it closes, the focus goes back where it was.
export function openModal(dialog) {
  if (dialog.open) return;
  const back = document.activeElement;
  dialog.addEventListener(
    "close",
    () => {
      if (back && back.isConnected && typeof back.focus === "function") back.focus();
    },
    { once: true },
  );
  dialog.showModal();
}
