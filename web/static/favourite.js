// Favourite toggles (templates/_favourite.html): ☆ adds the channel to the member's
// favourites, ★ removes it, through PUT / DELETE /api/favorites/{channelId}, then every
// toggle of that channel on the page flips (star, aria-pressed, label) without a reload.
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
    same.forEach((b) => { b.disabled = true; });
    try {
      // No body, but sent as JSON with the page's token: the API takes state changes
      // only from this site's pages.
      const response = await fetch(`/api/favorites/${encodeURIComponent(channelId)}`, {
        method: on ? "PUT" : "DELETE",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        credentials: "same-origin",
      });
      let problem = null;
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        problem = window.i18n.errorText(body, failed());
      } else {
        same.forEach((b) => show(b, on));
      }
      report(problem);
    } catch (error) {
      report(failed());  // the network, not the API
    } finally {
      same.forEach((b) => { b.disabled = false; });
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-favourite-channel]");
    if (!button || button.disabled) return;
    event.preventDefault();
    toggle(button);
  });
})();
