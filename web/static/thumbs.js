// Thumbnails that cannot load (offline, a removed video) give way to the drawn
// placeholder under them: the image is hidden, the placeholder box stays. An image that
// loads later (a lazy one below the fold) shows again.
(() => {
  const mark = (img, failed) => img.closest(".thumb").classList.toggle("thumb-failed", failed);
  document.querySelectorAll("img[data-thumb]").forEach((img) => {
    if (img.complete && img.naturalWidth === 0) mark(img, true);
    img.addEventListener("error", () => mark(img, true));
    img.addEventListener("load", () => mark(img, img.naturalWidth === 0));
  });
})();
