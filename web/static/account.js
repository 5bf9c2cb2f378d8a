// The account page: start a subscription checkout, open the billing portal, claim a
// referral code.
(() => {
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  async function postJson(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
      body: JSON.stringify(body),
    });
    return {ok: response.ok, body: await response.json().catch(() => ({}))};
  }
  const errorText = (result, fallback) => (result.body.error && result.body.error.message) || fallback;
  document.querySelectorAll("[data-subscribe]").forEach((button) => {
    button.addEventListener("click", async () => {
      const result = await postJson("/api/billing/checkout", {plan: button.dataset.subscribe});
      if (result.ok) { window.location = result.body.checkoutUrl; return; }
      const error = document.querySelector("[data-subscribe-error]");
      error.textContent = errorText(result, "登録を開始できませんでした。");
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
      error.textContent = errorText(result, "契約の管理を開けませんでした。");
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
      message.textContent = result.ok ? "紹介コードを適用しました。" : errorText(result, "適用できませんでした。");
      message.hidden = false;
    });
  }
})();
