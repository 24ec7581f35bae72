// Sign-up's last step: the shop's time zone select starts at the browser's own zone (the owner is
// most likely in the shop), still changeable. Without this script the select keeps its default.
(() => {
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const select = document.querySelector("select[data-browser-zone]");
  if (!select || !own) return;
  if ([...select.options].some((option) => option.value === own)) select.value = own;
})();
