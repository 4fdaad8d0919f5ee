// The game socket's protocol (docs/protocol.md), the same for every kind of game: the socket
// and its reconnects, `seq` tracking, moves with `ref` and `expect_seq` and their ACK or
// ERROR, the resync when news went missing, the busy state while a move is on its way, and a
// move refused as stale sent again. It draws nothing: the page (static/js/shell.js) hears of
// every change through the callbacks.
//
//   const client = createClient({ path, state, onChange, onEvent, ... });
//   client.sendMove({ type: "VOTE_END", end: true });
//   client.busy       a move is on its way, or the socket is not open: the buttons wait
//   client.connected  the socket is open
//
// Callbacks (each optional but onChange):
//   onChange()                the state, the busy flag or the connection changed: draw again
//   onEvent(seq, event)       a live EVENT (an activity-feed entry)
//   onHistory(events, chat)   the HISTORY asked for after every (re)connect, or after a gap
//   onChat(line)              a CHAT line (the sender's own too)
//   onError(code, message)    a refusal the player should read (not `stale`: that is retried)
//   onOpen() / onLost()       the socket (re)connected / an open connection dropped
//   onOffline()               a message could not be sent: the socket is not open
//   retryKey(state) -> str    what must be unchanged for a move refused as stale to be sent
//                             again on the next STATE if it is still legal (Rat um Rad: the
//                             face-up display); by default only that it is still legal
import { openSocket } from "./socket.js";

export { openSocket };

const BUSY_TIMEOUT_MS = 8000;
const STATE_WAIT_MS = 3000; // after an ACK, for the STATE of its seq
const HISTORY_REF = "history";
const nothing = () => {};

export function createClient({
  path,
  state: initialState,
  onChange,
  onEvent = nothing,
  onHistory = nothing,
  onChat = nothing,
  onError = nothing,
  onOpen = nothing,
  onLost = nothing,
  onOffline = nothing,
  retryKey = () => "",
}) {
  let state = initialState;
  let lastSeq = state.seq; // highest seq of an EVENT or STATE seen
  let refCount = 0;
  let busy = null; // {ref, seq, move, key, timer}: a move on its way; the buttons wait
  let sent = null; // the last move sent, until its answer (a STATE can end `busy` before that)
  let retry = null; // a move refused as stale, sent again if the next STATE still allows it

  const socket = openSocket(path, {
    onMessage: receive,
    onOpen() {
      onOpen();
      onChange(); // the buttons wake up
      socket.send({ type: "REQUEST_HISTORY", ref: HISTORY_REF });
    },
    onLost() {
      onLost();
      setBusy(null);
    },
  });

  function receive(message) {
    switch (message.type) {
      case "STATE":
        noteSeq(message.seq, false);
        if (message.seq >= state.seq) {
          state = message.state;
          if (busy && state.seq > busy.seq) setBusy(null);
          onChange();
          retryStale();
        }
        break;
      case "EVENT":
        noteSeq(message.seq, true);
        onEvent(message.seq, message.event || {});
        break;
      case "HISTORY":
        onHistory(message.events || [], message.chat || []);
        break;
      case "CHAT":
        onChat(message);
        break;
      case "ERROR":
        refused(message);
        break;
      case "ACK":
        if (sent && message.ref === sent.ref) sent = null;
        awaitState(message.seq);
        break;
      default:
        break; // PRESENCE: the STATE that follows carries the change
    }
  }

  // The STATE of an acknowledged move comes separately; if it got lost on the way (a server
  // restarting its message broker), ask for the state instead of waiting for the next change.
  function awaitState(seq) {
    window.setTimeout(() => {
      if (state.seq < seq) socket.send({ type: "SYNC" });
    }, STATE_WAIT_MS);
  }

  function noteSeq(seq, isEvent) {
    // An EVENT more than one move ahead means messages were lost: ask for the truth, and for
    // the feed with the entries that were lost.
    if (isEvent && seq > lastSeq + 1) {
      socket.send({ type: "SYNC" });
      socket.send({ type: "REQUEST_HISTORY", ref: HISTORY_REF });
    }
    lastSeq = Math.max(lastSeq, seq);
  }

  function refused(message) {
    if (message.ref === HISTORY_REF) return; // a server without history: the feed grows live
    // Another player's STATE may have come first and ended `busy`: the move is still ours.
    const mine = sent && message.ref === sent.ref ? sent : null;
    if (mine) {
      sent = null;
      if (busy === mine) setBusy(null);
    }
    if (message.code === "stale") {
      retry = mine;
      socket.send({ type: "SYNC" });
      return;
    }
    onError(message.code, message.message);
  }

  // One entry of state.legal, chosen from the state it came with. Nothing is sent while
  // another move is on its way.
  function sendMove(move) {
    if (busy) return false;
    refCount += 1;
    const ref = `m${refCount}`;
    if (!socket.send({ ...move, ref, expect_seq: state.seq })) {
      onOffline();
      return false;
    }
    setBusy({ ref, seq: state.seq, move, key: retryKey(state) });
    sent = busy;
    return true;
  }

  // Someone else moved first (a vote, or another player's choice in the preparation). If the
  // same move is still legal and what it was chosen from is unchanged, the choice stands.
  function retryStale() {
    if (!retry || state.seq <= retry.seq) return;
    const wanted = JSON.stringify(retry.move);
    const unchanged = retryKey(state) === retry.key;
    retry = null;
    const again = (state.legal || []).find((move) => JSON.stringify(move) === wanted);
    if (again && unchanged) sendMove(again);
  }

  function setBusy(next) {
    if (busy) window.clearTimeout(busy.timer);
    busy = next;
    if (busy) busy.timer = window.setTimeout(() => setBusy(null), BUSY_TIMEOUT_MS);
    onChange();
  }

  // A message that is not a move (TAKE_SEAT_BACK, LEAVE_GAME, CHAT, SYNC); false when the
  // socket is not open (onOffline has been told).
  function send(message) {
    if (socket.send(message)) return true;
    onOffline();
    return false;
  }

  return {
    get state() {
      return state;
    },
    // Also while the socket is not open (the page has just loaded, or the connection
    // dropped): a click then would be lost, so the buttons wait for the connection.
    get busy() {
      return Boolean(busy) || !socket.isOpen;
    },
    get connected() {
      return socket.isOpen;
    },
    sendMove,
    send,
    // Seat messages carry a ref of their own, so that their answer is told apart.
    sendSeat(type) {
      refCount += 1;
      return send({ type, ref: `s${refCount}` });
    },
    sync() {
      return socket.send({ type: "SYNC" });
    },
    close() {
      socket.close();
    },
  };
}
