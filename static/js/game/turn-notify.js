// A system notification (Web Notifications API) when the move becomes the viewer's while the
// game's tab is hidden: title the game's name, body "Your move in <kind>" in the page's
// language, tagged with the game's id (a newer one replaces an older one of the same game);
// a click on it brings the tab to the front. The turn signal (game/turn-signal.js) says when
// the move became the viewer's.
//
// The head shows one of three things, only to a seated player of a game with other players
// (a solo game's page has none of them): while the browser has not been asked, a button that
// asks it (a request needs the visitor's click); once allowed, a toggle (aria-pressed) that
// switches the notifications off and on again, remembered by this browser; once refused, a
// short note saying so (only the browser's settings can undo that).

const STORAGE_KEY = "ratumrad.turnNotify"; // "off", or nothing: notifications are on

function readOn() {
  try {
    return window.localStorage.getItem(STORAGE_KEY) !== "off";
  } catch {
    return true; // no storage (private mode): on, for this page only
  }
}

function writeOn(on) {
  try {
    if (on) window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, "off");
  } catch {
    // not remembered, still switched for this page
  }
}

function permission() {
  return "Notification" in window ? window.Notification.permission : "unsupported";
}

export class TurnNotifier {
  // ask, toggle, denied: the head's button, toggle and note (null on a solo game's page);
  // title: the game's name; body: "Your move in <kind>"; tag: the game's id.
  constructor({ ask, toggle, denied, title, body, tag }) {
    this.ask = ask;
    this.toggle = toggle;
    this.denied = denied;
    this.title = title;
    this.body = body;
    this.tag = tag;
    this.seated = false;
    this.on = readOn();
    this.shown = null; // the notification on screen, closed when the tab comes back
    if (!this.present()) return;
    ask.addEventListener("click", () => this.request());
    toggle.addEventListener("click", () => {
      this.on = !this.on;
      writeOn(this.on);
      this.render();
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.close();
      this.render(); // the browser's settings may have changed meanwhile
    });
  }

  present() {
    return Boolean(this.ask && this.toggle && this.denied);
  }

  // Whether the viewer has a seat (the head's controls are a player's).
  update(seated) {
    this.seated = Boolean(seated);
    this.render();
  }

  render() {
    if (!this.present()) return;
    const state = this.seated ? permission() : "unsupported";
    this.ask.hidden = state !== "default";
    this.toggle.hidden = state !== "granted";
    this.denied.hidden = state !== "denied";
    this.toggle.setAttribute("aria-pressed", String(this.on));
  }

  async request() {
    if (permission() !== "default") return this.render();
    try {
      await window.Notification.requestPermission();
    } catch {
      // an old browser's callback form, or a refusal to ask: the state below says what holds
    }
    this.render();
  }

  // The move has just become the viewer's.
  myTurn() {
    if (!this.present() || !this.seated || !this.on) return;
    if (document.visibilityState !== "hidden" || permission() !== "granted") return;
    this.close();
    try {
      const notice = new window.Notification(this.title, { body: this.body, tag: this.tag });
      notice.addEventListener("click", () => {
        window.focus();
        notice.close();
      });
      this.shown = notice;
    } catch {
      // a browser that shows notifications only from a service worker: the title says it
    }
  }

  // The move is no longer the viewer's, or the tab is in front: the notification is old news.
  close() {
    if (!this.shown) return;
    try {
      this.shown.close();
    } catch {
      // already gone
    }
    this.shown = null;
  }
}
