// The signal that it is the viewer's move, the same for every kind of game: while it is, the
// page's title starts with "▶ Your turn · " (seen on a background tab); when it becomes so, a
// short beep (WebAudio, no sound file). Browsers let a page make sound only once its visitor
// has interacted with it, so the beep waits for a first click or key; and the visitor may
// switch it off with the sound button (aria-pressed), which this browser remembers. Others
// that act when the move becomes the viewer's and when it stops being so (the notification of
// game/turn-notify.js) pass onMyTurn and onTurnOver.
import { baseTitle, setTitleCore } from "../my-turns.js";
import { format } from "./dom.js";

const STORAGE_KEY = "ratumrad.turnSound"; // "off", or nothing: the sound is on
const BEEP = { frequency: 880, seconds: 0.25, volume: 0.2 };

function readSoundOn() {
  try {
    return window.localStorage.getItem(STORAGE_KEY) !== "off";
  } catch {
    return true; // no storage (private mode): on, for this page only
  }
}

function writeSoundOn(on) {
  try {
    if (on) window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, "off");
  } catch {
    // not remembered, still switched for this page
  }
}

export class TurnSignal {
  // button: the sound toggle; titleTemplate: "▶ Your turn · {title}" in the page's language;
  // onMyTurn, onTurnOver: called when the move becomes the viewer's and when it stops being so.
  constructor({ button, titleTemplate, onMyTurn = () => {}, onTurnOver = () => {} }) {
    this.button = button;
    this.titleTemplate = titleTemplate;
    this.onMyTurn = onMyTurn;
    this.onTurnOver = onTurnOver;
    this.baseTitle = baseTitle; // without the count of games waiting (my-turns.js owns it)
    this.mine = null; // unknown before the first update: a page opened on your move is silent
    this.soundOn = readSoundOn();
    this.interacted = false;
    this.audio = null;
    this.showButton();
    button.addEventListener("click", () => {
      this.soundOn = !this.soundOn;
      writeSoundOn(this.soundOn);
      this.showButton();
    });
    const wake = () => {
      this.interacted = true;
      // Made within the visitor's gesture, the audio context may start playing at once.
      if (this.soundOn) this.context();
      window.removeEventListener("pointerdown", wake, true);
      window.removeEventListener("keydown", wake, true);
    };
    window.addEventListener("pointerdown", wake, true);
    window.addEventListener("keydown", wake, true);
  }

  showButton() {
    this.button.setAttribute("aria-pressed", String(this.soundOn));
  }

  // Whether it is the viewer's move now (the turn line's `mine`); seated: the viewer has a seat.
  update(mine, seated) {
    this.button.hidden = !seated;
    const was = this.mine;
    this.mine = Boolean(mine);
    setTitleCore(this.mine ? format(this.titleTemplate, { title: this.baseTitle }) : this.baseTitle);
    if (this.mine && was === false) {
      this.beep();
      this.onMyTurn();
    } else if (!this.mine && was === true) {
      this.onTurnOver();
    }
  }

  context() {
    if (this.audio) return this.audio;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    try {
      this.audio = new Context();
    } catch {
      this.audio = null;
    }
    return this.audio;
  }

  beep() {
    if (!this.soundOn || !this.interacted) return;
    const audio = this.context();
    if (!audio) return;
    try {
      if (audio.state === "suspended") audio.resume().catch(() => {});
      const now = audio.currentTime;
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = "sine";
      oscillator.frequency.setValueAtTime(BEEP.frequency, now);
      gain.gain.setValueAtTime(0.0001, now);
      gain.gain.exponentialRampToValueAtTime(BEEP.volume, now + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + BEEP.seconds);
      oscillator.connect(gain);
      gain.connect(audio.destination);
      oscillator.start(now);
      oscillator.stop(now + BEEP.seconds + 0.05);
    } catch {
      // no sound: the title and the turn line still say it
    }
  }
}
