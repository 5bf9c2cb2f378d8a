// The search page's filter panel and the search words are one thing (search.html; the
// query language: models/search/query.py). Changing a control writes its filter into
// the box at once (replaced where it stands, added at the end, or taken out), leaving
// the rest as typed; typing a filter in the box sets its control. The form then sends
// the box alone. Without script the controls are sent as parameters of their own and
// the page folds them into `q` (web/pages/search.py, fold_controls).
(() => {
  const panel = document.querySelector("[data-query-panel]");
  if (!panel) return;
  const form = panel.closest("form");
  const box = form.elements.q;
  const shown = form.querySelector("[data-query-shown]");
  const controls = [...panel.querySelectorAll("[data-query-filter]")];
  const typedLength = panel.querySelector("[data-typed-length]");
  const TYPED = typedLength.value;
  const lengthControl = typedLength.closest("select");

  // The query language's rules as the server reads a query (models/search/query.py,
  // grammar; search.html embeds them): this script holds none of its own. A part is
  // separated by space; a phrase in quotes (after an optional minus) is never a filter;
  // a bare name:value with a filter's name is one.
  const rules = JSON.parse(document.getElementById("query-rules").textContent);
  const whole = (pattern) => new RegExp(`^(?:${pattern})$`, "su");
  const SPACE = whole(rules.space);
  const QUOTES = new Map(Object.entries(rules.quotes));
  const MINUS = new Set(rules.minus);
  const OPERATOR = whole(rules.operator);
  const NAMES = new Set(rules.names);
  const LENGTHS = new Set(rules.lengths);
  const KINDS = new Set(rules.kinds);
  const LANGUAGES = new Map(Object.entries(rules.languages));
  const DATE = whole(rules.date);

  // The panel's filters typed in `text`: {name, value, start, end} in order.
  function filtersIn(text) {
    const found = [];
    let at = 0;
    while (at < text.length) {
      if (SPACE.test(text[at])) {
        at += 1;
        continue;
      }
      const start = at;
      const excluded = MINUS.has(text[at]);
      if (excluded) at += 1;
      if (at < text.length && QUOTES.has(text[at])) {
        const end = text.indexOf(QUOTES.get(text[at]), at + 1);
        at = end < 0 ? text.length : end + 1;
        continue;
      }
      let end = at;
      while (end < text.length && !SPACE.test(text[end]) && !QUOTES.has(text[end])) end += 1;
      const operator = OPERATOR.exec(text.slice(at, end));
      if (operator && !excluded && NAMES.has(operator[1].toLowerCase())) {
        found.push({ name: operator[1].toLowerCase(), value: operator[2], start, end });
      }
      at = Math.max(end, at + 1);
    }
    return found;
  }

  // A date filter's day for the date input: YYYY-MM-DD, or the first (after:) or last
  // (before:) day of YYYY-MM or YYYY; "" for what is not a date.
  function day(value, last) {
    const found = DATE.exec(value);
    if (!found) return "";
    const year = Number(found[1]);
    const month = found[2] ? Number(found[2]) : last ? 12 : 1;
    const date = found[3] ? Number(found[3]) : last ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 1;
    const made = new Date(Date.UTC(year, month - 1, date));
    const real = made.getUTCFullYear() === year && made.getUTCMonth() === month - 1 && made.getUTCDate() === date;
    return real ? made.toISOString().slice(0, 10) : "";
  }

  // What a control shows for the filters of its name typed in the box.
  function controlValue(name, typed) {
    if (!typed.length) return "";
    const value = typed[0].value;
    const lower = value.toLowerCase();
    if (name === "after" || name === "before") return day(value, name === "before");
    if (name === "duration") return typed.length === 1 && LENGTHS.has(lower) ? lower : TYPED;
    if (name === "type") return KINDS.has(lower) ? lower : "";
    return LANGUAGES.has(lower) ? lower : "";
  }

  function show(control, value) {
    if (control === lengthControl) {
      typedLength.hidden = typedLength.disabled = value !== TYPED;
    }
    if (control.tagName === "SELECT" && value && ![...control.options].some((option) => option.value === value)) {
      // A language the short list does not hold, named as the server names it.
      control.add(new Option(LANGUAGES.get(value) || value, value));
    }
    control.value = value;
  }

  // Every control as the box says.
  function readBox() {
    const typed = filtersIn(box.value);
    for (const control of controls) {
      const name = control.dataset.queryFilter;
      show(control, controlValue(name, typed.filter((found) => found.name === name)));
    }
  }

  // A part taken out with the spaces after it (before it, at the end), so the rest of
  // the text stays as typed.
  function cut(text, found) {
    let start = found.start;
    let end = found.end;
    while (end < text.length && SPACE.test(text[end])) end += 1;
    if (end === text.length) while (start > 0 && SPACE.test(text[start - 1])) start -= 1;
    return text.slice(0, start) + text.slice(end);
  }

  // The control's filter written into the box.
  function write(control) {
    const name = control.dataset.queryFilter;
    if (control.value === TYPED) return; // the length stays as typed
    const token = control.value ? `${name}:${control.value}` : "";
    let text = box.value;
    const typed = filtersIn(text).filter((found) => found.name === name);
    if (!typed.length) {
      if (token) text = text.trimEnd() ? `${text.trimEnd()} ${token}` : token;
    } else {
      for (const found of typed.slice(1).reverse()) text = cut(text, found);
      const first = typed[0];
      text = token ? text.slice(0, first.start) + token + text.slice(first.end) : cut(text, first);
    }
    box.value = text;
    readBox();
  }

  for (const control of controls) control.addEventListener("change", () => write(control));
  box.addEventListener("input", readBox);
  // A page brought back from the browser's history may show the box as it was left.
  window.addEventListener("pageshow", readBox);
  readBox();
  // The box holds every filter: the controls and the query as drawn are not sent.
  form.addEventListener("formdata", (event) => {
    for (const control of controls) event.formData.delete(control.name);
    event.formData.delete(shown.name);
  });
})();
