// The activity feed and the chat: newest at the bottom, history replaced on every (re)connect.
import { h } from "./dom.js";

function scrollToEnd(list) {
  list.scrollTop = list.scrollHeight;
}

export class Feed {
  constructor(list) {
    this.list = list;
    this.coveredSeq = -1; // events up to this seq came with the last HISTORY
  }

  entry(seq, event) {
    return h("li", { class: `feed-${event.kind || "entry"}`, "data-seq": seq, text: event.text });
  }

  replace(items) {
    this.list.replaceChildren(...items.map((item) => this.entry(item.seq, item.event)));
    this.coveredSeq = items.reduce((most, item) => Math.max(most, item.seq), -1);
    scrollToEnd(this.list);
  }

  // A live EVENT; one the last HISTORY already held (a reconnect race) is left out.
  add(seq, event) {
    if (seq <= this.coveredSeq || !event.text) return;
    this.list.append(this.entry(seq, event));
    scrollToEnd(this.list);
  }
}

export class Chat {
  constructor(list, language) {
    this.list = list;
    this.seen = new Set();
    this.clock = new Intl.DateTimeFormat(language || undefined, {
      hour: "2-digit",
      minute: "2-digit",
    });
  }

  entry(line) {
    const at = new Date(line.at);
    const time = Number.isNaN(at.getTime()) ? "" : this.clock.format(at);
    return h(
      "li",
      {},
      h("time", { datetime: line.at, text: time }),
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

  add(line) {
    const key = this.key(line);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.append(this.entry(line));
    scrollToEnd(this.list);
  }
}
