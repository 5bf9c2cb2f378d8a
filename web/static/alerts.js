// Alerts (docs/api.md, POST/DELETE /api/alerts): on the search page, the 通知 control
// (_alert_me.html) saves the search being looked at; on the account page, each alert
// (account.html, #alerts) can be deleted and its feed given a new address. Buttons stay
// focusable while the API answers (aria-disabled, not disabled).
(() => {
  const {errorText} = window.i18n;
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // The API's answer as {status, body}; status 0 when the network failed.
  async function send(method, url, body) {
    try {
      const response = await fetch(url, {
        method,
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        credentials: "same-origin",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = response.status === 204 ? {} : await response.json().catch(() => ({}));
      return {status: response.status, body: answer};
    } catch (error) {
      return {status: 0, body: {}};
    }
  }

  // Words into a live region already on the page; emptied first so the same words a
  // second time are said again.
  function announce(region, words) {
    if (!region) return;
    region.textContent = "";
    if (words) setTimeout(() => { region.textContent = words; }, 50);
  }

  const busy = (button) => button.getAttribute("aria-disabled") === "true";
  const setBusy = (button, on) => button.setAttribute("aria-disabled", on ? "true" : "false");

  // -- the search page ---------------------------------------------------------------
  // The control drops down over the results: Escape closes it, focus back on its summary.
  const control = document.querySelector("[data-alert-me]");
  if (control) {
    control.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !control.open) return;
      control.open = false;
      control.querySelector("summary").focus();
    });
  }
  const form = document.querySelector("[data-alert-form]");
  if (form) {
    const box = form.closest("[data-alert-me]");
    const noScript = box.querySelector("[data-alert-no-script]");
    if (noScript) noScript.remove();
    form.hidden = false;
    const error = form.querySelector("[data-alert-error]");
    const button = form.querySelector("button[type=submit]");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (busy(button)) return;
      setBusy(button, true);
      const body = {...JSON.parse(form.dataset.alert), frequency: form.frequency.value};
      const answer = await send("POST", "/api/alerts", body);
      setBusy(button, false);
      if (answer.status === 201) {
        const saved = box.querySelector("[data-alert-saved]");
        form.remove();
        saved.hidden = false;
        saved.focus();  // the button is gone: focus what says it is done
        return;
      }
      if (answer.status === 401) { window.location = form.dataset.signIn; return; }
      error.textContent = "";
      const code = (answer.body.error || {}).code;
      setTimeout(() => {
        if (code === "plan_limit") {
          const words = box.querySelector("[data-alert-plan-limit]").content.cloneNode(true);
          error.replaceChildren(words);
        } else {
          error.textContent = errorText(answer.body, error.dataset.failed);
        }
      }, 50);
    });
  }

  // -- the account page --------------------------------------------------------------
  const list = document.querySelector("[data-alerts]");
  if (!list) return;
  const said = list.querySelector("[data-alerts-said]");
  const problem = list.querySelector("[data-alerts-error]");
  const text = (key) => list.dataset[key] || "";

  list.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-delete-alert], [data-renew-feed], [data-resume-alert]");
    if (!button) return;
    const item = button.closest("[data-alert-id]");
    const id = encodeURIComponent(item.dataset.alertId);
    if (busy(button)) return;
    if (button.matches("[data-resume-alert]")) {
      // The mailbox is fixed: mail goes out again, the news that waited first.
      setBusy(button, true);
      const answer = await send("POST", `/api/alerts/${id}/resume`);
      setBusy(button, false);
      if (answer.status === 200) {
        item.querySelector("[data-alert-paused]").remove();
        announce(problem, "");
        announce(said, text("resumed"));
        item.querySelector("h3 a").focus();  // the button is gone: focus stays in the alert
      } else {
        announce(problem, errorText(answer.body, text("resumeFailed")));
      }
      return;
    }
    if (button.matches("[data-renew-feed]")) {
      if (!window.confirm(text("renewConfirm"))) return;
      setBusy(button, true);
      const answer = await send("POST", `/api/alerts/${id}/feed-token`);
      setBusy(button, false);
      if (answer.status === 200 && answer.body.feedUrl) {
        const field = item.querySelector("[data-feed-url]");
        field.value = answer.body.feedUrl;
        item.querySelectorAll("[data-copy]").forEach((copy) => { copy.dataset.copy = answer.body.feedUrl; });
        announce(problem, "");
        announce(said, text("renewed"));
      } else {
        announce(problem, errorText(answer.body, text("renewFailed")));
      }
      return;
    }
    setBusy(button, true);
    const answer = await send("DELETE", `/api/alerts/${id}`);
    if (answer.status === 204 || answer.status === 404) {  // 404: already gone
      const items = [...list.querySelectorAll("[data-alert-id]")];
      const next = items[items.indexOf(item) + 1] || items[items.indexOf(item) - 1];
      item.remove();
      list.querySelector("[data-alerts-none]").hidden = Boolean(next);
      const used = list.querySelector("[data-alerts-used]");
      if (used) used.hidden = true;  // the count is the page's; it reads right on reload
      // Focus goes on to the next alert's delete button, else to the section's heading.
      (next ? next.querySelector("[data-delete-alert]") : list.querySelector("h2")).focus();
      announce(problem, "");
      announce(said, button.dataset.deleted);
      return;
    }
    setBusy(button, false);
    announce(problem, errorText(answer.body, text("deleteFailed")));
  });
})();
