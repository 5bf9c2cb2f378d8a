// The advertiser's reservation pages (/ads, /ads/<id>): "お支払いへ進む" back to the
// reservation's own checkout while its hold lasts, and, on a reservation whose payment
// is being confirmed, following its state until the provider's answer has arrived.
// Words come from the page (ads/_payment.html, page_text) and the API's error codes.
(() => {
  const { t } = window.i18n;

  // A refused button says why in words beside it, never silence. The button stays
  // focusable while it is busy (aria-disabled, not disabled, which would drop a
  // keyboard user's focus to the page); a button that can no longer be used is removed,
  // and the focus goes to the words that say why.
  function refused(button, body) {
    const closed = body.error && body.error.code === "checkout_closed";
    const error = button.parentElement.querySelector("[data-checkout-error]");
    error.textContent = closed ? t("checkout_closed") : window.i18n.errorText(body, t("checkout_failed"));
    error.hidden = false;
    if (!closed) { button.removeAttribute("aria-disabled"); return; }
    const hadFocus = document.activeElement === button;
    button.remove();
    if (hadFocus) { error.tabIndex = -1; error.focus(); }
  }

  document.querySelectorAll("[data-resume-checkout]").forEach((button) => button.addEventListener("click", async () => {
    if (button.getAttribute("aria-disabled") === "true") return;  // already asking
    button.setAttribute("aria-disabled", "true");
    let body = {};
    try {
      const response = await fetch(`/api/ads/reservations/${button.dataset.resumeCheckout}/checkout`, {
        // No body, but sent as JSON: the API takes state changes only as JSON calls.
        method: "POST", headers: {"Content-Type": "application/json"}, credentials: "same-origin",
      });
      body = await response.json().catch(() => ({}));
      if (response.ok) { window.location.assign(body.checkoutUrl); return; }
    } catch {
      body = {};
    }
    refused(button, body);
  }));

  // Show a state the page prepared (a <template data-payment-view>), with its deadline.
  function show(state, reservation) {
    const view = document.querySelector(`template[data-payment-view="${state}"]`);
    const news = document.querySelector("[data-payment-news-slot]");
    const status = document.querySelector("[data-payment-status]");
    const parts = view.content.cloneNode(true);
    status.replaceChildren(...parts.querySelector("[data-view-status]").childNodes);
    news.replaceChildren(...parts.querySelector("[data-view-news]").childNodes);
    const due = news.querySelector("[data-payment-due]");
    if (due && reservation.paymentDueAt) {
      due.textContent = window.i18n.when(reservation.paymentDueAt);
      due.setAttribute("datetime", reservation.paymentDueAt);
    }
    news.hidden = false;
  }

  function say(key) {
    const news = document.querySelector("[data-payment-news-slot]");
    const line = document.createElement("p");
    line.dataset.paymentNews = key;
    line.textContent = t(key);
    news.replaceChildren(line);
    news.hidden = false;
  }

  // Ask again after 1, 2, 3, 5, 8, 13, 20 and 30 seconds (about 80 s in all), then
  // say the confirmation is late: the webhook usually arrives within seconds.
  const DELAYS_MS = [1000, 2000, 3000, 5000, 8000, 13000, 20000, 30000];
  const followed = document.querySelector("[data-follow-payment]");
  if (!followed) return;
  const id = followed.dataset.followPayment;
  let attempt = 0;
  async function ask() {
    let reservation = null;
    let gone = false;
    try {
      const response = await fetch(`/api/ads/reservations/${id}`, {credentials: "same-origin"});
      gone = response.status === 404;
      if (response.ok) reservation = await response.json();
    } catch {
      reservation = null;  // the network: ask again later
    }
    if (gone || (reservation && reservation.paymentState === "unpaid")) {
      document.querySelector("[data-payment-status]").textContent = t("released_status");
      say("released");
      return;
    }
    if (reservation && (reservation.paymentState === "paid" || reservation.paymentState === "payment_pending")) {
      show(reservation.paymentState, reservation);
      return;
    }
    if (attempt >= DELAYS_MS.length) { say("confirm_slow"); return; }
    setTimeout(ask, DELAYS_MS[attempt++]);
  }
  setTimeout(ask, DELAYS_MS[attempt++]);
})();
