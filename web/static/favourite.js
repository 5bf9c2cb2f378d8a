// Favourite toggles (templates/_favourite.html): ☆ adds the channel to the member's
// favourites, ★ removes it, through PUT / DELETE /api/favorites/{channelId}, then every
// toggle of that channel on the page flips (star, aria-pressed, label) without a reload,
// and a polite status says what changed (the label alone may not be read again).
(() => {
  const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  const errorBox = () => document.querySelector("[data-favourite-error]");

  function show(button, on) {
    button.setAttribute("aria-pressed", on ? "true" : "false");
    const label = on ? button.dataset.labelRemove : button.dataset.labelAdd;
    button.setAttribute("aria-label", label);
    button.title = label;
    button.querySelector(".favourite-star").textContent = on ? "★" : "☆";
  }

  function said(words) {
    const box = document.querySelector("[data-favourite-said]");
    if (box) box.textContent = words || "";
  }

  function report(problem) {
    const box = errorBox();
    if (!box) return;
    box.textContent = problem || "";
    box.hidden = !problem;
  }

  // The page's words for a failure (_favourite.html); the API's errors through i18n.js.
  const failed = () => (errorBox() && errorBox().dataset.failed) || "";

  async function toggle(button) {
    const channelId = button.dataset.favouriteChannel;
    const on = button.getAttribute("aria-pressed") !== "true";
    const same = document.querySelectorAll(
      `[data-favourite-channel="${CSS.escape(channelId)}"]`);
    // aria-disabled, not disabled: a disabled button loses the keyboard's focus.
    same.forEach((b) => b.setAttribute("aria-disabled", "true"));
    try {
      // No body, but sent as JSON with the page's token: the API takes state changes
      // only from this site's pages.
      const response = await fetch(`/api/favorites/${encodeURIComponent(channelId)}`, {
        method: on ? "PUT" : "DELETE",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        credentials: "same-origin",
      });
      let problem = null;
      said("");
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        problem = window.i18n.errorText(body, failed());
      } else {
        same.forEach((b) => show(b, on));
        said(on ? button.dataset.saidAdd : button.dataset.saidRemove);
      }
      report(problem);
    } catch (error) {
      report(failed());  // the network, not the API
    } finally {
      same.forEach((b) => b.removeAttribute("aria-disabled"));
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-favourite-channel]");
    if (!button) return;
    if (button.getAttribute("aria-disabled") === "true") { event.preventDefault(); return; }
    event.preventDefault();
    toggle(button);
  });
})();
