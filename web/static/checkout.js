// "お支払いへ進む": back to the reservation's own checkout while its hold lasts.
document.querySelectorAll("[data-resume-checkout]").forEach((button) => button.addEventListener("click", async () => {
  button.disabled = true;
  const response = await fetch(`/api/ads/reservations/${button.dataset.resumeCheckout}/checkout`, {
    // No body, but sent as JSON: the API takes state changes only as JSON calls.
    method: "POST", headers: {"Content-Type": "application/json"}, credentials: "same-origin",
  });
  const body = await response.json().catch(() => ({}));
  if (response.ok) { window.location.assign(body.checkoutUrl); return; }
  const closed = body.error && body.error.code === "checkout_closed";
  alert(closed ? i18n.t("checkout_closed") : i18n.errorText(body, i18n.t("checkout_failed")));
  if (closed) window.location.reload(); else button.disabled = false;
}));
