// The video page's unlock button: spend the credits, then show the subtitles.
(() => {
  const button = document.querySelector("[data-unlock]");
  if (!button) return;
  button.addEventListener("click", async () => {
    button.disabled = true;
    // No body, but sent as JSON: the API takes state changes only as JSON calls.
    const response = await fetch(`/api/videos/${encodeURIComponent(button.dataset.unlock)}/unlock`, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      credentials: "same-origin",
    });
    if (response.ok) { window.location.reload(); return; }
    const body = await response.json().catch(() => ({}));
    const error = document.querySelector("[data-unlock-error]");
    error.textContent = (body.error && body.error.message) || "解除できませんでした。";
    error.hidden = false;
    button.disabled = false;
  });
})();
