// The activity feed and the chat: newest at the bottom, history replaced on every (re)connect.
import { h } from "./dom.js";
import { timeElement } from "../time.js";

function scrollToEnd(list) {
  list.scrollTop = list.scrollHeight;
}

export class Feed {
  constructor(list) {
    this.list = list;
    // The entries of the last HISTORY, counted by key. Their seq alone does not tell them
    // apart: the events of the waiting room and the deal all have seq 0.
    this.covered = new Map();
  }

  // The event's own fields, not its sentence: the names in a sentence may differ.
  key(seq, event) {
    const fields = Object.keys(event)
      .filter((name) => name !== "text")
      .sort()
      .map((name) => `${name}=${JSON.stringify(event[name])}`);
    return [seq, ...fields].join("|");
  }

  entry(seq, event) {
    return h("li", { class: `feed-${event.kind || "entry"}`, "data-seq": seq, text: event.text });
  }

  replace(items) {
    this.list.replaceChildren(...items.map((item) => this.entry(item.seq, item.event)));
    this.covered = new Map();
    for (const item of items) {
      const key = this.key(item.seq, item.event);
      this.covered.set(key, (this.covered.get(key) || 0) + 1);
    }
    scrollToEnd(this.list);
  }

  // A live EVENT; one the last HISTORY already held (a reconnect race) is left out.
  add(seq, event) {
    if (!event.text) return;
    const key = this.key(seq, event);
    const covered = this.covered.get(key) || 0;
    if (covered) {
      this.covered.set(key, covered - 1);
      return;
    }
    this.list.append(this.entry(seq, event));
    scrollToEnd(this.list);
  }
}

export class Chat {
  constructor(list) {
    this.list = list;
    this.seen = new Set();
  }

  entry(line) {
    return h(
      "li",
      {},
      timeElement(line.at, { style: "clock" }),
      " ",
      h("span", { class: "chat-name", text: line.name }),
      " ",
      h("span", { class: "chat-text", text: line.text }),
    );
  }

  key(line) {
    return `${line.player}|${line.at}|${line.text}`;
  }

  replace(lines) {
    this.seen = new Set(lines.map((line) => this.key(line)));
    this.list.replaceChildren(...lines.map((line) => this.entry(line)));
    scrollToEnd(this.list);
  }

  // True when the line is new (a line sent again after a reconnect is not shown twice).
  add(line) {
    const key = this.key(line);
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    this.list.append(this.entry(line));
    scrollToEnd(this.list);
    return true;
  }
}
