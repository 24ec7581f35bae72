// Progressive enhancement: "Copy" buttons, for a secret shown once (the flash's [data-secret]) and
// for a field such as the tracking link (button[data-copy-from=<input id>]). Without JavaScript
// the text stays plain and selectable and the buttons stay hidden. Served from /assets so the
// pages that use it allow only `script-src 'self'` (no inline script anywhere).
function enable(button, textOf, select) {
  button.hidden = false;
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(textOf()).then(
      () => {
        button.textContent = "Copied";
      },
      () => {
        // No clipboard access: select the text so Ctrl+C / long-press copies it.
        select();
        button.textContent = "Selected: press Ctrl+C";
      },
    );
  });
}

for (const button of document.querySelectorAll("button[data-copy]")) {
  const secret = button.closest(".flash")?.querySelector("[data-secret]");
  if (!secret) continue;
  enable(
    button,
    () => secret.textContent.trim(),
    () => {
      const range = document.createRange();
      range.selectNodeContents(secret);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    },
  );
}

for (const button of document.querySelectorAll("button[data-copy-from]")) {
  const field = document.getElementById(button.dataset.copyFrom);
  if (!field) continue;
  enable(
    button,
    () => field.value,
    () => field.select(),
  );
}
