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
  const tryPostJson = (url, body) => postJson(url, body).catch(() => ({ok: false, body: {}}));

  // Write WORDS into a live region the page has held, empty, from the start. Emptied
  // first and written a moment later, so the same words a second time (copied again, the
  // same refusal again) are a change a screen reader announces again.
  function announce(region, words) {
    region.textContent = "";
    if (words) setTimeout(() => { region.textContent = words; }, 50);
  }
  document.querySelectorAll("[data-subscribe]").forEach((button) => {
    button.addEventListener("click", async () => {
      const result = await tryPostJson("/api/billing/checkout", {plan: button.dataset.subscribe});
      if (result.ok) { window.location = result.body.checkoutUrl; return; }
      announce(document.querySelector("[data-subscribe-error]"), errorText(result.body, t("subscribe_failed")));
    });
  });
  const portal = document.querySelector("[data-portal]");
  if (portal) {
    // Busy while the portal is asked for: aria-disabled, not disabled, which would take
    // the keyboard's focus off the button and leave it nowhere if the answer is no.
    portal.addEventListener("click", async () => {
      if (portal.getAttribute("aria-disabled") === "true") return;
      portal.setAttribute("aria-disabled", "true");
      const result = await tryPostJson("/api/billing/portal", {});
      if (result.ok) { window.location = result.body.portalUrl; return; }
      portal.setAttribute("aria-disabled", "false");
      announce(document.querySelector("[data-portal-error]"), errorText(result.body, t("portal_failed")));
    });
    // Coming back from the portal (the browser's back button) finds the page as it was
    // left, button busy: make it usable again.
    window.addEventListener("pageshow", () => { portal.setAttribute("aria-disabled", "false"); });
  }
  // A plan checkout left open: cancelled, it can no longer be paid and either plan can
  // be chosen at once. The button stays focusable while asking (aria-disabled).
  const openCheckout = document.querySelector("[data-open-checkout]");
  if (openCheckout) {
    const cancel = openCheckout.querySelector("[data-cancel-checkout]");
    cancel.addEventListener("click", async () => {
      if (cancel.getAttribute("aria-disabled") === "true") return;
      cancel.setAttribute("aria-disabled", "true");
      let response = null;
      let body = {};
      try {
        response = await fetch("/api/billing/checkout", {
          method: "DELETE", headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        });
        body = await response.json().catch(() => ({}));
      } catch { response = null; }
      if (response && response.ok) {
        openCheckout.remove();
        const first = document.querySelector("[data-subscribe]");
        if (first) first.focus();  // the button is gone: on to choosing a plan
        return;
      }
      cancel.setAttribute("aria-disabled", "false");
      const error = openCheckout.querySelector("[data-cancel-checkout-error]");
      error.textContent = errorText(body, t("cancel_checkout_failed"));
      error.hidden = false;
    });
  }
  // A page kept whole by the browser (Back from a plan checkout) would not show the
  // checkout opened since: ask the server again.
  if (document.querySelector("[data-upgrade]")) {
    window.addEventListener("pageshow", (event) => { if (event.persisted) window.location.reload(); });
  }
  const claim = document.getElementById("referral-claim");
  if (claim) {
    claim.addEventListener("submit", async (event) => {
      event.preventDefault();
      const result = await tryPostJson("/api/referrals/claim", {code: claim.code.value});
      // Done is news (a status); a refusal is an alert, and marks the field it is about.
      announce(claim.querySelector("[data-claim-status]"), result.ok ? t("claimed") : "");
      announce(claim.querySelector("[data-claim-error]"), result.ok ? "" : errorText(result.body, t("claim_failed")));
      claim.code.setAttribute("aria-invalid", result.ok ? "false" : "true");
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
        announce(status, t("copied"));
      } catch (error) {
        selectText(button);
        announce(status, t("copy_select"));
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
      const yours = document.querySelector("[data-plan-yours]");
      if (yours) yours.textContent = t("your_plan");
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
