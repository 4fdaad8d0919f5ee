// Reading a STATE (docs/protocol.md), the same for every kind of game.
const PLAYING = new Set(["RUNNING", "FINAL_ROUND"]);

// The entries of state.legal of one move type, each exactly as it may be sent.
export function legalOf(state, type) {
  return (state.legal || []).filter((move) => move.type === type);
}

// Turns are being taken (not waiting, not preparing, not over).
export function inPlay(state) {
  return PLAYING.has(state.status);
}
