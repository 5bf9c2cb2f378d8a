// The administrator's review, on /admin/ads and on a reservation's page (/ads/<id>):
// approve, stop with a reason, and show the stop notice to send. What each action did is
// said in the page's live regions, and the parts marked data-refresh are read again in
// place rather than reloaded, so a keyboard or screen reader user stays on the row they
// were on. The two dialogs hold focus while open and hand it back to what opened them.
(() => {
  const { t } = window.i18n;
  const said = document.querySelector("[data-result]");
  const failed = document.querySelector("[data-failure]");
  const stopDialog = document.getElementById("stop-dialog");
  const noticeDialog = document.getElementById("notice-dialog");
  const noticeSaid = noticeDialog.querySelector("[data-notice-said]");

  function say(words) { failed.textContent = ""; said.textContent = words; }
  function fail(words) { said.textContent = ""; failed.textContent = words; }

  async function post(url, body) {
    try {
      const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body || {})});
      return {ok: response.ok, body: await response.json().catch(() => ({}))};
    } catch {
      return {ok: false, body: {}};  // no answer: the action's own failure sentence
    }
  }

  // A reservation's row of the list, or the review section of its own page.
  const rowOf = (id) => document.querySelector(`[data-reservation-id="${CSS.escape(id)}"]`);
  const nameOf = (id) => { const cell = document.getElementById(`name-${id}`); return cell ? cell.textContent.trim() : ""; };

  // The parts marked data-refresh (the reservations and the timeline; a reservation's
  // status and actions) as the server draws them now, in place of the ones on the page;
  // when that cannot be read, the whole page again.
  async function refresh() {
    const response = await fetch(window.location.href, {headers: {Accept: "text/html"}}).catch(() => null);
    if (!response || !response.ok) { window.location.reload(); return; }
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const shown of document.querySelectorAll("[data-refresh]")) {
      const now = fresh.querySelector(`[data-refresh="${CSS.escape(shown.dataset.refresh)}"]`);
      if (now) shown.replaceWith(document.importNode(now, true));
    }
  }

  // Where focus goes when the button it was on has gone with the action (an approved
  // ad has no Approve button): the row's next action, else the table (or the section)
  // itself.
  function focusInRow(id, preferred) {
    const row = rowOf(id);
    const target = (row && (row.querySelector(preferred) || row.querySelector("button"))) ||
      document.querySelector("[data-review-home]");
    target.focus();
    return target;
  }

  // --- dialogs: focus held inside while open, given back on close ---------------------
  const FOCUSABLE = "a[href], button:not([disabled]), textarea:not([disabled]), input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex='-1'])";
  const openers = new Map();

  function holdFocus(dialog) {
    dialog.addEventListener("keydown", (event) => {
      if (event.key !== "Tab") return;
      const inside = [...dialog.querySelectorAll(FOCUSABLE)].filter((el) => el.getClientRects().length);
      if (!inside.length) return;
      const first = inside[0];
      const last = inside[inside.length - 1];
      const here = document.activeElement;  // the title where focus starts is not a stop
      if (event.shiftKey && (here === first || !inside.includes(here))) { event.preventDefault(); last.focus(); }
      else if (!event.shiftKey && here === last) { event.preventDefault(); first.focus(); }
    });
    dialog.addEventListener("close", () => {
      const opener = openers.get(dialog);
      if (opener && opener.isConnected) opener.focus();
    });
  }
  holdFocus(stopDialog);
  holdFocus(noticeDialog);

  function open(dialog, opener) {
    openers.set(dialog, opener);
    dialog.returnValue = "";  // Escape keeps the last value: it must not confirm again
    dialog.showModal();
    const start = dialog.querySelector("[autofocus]");
    if (start) start.focus();
  }

  // --- the actions ---------------------------------------------------------------------
  const sending = new Set();  // a second press while the first is on its way does nothing

  async function approve(button) {
    const id = button.dataset.approve;
    if (sending.has(id)) return;
    sending.add(id);
    const result = await post(`/api/admin/ads/reservations/${id}/approve`).finally(() => sending.delete(id));
    if (!result.ok) { fail(window.i18n.errorText(result.body, t("approve_failed"))); return; }
    const name = nameOf(id);
    await refresh();
    say(t("approved", {name}));
    focusInRow(id, "[data-stop]");
  }

  let stopping = null;
  const reason = stopDialog.querySelector("textarea[name=reason]");

  function clearReasonError() {
    const error = document.getElementById("error-reason");
    if (error) error.remove();
    reason.removeAttribute("aria-invalid");
    reason.removeAttribute("aria-describedby");
  }

  function askToStop(button) {
    stopping = button.dataset.stop;
    reason.value = "";
    clearReasonError();
    open(stopDialog, button);
  }

  // A blank reason (spaces too) keeps the dialog open, the words beside the field, as
  // the API would refuse it; the page behind is left as it was.
  stopDialog.querySelector("form").addEventListener("submit", (event) => {
    if (!event.submitter || event.submitter.value !== "confirm" || reason.value.trim()) return;
    event.preventDefault();
    clearReasonError();
    const error = document.createElement("p");
    error.className = "field-error";
    error.id = "error-reason";
    error.textContent = window.i18n.problemWords("required");
    reason.closest("label").insertAdjacentElement("afterend", error);
    reason.setAttribute("aria-invalid", "true");
    reason.setAttribute("aria-describedby", error.id);
    reason.focus();
  });
  reason.addEventListener("input", clearReasonError);

  stopDialog.addEventListener("close", async () => {
    // A close event runs after the dialog has closed, as a task of its own: when Stop was
    // pressed again before it ran, it is the last opening's, and the new one stands.
    if (stopDialog.open) return;
    const id = stopping;
    stopping = null;
    if (stopDialog.returnValue !== "confirm" || !id) return;
    const result = await post(`/api/admin/ads/reservations/${id}/stop`, {reason: reason.value});
    if (!result.ok) { fail(window.i18n.errorText(result.body, t("stop_failed"))); return; }
    const words = t("stopped", {name: nameOf(id)});
    await refresh();
    say(words);
    // The Stop button is gone; the row's Stop notice button opens the same notice again.
    const back = focusInRow(id, "[data-show-notice]");
    showNotice(result.body.notice, back, words);
  });

  function showNotice(notice, opener, words) {
    noticeDialog.querySelector("[data-notice-to]").textContent = notice.to;
    noticeDialog.querySelector("[data-notice-subject]").textContent = notice.subject;
    noticeDialog.querySelector("[data-notice-created]").textContent = window.i18n.when(notice.createdAt);
    noticeDialog.querySelector("[data-notice-body]").textContent = notice.body;
    noticeDialog.querySelector("[data-notice-mailto]").href = notice.mailto;
    noticeSaid.textContent = "";
    open(noticeDialog, opener);
    // The page behind a modal dialog is inert, its live regions silent: said in here.
    if (words) noticeSaid.textContent = words;
  }

  async function openNotice(button) {
    const response = await fetch(`/api/admin/ads/reservations/${button.dataset.showNotice}/stop-notice`).catch(() => null);
    const body = response ? await response.json().catch(() => ({})) : {};
    if (response && response.ok) showNotice(body.notice, button);
    else fail(window.i18n.errorText(body, t("notice_failed")));
  }

  // One listener for the page: the rows are replaced after each action.
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.approve) approve(button);
    else if (button.dataset.stop) askToStop(button);
    else if (button.dataset.showNotice) openNotice(button);
  });

  noticeDialog.querySelector("[data-copy]").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(noticeDialog.querySelector("[data-notice-body]").textContent);
      noticeSaid.textContent = t("copied");
    } catch {
      noticeSaid.textContent = t("copy_failed");
    }
  });
  noticeDialog.querySelector("[data-close]").addEventListener("click", () => noticeDialog.close());
})();
