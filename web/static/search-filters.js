// The search page's channel filter: a box that narrows the list of channels as one
// types (by title, ignoring case and full/half width). Without script the whole list
// shows, and the form sends the chosen channels as it is.
(() => {
  const box = document.querySelector("[data-channel-search]");
  if (!box) return;
  const items = [...document.querySelectorAll("[data-channel-title]")];
  const none = document.querySelector("[data-channel-none]");
  const fold = (text) => text.normalize("NFKC").toLocaleLowerCase();
  const titles = items.map((item) => fold(item.dataset.channelTitle));

  function narrow() {
    const wanted = fold(box.value.trim());
    let shown = 0;
    items.forEach((item, n) => {
      // A chosen channel always stays in sight.
      const keep = !wanted || titles[n].includes(wanted) || item.querySelector("input").checked;
      item.hidden = !keep;
      if (keep) shown += 1;
    });
    document.querySelectorAll("[data-channel-group]").forEach((list) => {
      const group = list.previousElementSibling;
      const any = [...list.children].some((item) => !item.hidden);
      list.hidden = !any;
      if (group && group.classList.contains("channel-group")) group.hidden = !any;
    });
    if (none) none.hidden = shown > 0;
  }

  document.querySelector("[data-channel-search-label]").hidden = false;
  box.addEventListener("input", narrow);
  // Enter in the box narrows, it does not send the search.
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter") event.preventDefault();
  });
})();
