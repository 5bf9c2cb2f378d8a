// The reader's words for the API's codes and field names, and each page's own
// sentences: base.html embeds them (web/i18n.py, client_text) as JSON.
(() => {
  const text = JSON.parse(document.getElementById("client-text").textContent);

  // A page's sentence by key (the page passes `page_text` to its template).
  const t = (key, values) => {
    let words = (text.page && text.page[key]) || key;
    for (const [name, value] of Object.entries(values || {})) words = words.replace(`{${name}}`, value);
    return words;
  };

  // The same with a count: the page's `key_one` where the reader's language says "one"
  // for `count` (English "1 month"; Japanese has no such form), else `key`.
  const plural = new Intl.PluralRules(text.locale);
  const tn = (key, count, values) => {
    const one = `${key}_one`;
    return t(plural.select(count) === "one" && text.page && text.page[one] ? one : key, values);
  };

  const fieldName = (path) => {
    const last = path.split(".").pop();
    return text.fields[last] || last;
  };

  const fieldProblem = (problem) => {
    for (const [pattern, words] of text.problems) {
      const found = new RegExp(`^(?:${pattern})$`).exec(problem);
      if (found) return words.replace("{n}", found[1] || "");
    }
    return text.fallback;
  };

  // An API error body as lines the reader can act on: one per field, else the code's
  // sentence, else `fallback`.
  const errorLines = (body, fallback) => {
    const error = (body && body.error) || {};
    const fields = Object.entries(error.fields || {});
    if (fields.length) return fields.map(([path, problem]) => `${fieldName(path)}: ${fieldProblem(problem)}`);
    return [text.codes[error.code] || fallback];
  };

  // A moment from the API (ISO 8601, UTC) in the reader's language and time zone.
  const when = (iso) => (iso ? new Intl.DateTimeFormat(text.locale, {
    dateStyle: "medium", timeStyle: "short", timeZone: text.timeZone,
  }).format(new Date(iso)) : "");

  window.i18n = { locale: text.locale, timeZone: text.timeZone, t, tn, when, fieldName, fieldProblem, errorLines,
    errorText: (body, fallback) => errorLines(body, fallback).join(" ") };
})();
