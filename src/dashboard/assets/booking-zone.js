// The hosted booking page (/book/<shop>): when the visitor's own time zone differs from the
// shop's, each time is also shown in hers. Without this script the page works the same.
(() => {
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const page = document.querySelector("[data-shop-zone]");
  if (!page || !own || own === page.getAttribute("data-shop-zone")) return;
  const lang = document.documentElement.lang || undefined;
  const format = new Intl.DateTimeFormat(lang, {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: own,
    timeZoneName: "short",
  });
  const label = page.getAttribute("data-your-time") || "{time}";
  for (const el of document.querySelectorAll("[data-at]")) {
    const note = document.createElement("small");
    note.className = "your-time";
    note.textContent = ` (${label.replace("{time}", format.format(new Date(el.getAttribute("data-at"))))})`;
    el.appendChild(note);
  }
})();
