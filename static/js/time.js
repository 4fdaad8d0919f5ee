// Every time the site shows, in one time zone (the browser's) and in the page's language
// (<html lang>, not the browser's). The server renders <time datetime="ISO 8601, UTC">a
// fallback</time>; this module rewrites each such element when it loads, and the scripts that
// draw times later (the lobby, the game's chat) use timeText/timeElement from here.
//
// data-style on a <time> chooses the form:
//   "datetime" (the default)  date and time: "26.11.2026, 05:20"
//   "date"                    the date alone
//   "time"                    the time of day alone
//   "clock"                   the time of day if it is today, else date and time
//   "day"                     a calendar day (datetime="YYYY-MM-DD"): the same day everywhere
const language = document.documentElement.lang || undefined;

const FORMATS = {
  datetime: new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }),
  date: new Intl.DateTimeFormat(language, { dateStyle: "medium" }),
  time: new Intl.DateTimeFormat(language, { timeStyle: "short" }),
  day: new Intl.DateTimeFormat(language, { dateStyle: "long", timeZone: "UTC" }),
};

function sameDay(moment) {
  return moment.toDateString() === new Date().toDateString();
}

// The text of `iso` in `style`; null if it is no time.
export function timeText(iso, style = "datetime") {
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return null;
  const form = style === "clock" ? (sameDay(moment) ? "time" : "datetime") : style;
  return (FORMATS[form] || FORMATS.datetime).format(moment);
}

// A <time> element of `iso` in `style`.
export function timeElement(iso, { className = "", style = "datetime" } = {}) {
  const node = document.createElement("time");
  if (className) node.className = className;
  node.setAttribute("datetime", iso);
  if (style !== "datetime") node.dataset.style = style;
  node.textContent = timeText(iso, style) ?? "";
  return node;
}

// Rewrite every <time datetime> below `root`.
export function localizeTimes(root = document) {
  for (const node of root.querySelectorAll("time[datetime]")) {
    const text = timeText(node.getAttribute("datetime"), node.dataset.style);
    if (text !== null) node.textContent = text;
  }
}

localizeTimes();

// The time left of a turn timer: "0:42", "4:05" under an hour, "23:59:59" (or "71:59:59" for
// a turn-based game's three days) from an hour on.
export function countdown(seconds) {
  const two = (number) => String(number).padStart(2, "0");
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (!hours) return `${minutes}:${two(seconds % 60)}`;
  return `${hours}:${two(minutes)}:${two(seconds % 60)}`;
}
