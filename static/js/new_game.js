// The "new game" form: the chosen kind's options and seat range, and computer players that
// leave at least one seat free for the creator. The server checks the same; this only keeps
// impossible choices out of reach. Without the script every field shows.

export function coupleSeatsAndBots(form) {
  const seats = form.querySelector("select[name=max_players]");
  const bots = form.querySelector("select[name=bots]");
  if (!seats || !bots) return () => {};

  function update() {
    const seatCount = Number(seats.value);
    for (const option of bots.options) {
      option.disabled = Number(option.value) >= seatCount;
    }
    if (Number(bots.value) >= seatCount) bots.value = String(seatCount - 1);
  }

  seats.addEventListener("change", update);
  update();
  return update;
}

export function followKind(form, kinds, afterSeats) {
  const radios = [...form.querySelectorAll("input[name=kind]")];
  const seats = form.querySelector("select[name=max_players]");
  const tableFields = ["max_players", "bots", "turn_seconds", "private"].map((name) =>
    form.querySelector(`[data-field=${name}]`),
  );

  function update() {
    const chosen = radios.find((radio) => radio.checked);
    if (!chosen) return;
    const kind = kinds[chosen.value] ?? { min: 2, max: 5, solo: false };
    for (const fieldset of form.querySelectorAll(".kind-options")) {
      fieldset.hidden = fieldset.dataset.kind !== chosen.value;
      fieldset.disabled = fieldset.hidden;
    }
    for (const field of tableFields) if (field) field.hidden = kind.solo;
    if (seats) {
      for (const option of seats.options) {
        const count = Number(option.value);
        option.disabled = option.hidden = count < kind.min || count > kind.max;
      }
      const count = Number(seats.value);
      if (count < kind.min) seats.value = String(kind.min);
      if (count > kind.max) seats.value = String(kind.max);
    }
    afterSeats();
  }

  for (const radio of radios) radio.addEventListener("change", update);
  update();
}

const kindsData = document.getElementById("new-game-kinds");
const kinds = kindsData ? JSON.parse(kindsData.textContent) : {};
for (const form of document.querySelectorAll(".new-game-form")) {
  followKind(form, kinds, coupleSeatsAndBots(form));
}
