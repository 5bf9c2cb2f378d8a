// Search by meaning on the search page (search.html): the strength says how far the
// search leans to meaning in words as it moves (aria-valuetext, for screen readers, and
// the text beside it), and the form leaves `sr` out of the address when it does not
// count: with the switch off, or at its default. Without script both fields are sent as
// they are, and the page moves to the same address (web/pages/search.py, _canonical_address).
(() => {
  const strength = document.querySelector("[data-meaning-strength]");
  if (!strength) return;
  const form = strength.form;
  const toggle = form.querySelector("[data-meaning-switch]");
  const shown = document.querySelector("[data-meaning-value]");

  // The page's own sentences (search.html's strength_texts), so both say the same.
  function inWords(value) {
    const meaning = Math.round(value * 100);
    if (meaning <= 0) return strength.dataset.wordsOnly;
    if (meaning >= 100) return strength.dataset.meaningOnly;
    return strength.dataset.mix
      .replace("{words}", String(100 - meaning))
      .replace("{meaning}", String(meaning));
  }

  function say() {
    const text = inWords(Number(strength.value));
    strength.setAttribute("aria-valuetext", text);
    if (shown) shown.textContent = text;
  }

  strength.addEventListener("input", say);
  // A page brought back from the browser's history may show the strength where it was
  // left rather than where the page drew it.
  window.addEventListener("pageshow", say);
  say();
  form.addEventListener("formdata", (event) => {
    if (!toggle.checked || Number(strength.value) === Number(strength.dataset.default)) {
      event.formData.delete("sr");
    }
  });
})();
