// The account page: start a subscription checkout, open the billing portal, claim a
// referral code, copy the code or the share link; back from a plan checkout, follow the
// provider's confirmation until the plan is the member's.
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
    const field = button.parentElement.querySelector("input, code, [data-share-link]");
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

  // The header's balance (base.html): the monthly credits, and the bonus part only when
  // there is a bonus.
  function showHeaderBalance(credits, bonus) {
    const header = document.querySelector("[data-header-balance]");
    if (!header) return;
    header.querySelector("[data-header-credits]").textContent = credits;
    header.querySelector("[data-header-bonus]").textContent = bonus;
    header.querySelector("[data-header-bonus-part]").hidden = !bonus;
  }

  // Back from a plan checkout: the provider's webhook may still be on its way. Ask
  // /api/me with a growing pause (1 s, 1.5 s, ... at most 15 s, for about 3 minutes)
  // until the plan is a paid one, then show it where the page showed "confirming".
  const confirming = document.querySelector("[data-subscription-status][data-confirming]");
  if (confirming) {
    const FIRST_PAUSE_MS = 1000, MAX_PAUSE_MS = 15000, GIVE_UP_AFTER_MS = 180000;
    let pause = FIRST_PAUSE_MS, waited = 0;
    const showConfirmed = (me) => {
      if (me.plan !== confirming.dataset.confirming) { window.location.replace("/account"); return; }
      const plan = document.querySelector("[data-plan]");
      plan.dataset.plan = me.plan;
      plan.textContent = confirming.dataset.planWords;
      confirming.textContent = confirming.dataset.confirmedWords;
      delete confirming.dataset.confirming;
      document.querySelector("[data-credit-balance]").textContent = me.creditBalance;
      document.querySelector("[data-bonus-credit]").textContent = me.bonusCredit;
      showHeaderBalance(me.creditBalance, me.bonusCredit);
      document.querySelectorAll("[data-upgrade], [data-referral-claim]").forEach((part) => part.remove());
      const manage = document.querySelector("[data-manage]");
      if (manage) manage.hidden = false;
    };
    const ask = async () => {
      try {
        const response = await fetch("/api/me", {headers: {Accept: "application/json"}});
        if (response.ok) {
          const me = await response.json();
          if (me.plan && me.plan !== "free") { showConfirmed(me); return; }
        }
      } catch (error) { /* offline for a moment: ask again after the pause */ }
      waited += pause;
      if (waited >= GIVE_UP_AFTER_MS) { confirming.textContent = t("not_confirmed"); return; }
      setTimeout(ask, pause);
      pause = Math.min(pause * 1.5, MAX_PAUSE_MS);
    };
    setTimeout(ask, pause);
  }
})();
