// The video page's transcript and its embedded player, through the player's postMessage
// protocol (no script from another host): a timestamp seeks the player instead of
// reloading the page (its ?t= address stays the fallback without script), and the cue
// at the player's current time is marked as it plays.
(() => {
  const player = document.querySelector("iframe[data-player]");
  const cues = [...document.querySelectorAll("[data-cues] > li[data-start]")];
  if (!player || !cues.length) return;
  const origin = new URL(player.src).origin;
  const starts = cues.map((cue) => parseFloat(cue.dataset.start));

  const send = (message) => player.contentWindow && player.contentWindow.postMessage(JSON.stringify(message), origin);

  const mark = (seconds) => {
    let index = -1;
    for (let i = 0; i < starts.length && starts[i] <= seconds + 0.25; i += 1) index = i;
    cues.forEach((cue, i) => {
      const on = i === index;
      cue.classList.toggle("current-cue", on);
      if (on) cue.setAttribute("aria-current", "true"); else cue.removeAttribute("aria-current");
    });
  };

  // The player answers "listening" with "infoDelivery" messages carrying currentTime.
  const listen = () => send({event: "listening", id: "transcript", channel: "widget"});
  player.addEventListener("load", listen);
  listen();

  window.addEventListener("message", (event) => {
    if (event.origin !== origin || event.source !== player.contentWindow) return;
    let data = event.data;
    try { if (typeof data === "string") data = JSON.parse(data); } catch (failure) { return; }
    if (data && data.event === "infoDelivery" && data.info && typeof data.info.currentTime === "number") {
      mark(data.info.currentTime);
    }
  });

  document.querySelector("[data-cues]").addEventListener("click", (event) => {
    const link = event.target.closest("a[data-seek]");
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button) return;
    event.preventDefault();
    const seconds = parseInt(link.dataset.seek, 10);
    send({event: "command", func: "seekTo", args: [seconds, true]});
    send({event: "command", func: "playVideo", args: []});
    mark(seconds);
    history.replaceState(null, "", link.href);
  });
})();
