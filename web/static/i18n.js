// The reader's words for the API's codes, field names and field problems, and each
// page's own sentences: base.html embeds them (web/i18n.py, client_text) as JSON.
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

  // A field's problem by its code (models/problems.py), in the reader's words with its
  // values ({n}) in place.
  const problemWords = (code, values) => {
    const entry = text.problems[code];
    if (!entry) return text.fallback;
    return entry[1].replace(/\{(\w+)\}/g, (slot, name) => (values && name in values ? values[name] : slot));
  };

  // The API says a problem in English: each code's sentence, its values as named groups,
  // read back to the code. The longest sentence first, so that "no earlier than next
  // month (2027-01)" is not read as "no earlier than {n}".
  const escaped = (english) => english.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const sentences = Object.entries(text.problems)
    .sort(([, [a]], [, [b]]) => b.length - a.length)
    .map(([code, [english]]) => [code, new RegExp(`^${escaped(english).replace(/\\\{(\w+)\\\}/g, "(?<$1>.+?)")}$`)]);

  const fieldProblem = (problem) => {
    for (const [code, sentence] of sentences) {
      const found = sentence.exec(problem);
      if (found) return problemWords(code, found.groups);
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

  window.i18n = { locale: text.locale, timeZone: text.timeZone, t, tn, when, fieldName, fieldProblem, problemWords, errorLines,
    errorText: (body, fallback) => errorLines(body, fallback).join(" ") };
})();
