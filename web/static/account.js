// The account page: start a subscription checkout, open the billing portal, claim a
// referral code, copy the code or the share link.
(() => {
  const {t, errorText} = window.i18n;
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  async function postJson(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
      body: JSON.stringify(body),
    });
    return {ok: response.ok, body: await response.json().catch(() => ({}))};
  }
  document.querySelectorAll("[data-subscribe]").forEach((button) => {
    button.addEventListener("click", async () => {
      const result = await postJson("/api/billing/checkout", {plan: button.dataset.subscribe});
      if (result.ok) { window.location = result.body.checkoutUrl; return; }
      const error = document.querySelector("[data-subscribe-error]");
      error.textContent = errorText(result.body, t("subscribe_failed"));
      error.hidden = false;
    });
  });
  const portal = document.querySelector("[data-portal]");
  if (portal) {
    portal.addEventListener("click", async () => {
      portal.disabled = true;
      const result = await postJson("/api/billing/portal", {});
      if (result.ok) { window.location = result.body.portalUrl; return; }
      portal.disabled = false;
      const error = document.querySelector("[data-portal-error]");
      error.textContent = errorText(result.body, t("portal_failed"));
      error.hidden = false;
    });
    // Coming back from the portal (the browser's back button) finds the page as it was
    // left, button disabled: make it usable again.
    window.addEventListener("pageshow", () => { portal.disabled = false; });
  }
  const claim = document.getElementById("referral-claim");
  if (claim) {
    claim.addEventListener("submit", async (event) => {
      event.preventDefault();
      const result = await postJson("/api/referrals/claim", {code: claim.code.value});
      const message = claim.querySelector(".message");
      message.textContent = result.ok ? t("claimed") : errorText(result.body, t("claim_failed"));
      message.hidden = false;
    });
  }
  const status = document.querySelector("[data-copy-status]");
  function selectText(button) {
    const field = button.parentElement.querySelector("input, code");
    if (field && field.select) { field.select(); return; }
    const range = document.createRange();
    range.selectNodeContents(field);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  document.querySelectorAll("[data-copy]").forEach((button) => {
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(button.dataset.copy);
        status.textContent = t("copied");
      } catch (error) {
        selectText(button);
        status.textContent = t("copy_select");
      }
    });
  });
})();
