// /ads/new: the purchase form (inventory and price, image upload, reservation). Its
// sentences come from the page (web/templates/ads/new.html, page_text) in the reader's
// language; API errors read through window.i18n, each beside its field. What was typed
// is kept for the way back from the checkout (sessionStorage, this tab only), whether by
// its Cancel button or the browser's Back; the buyer's own holds still awaiting payment
// are offered there, to continue or to cancel (ads/new.html, [data-open-hold]).
// The button stays focusable while the form is incomplete (aria-disabled, not disabled):
// pressed, it says what is missing, as the server would, and moves focus to the first
// field to fix, so a keyboard or screen reader user is never left at a dead button.
(() => {
  const form = document.getElementById("ad-order");
  const submit = form.querySelector("button[type=submit]");
  const idleLabel = submit.textContent;
  const { t, tn } = window.i18n;
  const numbers = new Intl.NumberFormat(window.i18n.locale);
  let imageUrl = null;
  let imageDetails = "";  // the upload's size and advice, kept with it
  let busy = false;
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // A whole number within the input's bounds (the API's: models/ads/reservations.py).
  // Anything else has no price: "1.5" and "13" are not read as 1 and 12. The button
  // still sends them, and the server's refusal is shown beside the field.
  const wholeMonths = () => {
    const typed = form.months.value.trim();
    const months = Number(typed);
    return /^[0-9]+$/.test(typed) && months >= Number(form.months.min) && months <= Number(form.months.max);
  };
  const monthsRange = () => window.i18n.problemWords("months_out_of_range", {n: form.months.max});

  // The choices the form cannot go without; the server checks the rest and says what.
  const ready = () =>
    Boolean(form.slot.value && form.country.value && form.startMonth.value && Number(form.months.value) >= 1 &&
      form.advertiserName.value.trim() && imageUrl && form.redirectUrl.value.trim() && form.consent.checked);

  function updateSubmit() {
    const enabled = ready() && !busy;
    submit.setAttribute("aria-disabled", String(!enabled));
    submit.setAttribute("aria-busy", String(busy));
    submit.textContent = busy ? t("submitting") : idleLabel;
  }

  form.addEventListener("input", updateSubmit);
  form.addEventListener("change", updateSubmit);

  // --- each refusal beside its field ------------------------------------------------
  // The API names a field by its path (`profile.contactEmail`); the form's control has
  // the last part as its name, except the image, which is sent as its upload's URL.
  const CONTROLS = {imageUrl: "image", profile: "profileId"};
  const controlOf = (path) => {
    const last = path.split(".").pop();
    return form.elements[CONTROLS[last] || last] || null;
  };
  // Where a control's message goes: after the control's label (the consent's label
  // holds its checkbox, so after the label there too).
  const anchorOf = (control) => control.closest("label") || control;
  // A field as its label names it (the label's [data-field-name], ads/new.html), so the
  // summary says the words the reader sees; the API's word for a field without one.
  const nameOf = (path) => {
    const control = controlOf(path);
    const name = control && control.closest("label")?.querySelector("[data-field-name]");
    return name ? name.textContent.trim() : window.i18n.fieldName(path);
  };

  function clearFieldError(control) {
    const error = form.querySelector(`[data-field-error="${control.name}"]`);
    if (error) error.remove();
    control.removeAttribute("aria-invalid");
    control.removeAttribute("aria-describedby");
  }

  // `alert`: said at once (a failed upload has no summary under the button to say it).
  function showFieldError(control, words, alert = false) {
    clearFieldError(control);
    const error = document.createElement("p");
    error.className = "field-error";
    if (alert) error.setAttribute("role", "alert");
    error.id = `error-${control.name}`;
    error.dataset.fieldError = control.name;
    error.textContent = words;
    anchorOf(control).insertAdjacentElement("afterend", error);
    control.setAttribute("aria-invalid", "true");
    control.setAttribute("aria-describedby", error.id);
  }

  form.addEventListener("input", (event) => { if (event.target.name) clearFieldError(event.target); });
  form.addEventListener("change", (event) => { if (event.target.name) clearFieldError(event.target); });

  // Problems ([field path, words]) beside their fields, LINES listed under the button
  // (an alert: said at once), and focus on the first field to fix.
  function report(problems, lines) {
    form.querySelectorAll("[aria-invalid]").forEach(clearFieldError);
    form.querySelectorAll("[data-field-error]").forEach((error) => error.remove());
    let first = null;
    for (const [path, words] of problems) {
      const control = controlOf(path);
      if (!control) continue;
      showFieldError(control, words);
      first = first || control;
    }
    const errors = form.querySelector("[data-errors]");
    errors.replaceChildren(...lines.map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }));
    errors.hidden = false;
    if (first) {
      anchorOf(first).scrollIntoView({block: "center"});
      first.focus({preventScroll: true});
    }
  }

  // The answer's problems beside their fields (field name: reason), or the code's
  // sentence when no field is named.
  function showErrors(body) {
    const fields = Object.entries((body && body.error && body.error.fields) || {});
    const problems = fields.map(([path, problem]) => [path, window.i18n.fieldProblem(problem)]);
    report(problems, problems.length ? problems.map(([path, words]) => `${nameOf(path)}: ${words}`)
      : window.i18n.errorLines(body, t("purchase_failed")));
    // Too many unpaid holds: the way to the reservations to pay (or wait for).
    if (body && body.error && body.error.code === "too_many_unpaid_holds") {
      const link = document.createElement("a");
      link.href = "/ads";
      link.textContent = t("see_unpaid");
      const li = document.createElement("li");
      li.append(link);
      form.querySelector("[data-errors]").append(li);
    }
  }

  // What `ready` finds missing, in the API's words for the same fields, in form order.
  function missing() {
    const { problemWords } = window.i18n;
    const found = [];
    if (!form.slot.value) found.push(["slot", problemWords("required")]);
    if (!form.country.value) found.push(["country", problemWords("required")]);
    if (!form.startMonth.value) found.push(["startMonth", problemWords("not_a_month")]);
    if (!(Number(form.months.value) >= 1)) found.push(["months", monthsRange()]);
    if (!form.advertiserName.value.trim()) found.push(["advertiserName", problemWords("required")]);
    if (!imageUrl) found.push(["imageUrl", t("choose_image")]);
    if (!form.redirectUrl.value.trim()) found.push(["redirectUrl", problemWords("required")]);
    if (!form.consent.checked) found.push(["consent", problemWords("unconfirmed")]);
    return found;
  }

  // --- what was typed, kept for the way back from a cancelled checkout ---------------
  const KEPT = "ad-order-form";
  const TYPED = ["slot", "country", "startMonth", "months", "advertiserName", "redirectUrl", "profileId",
    "businessLegalName", "businessAddress", "contactName", "contactEmail", "businessCategory",
    "invoiceRegistrationNumber"];

  function keepTyped() {
    const kept = {imageUrl, consent: form.consent.checked, imageNotes: imageDetails};
    for (const name of TYPED) kept[name] = form.elements[name].value;
    try { sessionStorage.setItem(KEPT, JSON.stringify(kept)); } catch { /* private mode: nothing kept */ }
  }

  function restoreTyped() {
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(KEPT) || "null"); } catch { kept = null; }
    if (!kept) return;
    for (const name of TYPED) {
      if (typeof kept[name] === "string" && form.elements[name]) form.elements[name].value = kept[name];
    }
    form.consent.checked = Boolean(kept.consent);
    form.querySelector("[data-new-profile]").hidden = form.profileId.value !== "";
    if (kept.imageUrl) {
      // The upload is kept while the service still has it; gone, the reader uploads again.
      const preview = form.querySelector("[data-image-preview]");
      const img = preview.querySelector("img");
      const notes = form.querySelector("[data-image-notes]");
      img.addEventListener("error", () => {
        if (imageUrl !== kept.imageUrl) return;
        imageUrl = null;
        preview.hidden = true;
        notes.textContent = t("upload_again");
        updateSubmit();
      }, {once: true});
      imageUrl = kept.imageUrl;
      imageDetails = kept.imageNotes || "";
      img.src = kept.imageUrl;
      preview.hidden = false;
      notes.textContent = t("image_kept", {notes: kept.imageNotes || ""});
    }
  }
  // Back on the form: from a cancelled checkout, by the browser's Back button (which
  // restores the typed fields and the chosen file, but not the upload's URL), or with a
  // hold of this order still open.
  const navigation = (performance.getEntriesByType("navigation")[0] || {}).type;
  if (form.dataset.restore !== undefined || navigation === "back_forward" || document.querySelector("[data-open-hold]")) {
    restoreTyped();
  }
  // A page kept whole by the browser (back-forward cache) would not know of the hold
  // made since it was left: ask the server again.
  window.addEventListener("pageshow", (event) => { if (event.persisted) window.location.reload(); });
  form.profileId.addEventListener("change", () => {
    form.querySelector("[data-new-profile]").hidden = form.profileId.value !== "";
  });

  // Answers can arrive out of order (the page's first question, then the reader's
  // choice): only the answer to the latest question is shown.
  let asked = 0;
  async function refreshInventory() {
    const question = ++asked;
    const price = form.querySelector("[data-price]");
    if (!wholeMonths()) {
      // No total for months the API would refuse: the range instead of the last price.
      price.textContent = `${nameOf("months")}: ${monthsRange()}`;
      return;
    }
    const params = new URLSearchParams({slot: form.slot.value, country: form.country.value,
      month: form.startMonth.value, months: form.months.value});
    const response = await fetch(`/api/ads/inventory?${params}`);
    const body = response.ok ? await response.json().catch(() => null) : null;
    if (question !== asked) return;
    const out = form.querySelector("[data-inventory]");
    if (!body) { out.textContent = ""; return; }
    out.textContent = body.full ? t("full") : t("next_position", {position: body.nextPosition});
    out.dataset.full = body.full;
    if (body.price) {
      const total = body.price.unitAmount * body.months;
      price.textContent = tn("price", body.months, {
        unit: numbers.format(body.price.unitAmount), months: body.months, total: numbers.format(total),
      });
    }
  }
  ["slot", "country", "startMonth", "months"].forEach((name) => form[name].addEventListener("change", refreshInventory));
  // The months change the price as they are typed, not only when the field is left.
  form.months.addEventListener("input", refreshInventory);
  refreshInventory();

  // The upload API's advice, by its code, in the reader's words.
  const advice = (recommendation) => t(`advice_${recommendation.code}`);

  // The same for uploads: the image reserved is the last one chosen, whichever upload
  // finishes last.
  let chosen = 0;
  async function upload(file) {
    const choice = ++chosen;
    imageUrl = null;
    imageDetails = "";
    updateSubmit();
    const preview = form.querySelector("[data-image-preview]");
    const notes = form.querySelector("[data-image-notes]");  // a polite live region
    preview.hidden = true;
    notes.textContent = file ? t("uploading") : "";
    if (!file) return;
    const data = new FormData();
    data.append("file", file);
    // Multipart, not JSON: the API takes it with this session's token in X-CSRFToken.
    const response = await fetch("/api/uploads/ad-image", {
      method: "POST", body: data, headers: {"X-CSRFToken": csrfToken()},
    });
    const body = await response.json().catch(() => ({}));
    if (choice !== chosen) return;
    if (!response.ok) {
      notes.textContent = "";
      const problem = body.error && body.error.fields && body.error.fields.file;
      showFieldError(form.image, problem ? window.i18n.fieldProblem(problem) : window.i18n.errorText(body, t("upload_failed")), true);
      return;
    }
    imageUrl = body.url;
    preview.querySelector("img").src = body.url;
    preview.hidden = false;
    const size = `${body.width}×${body.height} ${body.format.toUpperCase()}`;
    const notesList = (body.recommendations || []).map(advice);
    imageDetails = notesList.length ? t("image_with_advice", {size, advice: notesList.join(" ")}) : size;
    notes.textContent = t("uploaded", {details: imageDetails});
    updateSubmit();
  }
  form.image.addEventListener("change", () => upload(form.image.files[0]));
  // Choosing the same file again must upload it again: a file input sends no change for
  // the file it already holds, so it is emptied as its chooser opens.
  form.image.addEventListener("click", () => { form.image.value = ""; });
  // A file the browser restored (Back) without the upload's URL kept: upload it again,
  // rather than refuse as missing an image the form shows chosen.
  // The browser restores it after this script has run: look again once the page shows.
  const uploadRestored = () => { if (!imageUrl && !chosen && form.image.files.length) upload(form.image.files[0]); };
  uploadRestored();
  window.addEventListener("pageshow", uploadRestored);

  // --- the buyer's own holds awaiting payment: continue, or cancel and start over ----
  // The button stays focusable while asking (aria-disabled); a refusal is said beside it.
  async function holdCall(button, method, fallback) {
    if (button.getAttribute("aria-disabled") === "true") return null;
    button.setAttribute("aria-disabled", "true");
    const hold = button.closest("[data-open-hold]");
    let response = null;
    let body = {};
    try {
      // No body, but sent as JSON: the API takes state changes only as JSON calls.
      response = await fetch(`/api/ads/reservations/${hold.dataset.openHold}/checkout`, {
        method, headers: {"Content-Type": "application/json"}, credentials: "same-origin",
      });
      body = await response.json().catch(() => ({}));
    } catch {
      response = null;
    }
    if (response && response.ok) return body;
    button.removeAttribute("aria-disabled");
    const error = hold.querySelector("[data-hold-error]");
    error.textContent = window.i18n.errorText(body, t(fallback));
    error.hidden = false;
    return null;
  }
  document.querySelectorAll("[data-open-hold] [data-resume-checkout]").forEach((button) => button.addEventListener("click", async () => {
    const body = await holdCall(button, "POST", "checkout_failed");
    if (body) { keepTyped(); window.location.assign(body.checkoutUrl); }
  }));
  document.querySelectorAll("[data-open-hold] [data-release-hold]").forEach((button) => button.addEventListener("click", async () => {
    if (!await holdCall(button, "DELETE", "release_failed")) return;
    button.closest("[data-open-hold]").remove();
    const full = document.querySelector("[data-holds-full]");  // one hold fewer: under the limit
    if (full) full.remove();
    const released = document.querySelector("[data-hold-released]");
    released.textContent = t("released_hold");
    released.tabIndex = -1;
    released.focus();  // the button is gone: the keyboard's focus goes to the news
    refreshInventory();
  }));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    const gaps = missing();
    if (gaps.length) {
      report(gaps, gaps.map(([path, words]) => `${nameOf(path)}: ${words}`));
      return;
    }
    const payload = {
      slot: form.slot.value, country: form.country.value, startMonth: form.startMonth.value,
      months: Number(form.months.value), advertiserName: form.advertiserName.value,
      imageUrl: imageUrl, redirectUrl: form.redirectUrl.value, consent: form.consent.checked,
    };
    if (form.profileId.value) { payload.profileId = form.profileId.value; }
    else {
      payload.profile = {};
      for (const name of ["businessLegalName", "businessAddress", "contactName", "contactEmail", "businessCategory", "invoiceRegistrationNumber"]) {
        payload.profile[name] = form[name].value;
      }
    }
    busy = true;
    updateSubmit();
    let body = {};
    try {
      const response = await fetch("/api/ads/reservations", {
        method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(payload),
      });
      body = await response.json().catch(() => ({}));
      if (response.ok) { keepTyped(); window.location = body.checkoutUrl; return; }
    } catch {
      body = {};
    }
    showErrors(body);
    busy = false;
    updateSubmit();
    refreshInventory();
  });
  // Disabled in the page only for a browser without this script, which cannot send it.
  submit.disabled = false;
  updateSubmit();
})();
