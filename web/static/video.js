// The video page's unlock button: spend the credits, then show the subtitles with what
// they cost. One click
// is one charge: the button is disabled while the request runs, and the request carries
// an Idempotency-Key made for this click, so a request sent twice is charged once.
// Disabled with aria-disabled, not `disabled`, so the keyboard's focus stays on it: after
// a refusal the reader is where they were, the reason said (role=alert).
(() => {
  const button = document.querySelector("[data-unlock]");
  if (!button) return;

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    // Pages served over plain HTTP have no randomUUID: a version 4 UUID by hand.
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  // The page's own words for the codes this button meets (video.html page_text); any
  // other API error in the reader's words (i18n.js).
  const OWN = ["insufficient_credits", "no_subtitles", "request_in_progress", "unauthenticated"];

  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    button.setAttribute("aria-busy", "true");
    const error = document.querySelector("[data-unlock-error]");
    error.hidden = true;
    let response;
    try {
      // No body, but sent as JSON: the API takes state changes only as JSON calls.
      response = await fetch(`/api/videos/${encodeURIComponent(button.dataset.unlock)}/unlock`, {
        method: "POST",
        headers: {"Content-Type": "application/json", "Idempotency-Key": newKey()},
        credentials: "same-origin",
      });
    } catch (failure) {
      response = null;
    }
    if (response && response.ok) {
      // The page again with the subtitles, saying what the unlock cost and the balance
      // left (read from the access row, so the words hold after the reload). Without
      // the skip link's #main, which would take the focus from the subtitles.
      const next = new URL(window.location.href);
      next.searchParams.set("unlocked", "1");
      next.hash = "";
      window.location.replace(next.toString());
      return;
    }
    const body = response ? await response.json().catch(() => ({})) : {};
    const code = body.error && body.error.code;
    error.textContent = OWN.includes(code) ? i18n.t(code) : i18n.errorText(body, i18n.t("unlock_failed"));
    error.hidden = false;
    document.querySelector("[data-unlock-plans]").hidden = code !== "insufficient_credits";
    button.removeAttribute("aria-disabled");
    button.removeAttribute("aria-busy");
  });
})();
