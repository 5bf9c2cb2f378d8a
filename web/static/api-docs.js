// The API reference at /api/docs: Swagger UI (vendored) over /api/openapi.json.
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("api-reference");
  window.SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    deepLinking: true,
    defaultModelsExpandDepth: 0,
    // Calls from the page go with the session cookie, like the site's own pages, and
    // state-changing ones with the page's CSRF token (a call may have no JSON body).
    withCredentials: true,
    requestInterceptor: (request) => {
      const token = document.querySelector('meta[name="csrf-token"]');
      if (token && request.method !== "GET") { request.headers["X-CSRFToken"] = token.content; }
      return request;
    },
  });
});
