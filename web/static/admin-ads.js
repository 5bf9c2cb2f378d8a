// /admin/ads: approve, stop with a reason, and show the stop notice to send.
(() => {
  async function post(url, body) {
    const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body || {})});
    return {ok: response.ok, body: await response.json().catch(() => ({}))};
  }
  document.querySelectorAll("[data-approve]").forEach((button) => button.addEventListener("click", async () => {
    const result = await post(`/api/admin/ads/reservations/${button.dataset.approve}/approve`);
    if (result.ok) window.location.reload(); else alert(i18n.errorText(result.body, i18n.t("approve_failed")));
  }));
  const stopDialog = document.getElementById("stop-dialog");
  const noticeDialog = document.getElementById("notice-dialog");
  let stopping = null;
  document.querySelectorAll("[data-stop]").forEach((button) => button.addEventListener("click", () => {
    stopping = button.dataset.stop; stopDialog.querySelector("textarea").value = ""; stopDialog.showModal();
  }));
  stopDialog.addEventListener("close", async () => {
    if (stopDialog.returnValue !== "confirm" || !stopping) return;
    const result = await post(`/api/admin/ads/reservations/${stopping}/stop`, {reason: stopDialog.querySelector("textarea").value});
    if (!result.ok) { alert(i18n.errorText(result.body, i18n.t("stop_failed"))); return; }
    showNotice(result.body.notice);
  });
  function showNotice(notice) {
    noticeDialog.querySelector("[data-notice-to]").textContent = notice.to;
    noticeDialog.querySelector("[data-notice-subject]").textContent = notice.subject;
    noticeDialog.querySelector("[data-notice-created]").textContent = i18n.when(notice.createdAt);
    noticeDialog.querySelector("[data-notice-body]").textContent = notice.body;
    noticeDialog.querySelector("[data-notice-mailto]").href = notice.mailto;
    noticeDialog.showModal();
  }
  document.querySelectorAll("[data-show-notice]").forEach((button) => button.addEventListener("click", async () => {
    const response = await fetch(`/api/admin/ads/reservations/${button.dataset.showNotice}/stop-notice`);
    const body = await response.json().catch(() => ({}));
    if (response.ok) showNotice(body.notice); else alert(i18n.errorText(body, i18n.t("notice_failed")));
  }));
  noticeDialog.querySelector("[data-copy]").addEventListener("click", () => navigator.clipboard.writeText(noticeDialog.querySelector("[data-notice-body]").textContent));
  noticeDialog.querySelector("[data-close]").addEventListener("click", () => { noticeDialog.close(); window.location.reload(); });
})();
