// The "new game" form: computer players must leave at least one seat free for the creator.
// The server checks the same; this only keeps impossible choices out of reach.

export function coupleSeatsAndBots(form) {
  const seats = form.querySelector("select[name=max_players]");
  const bots = form.querySelector("select[name=bots]");
  if (!seats || !bots) return;

  function update() {
    const seatCount = Number(seats.value);
    for (const option of bots.options) {
      option.disabled = Number(option.value) >= seatCount;
    }
    if (Number(bots.value) >= seatCount) bots.value = String(seatCount - 1);
  }

  seats.addEventListener("change", update);
  update();
}

for (const form of document.querySelectorAll(".new-game-form")) coupleSeatsAndBots(form);
