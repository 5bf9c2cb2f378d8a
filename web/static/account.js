// The account page: start a subscription checkout, claim a referral code.
(() => {
  async function postJson(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body),
    });
    return {ok: response.ok, body: await response.json().catch(() => ({}))};
  }
  document.querySelectorAll("[data-subscribe]").forEach((button) => {
    button.addEventListener("click", async () => {
      const result = await postJson("/api/billing/checkout", {plan: button.dataset.subscribe});
      if (result.ok) { window.location = result.body.checkoutUrl; return; }
      const error = document.querySelector("[data-subscribe-error]");
      error.textContent = (result.body.error && result.body.error.message) || "登録を開始できませんでした。";
      error.hidden = false;
    });
  });
  const claim = document.getElementById("referral-claim");
  if (claim) {
    claim.addEventListener("submit", async (event) => {
      event.preventDefault();
      const result = await postJson("/api/referrals/claim", {code: claim.code.value});
      const message = claim.querySelector(".message");
      message.textContent = result.ok ? "紹介コードを適用しました。"
        : ((result.body.error && result.body.error.message) || "適用できませんでした。");
      message.hidden = false;
    });
  }
})();
