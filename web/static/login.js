// The dev login: sign in by e-mail, then go on to the page asked for. data-next was
// checked on the server (web.auth._safe_next), so it is always a path on this site.
(() => {
  const form = document.getElementById("dev-login");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const response = await fetch("/auth/dev-login", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({email: form.email.value, name: form.name.value}),
    });
    if (response.ok) { window.location.assign(form.dataset.next || "/"); return; }
    const body = await response.json().catch(() => ({}));
    const error = form.querySelector(".error");
    error.textContent = i18n.errorText(body, i18n.t("login_failed"));
    error.hidden = false;
  });
  form.querySelector("button[type=submit]").disabled = false;
})();
