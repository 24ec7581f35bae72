// Progressive enhancement for a secret shown once: a "Copy" button. Without JavaScript the
// secret is plain selectable text and the button stays hidden. Served from /assets so the pages
// that show a secret allow only `script-src 'self'` (no inline script anywhere).
for (const button of document.querySelectorAll("button[data-copy]")) {
  const secret = button.closest(".flash")?.querySelector("[data-secret]");
  if (!secret) continue;
  button.hidden = false;
  button.addEventListener("click", () => {
    const text = secret.textContent.trim();
    navigator.clipboard.writeText(text).then(
      () => {
        button.textContent = "Copied";
      },
      () => {
        // No clipboard access: select the text so Ctrl+C / long-press copies it.
        const range = document.createRange();
        range.selectNodeContents(secret);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = "Selected: press Ctrl+C";
      },
    );
  });
}
