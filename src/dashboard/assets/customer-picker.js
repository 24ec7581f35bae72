// Progressive enhancement of the New order page's customer picker: as the member types in the
// search field, the select offers the customers found (phone first), without reloading the page.
// Without JavaScript the search form's Find button does the same with a page load.
const find = document.getElementById("customer-find");
const select = document.querySelector("select[data-picker]");
if (find && select) {
  let timer;
  let asked = 0;
  const show = (customers) => {
    const chosen = select.value;
    while (select.options.length > 1) select.remove(1);
    for (const c of customers) select.add(new Option(c.label, c.id, false, c.id === chosen));
    if (customers.length === 1 && !chosen) select.value = customers[0].id;
    const status = document.getElementById("customer-find-result");
    if (status)
      status.textContent =
        customers.length === 0
          ? "No customer matches: fill in a new one below."
          : `${customers.length} found: choose below.`;
  };
  find.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = find.value.trim();
      if (q.length < 2) return;
      const mine = ++asked;
      const answer = await fetch(`/dashboard/customers/pick?q=${encodeURIComponent(q)}`, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      // Only the answer to the latest keystroke is shown.
      if (answer.ok && mine === asked) show((await answer.json()).customers);
    }, 200);
  });
}
