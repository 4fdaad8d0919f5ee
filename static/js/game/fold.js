// The game page's panels that fold away (<details class="fold">: the activity feed and the
// chat): open on a wide screen, closed at first on a narrow one, where the table comes first.
// Once the player opens or closes one, a change of the screen's width leaves it as it is.
const NARROW = window.matchMedia("(max-width: 40rem)");

const panels = [...document.querySelectorAll("details.fold")];
const touched = new WeakSet();

function fit() {
  for (const panel of panels) if (!touched.has(panel)) panel.open = !NARROW.matches;
}

fit();
for (const panel of panels) {
  panel.querySelector("summary").addEventListener("click", () => touched.add(panel));
}
NARROW.addEventListener("change", fit);
