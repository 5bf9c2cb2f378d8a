// The API reference at /api/docs: Swagger UI (vendored) over /api/openapi.json.
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("api-reference");
  window.SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    deepLinking: true,
    defaultModelsExpandDepth: 0,
    // Calls from the page go with the session cookie, like the site's own pages.
    withCredentials: true,
  });
});
