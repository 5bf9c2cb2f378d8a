// /ads/new: the purchase form (inventory and price, image upload, reservation).
(() => {
  const form = document.getElementById("ad-order");
  const submit = form.querySelector("button[type=submit]");
  let imageUrl = null;
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  form.consent.addEventListener("change", () => { submit.disabled = !form.consent.checked; });
  form.profileId.addEventListener("change", () => {
    form.querySelector("[data-new-profile]").hidden = form.profileId.value !== "";
  });
  async function refreshInventory() {
    const params = new URLSearchParams({slot: form.slot.value, country: form.country.value,
      month: form.startMonth.value, months: form.months.value});
    const response = await fetch(`/api/ads/inventory?${params}`);
    const out = form.querySelector("[data-inventory]");
    if (!response.ok) { out.textContent = ""; return; }
    const body = await response.json();
    out.textContent = body.full ? "この期間の広告枠は満席です。" : `割り当て予定の掲載位置: ${body.nextPosition}`;
    out.dataset.full = body.full;
    if (body.price) {
      const total = body.price.unitAmount * body.months;
      form.querySelector("[data-price]").textContent =
        `料金: ¥${body.price.unitAmount.toLocaleString()} / 月 × ${body.months} か月 = ¥${total.toLocaleString()}（前払い）`;
    }
  }
  ["slot", "country", "startMonth", "months"].forEach((name) => form[name].addEventListener("change", refreshInventory));
  refreshInventory();
  form.image.addEventListener("change", async () => {
    const file = form.image.files[0];
    if (!file) return;
    const data = new FormData();
    data.append("file", file);
    // Multipart, not JSON: the API takes it with this session's token in X-CSRFToken.
    const response = await fetch("/api/uploads/ad-image", {
      method: "POST", body: data, headers: {"X-CSRFToken": csrfToken()},
    });
    const body = await response.json().catch(() => ({}));
    const notes = form.querySelector("[data-image-notes]");
    if (!response.ok) {
      imageUrl = null;
      notes.textContent = (body.error && (Object.values(body.error.fields || {})[0] || body.error.message)) || "アップロードできませんでした。";
      return;
    }
    imageUrl = body.url;
    const preview = form.querySelector("[data-image-preview]");
    preview.querySelector("img").src = body.url;
    preview.hidden = false;
    notes.textContent = `${body.width}×${body.height} ${body.format.toUpperCase()}` +
      (body.recommendations.length ? "（" + body.recommendations.map((r) => r.message).join(" ") + "）" : "");
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
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
    const response = await fetch("/api/ads/reservations", {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(payload),
    });
    const body = await response.json().catch(() => ({}));
    if (response.ok) { window.location = body.checkoutUrl; return; }
    const errors = form.querySelector("[data-errors]");
    errors.innerHTML = "";
    const fields = (body.error && body.error.fields) || {};
    const lines = Object.keys(fields).length ? Object.entries(fields).map(([k, v]) => `${k}: ${v}`) : [(body.error && body.error.message) || "購入できませんでした。"];
    for (const line of lines) { const li = document.createElement("li"); li.textContent = line; errors.appendChild(li); }
    errors.hidden = false;
    refreshInventory();
  });
})();
