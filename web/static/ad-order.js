// /ads/new: the purchase form (inventory and price, image upload, reservation). Its
// sentences come from the page (web/templates/ads/new.html, page_text) in the reader's
// language; API errors read through window.i18n.
(() => {
  const form = document.getElementById("ad-order");
  const submit = form.querySelector("button[type=submit]");
  const idleLabel = submit.textContent;
  const { t, tn } = window.i18n;
  const numbers = new Intl.NumberFormat(window.i18n.locale);
  let imageUrl = null;
  let busy = false;
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // The choices the form cannot go without; the server checks the rest and says what.
  const ready = () =>
    Boolean(form.slot.value && form.country.value && form.startMonth.value && Number(form.months.value) >= 1 &&
      form.advertiserName.value.trim() && imageUrl && form.redirectUrl.value.trim() && form.consent.checked);

  function updateSubmit() {
    const enabled = ready() && !busy;
    submit.disabled = !enabled;
    submit.setAttribute("aria-disabled", String(!enabled));
    submit.setAttribute("aria-busy", String(busy));
    submit.textContent = busy ? t("submitting") : idleLabel;
  }

  form.addEventListener("input", updateSubmit);
  form.addEventListener("change", updateSubmit);
  form.profileId.addEventListener("change", () => {
    form.querySelector("[data-new-profile]").hidden = form.profileId.value !== "";
  });

  // Answers can arrive out of order (the page's first question, then the reader's
  // choice): only the answer to the latest question is shown.
  let asked = 0;
  async function refreshInventory() {
    const question = ++asked;
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
      form.querySelector("[data-price]").textContent = tn("price", body.months, {
        unit: numbers.format(body.price.unitAmount), months: body.months, total: numbers.format(total),
      });
    }
  }
  ["slot", "country", "startMonth", "months"].forEach((name) => form[name].addEventListener("change", refreshInventory));
  refreshInventory();

  // The upload API's advice, by its code, in the reader's words.
  const advice = (recommendation) => t(`advice_${recommendation.code}`);

  // The same for uploads: the image reserved is the last one chosen, whichever upload
  // finishes last.
  let chosen = 0;
  form.image.addEventListener("change", async () => {
    const choice = ++chosen;
    imageUrl = null;
    updateSubmit();
    const file = form.image.files[0];
    if (!file) return;
    const data = new FormData();
    data.append("file", file);
    // Multipart, not JSON: the API takes it with this session's token in X-CSRFToken.
    const response = await fetch("/api/uploads/ad-image", {
      method: "POST", body: data, headers: {"X-CSRFToken": csrfToken()},
    });
    const body = await response.json().catch(() => ({}));
    if (choice !== chosen) return;
    const notes = form.querySelector("[data-image-notes]");
    if (!response.ok) {
      notes.textContent = window.i18n.errorText(body, t("upload_failed"));
      return;
    }
    imageUrl = body.url;
    const preview = form.querySelector("[data-image-preview]");
    preview.querySelector("img").src = body.url;
    preview.hidden = false;
    const size = `${body.width}×${body.height} ${body.format.toUpperCase()}`;
    const notesList = (body.recommendations || []).map(advice);
    notes.textContent = notesList.length ? t("image_with_advice", {size, advice: notesList.join(" ")}) : size;
    updateSubmit();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!ready() || busy) return;
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
    const errors = form.querySelector("[data-errors]");
    let body = {};
    try {
      const response = await fetch("/api/ads/reservations", {
        method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(payload),
      });
      body = await response.json().catch(() => ({}));
      if (response.ok) { window.location = body.checkoutUrl; return; }
    } catch {
      body = {};
    }
    errors.innerHTML = "";
    for (const line of window.i18n.errorLines(body, t("purchase_failed"))) {
      const li = document.createElement("li");
      li.textContent = line;
      errors.appendChild(li);
    }
    errors.hidden = false;
    busy = false;
    updateSubmit();
    refreshInventory();
  });
  updateSubmit();
})();
