// Viewable impressions: a card counts once per render when at least half of it stays in
// the viewport for one continuous second (threshold 0.5, dwell 1 s).
(() => {
  const DWELL_MS = 1000;
  const timers = new Map();
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const card = entry.target;
      if (entry.isIntersecting && entry.intersectionRatio >= 0.5) {
        if (!timers.has(card)) {
          timers.set(card, setTimeout(() => {
            timers.delete(card);
            observer.unobserve(card);
            card.dataset.impressionSent = "true";
            fetch(card.dataset.impressionUrl, {method: "POST", keepalive: true, credentials: "same-origin"});
          }, DWELL_MS));
        }
      } else if (timers.has(card)) {
        clearTimeout(timers.get(card));  // left too early: no impression
        timers.delete(card);
      }
    }
  }, {threshold: [0, 0.5, 1]});
  document.querySelectorAll(".ad-direct[data-impression-url]").forEach((card) => observer.observe(card));
})();
