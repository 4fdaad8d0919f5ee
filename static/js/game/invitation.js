// The creator's invitation link on the game page: the copy button puts it on the clipboard
// (or selects it, for the person to copy, where the browser allows no clipboard).
const field = document.getElementById("invitation-link");
const button = document.getElementById("invitation-copy-button");
const status = document.getElementById("invitation-status");

if (field && button) {
  field.addEventListener("focus", () => field.select());
  button.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = button.dataset.copied;
    } catch {
      status.textContent = button.dataset.failed;
    }
  });
}
