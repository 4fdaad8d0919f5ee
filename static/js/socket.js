// A JSON websocket that reconnects by itself.
//
//   const socket = openSocket("/ws/games/7/", { onMessage, onOpen, onLost });
//   socket.send({ type: "SYNC" });
//
// onOpen runs after every (re)connect: the server sends a fresh STATE then, and the page may
// ask for more (history). onLost runs when an open connection drops; the socket then retries
// with a growing pause (0.5 s up to 10 s). send() returns false when the socket is not open.
// A close the server means for good (not logged in, no such game, not to be shown) is not
// retried: onGone gets its code. Past the cap on open sockets (4429) it keeps retrying, slowly.
// MY_TURNS (a game waits, or no longer, for this person's move) also updates the nav's count.
import { applyMyTurns } from "./my-turns.js";

const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 10000;
const FINAL_CLOSE_CODES = new Set([4001, 4003, 4004]);

export function openSocket(
  path,
  { onMessage, onOpen = () => {}, onLost = () => {}, onGone = () => {} },
) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const url = `${scheme}//${window.location.host}${path}`;
  let socket = null;
  let pause = FIRST_PAUSE_MS;
  let closed = false;
  let wasOpen = false;

  function connect() {
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      pause = FIRST_PAUSE_MS;
      wasOpen = true;
      onOpen();
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message?.type === "MY_TURNS") applyMyTurns(message); // every page's nav count
      onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (closed) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        closed = true;
        onGone(event.code);
        return;
      }
      if (wasOpen) onLost();
      wasOpen = false;
      window.setTimeout(connect, pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    });
  }

  connect();
  return {
    send(message) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
    close() {
      closed = true;
      if (socket) socket.close();
    },
    get isOpen() {
      return socket !== null && socket.readyState === WebSocket.OPEN;
    },
  };
}
