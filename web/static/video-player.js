// The video page's transcript and its embedded player, through the player's postMessage
// protocol (no script from another host): a timestamp seeks the player instead of
// reloading the page (its ?t= address stays the fallback without script), and the cue
// at the player's current time is marked as it plays. A screen reader hears a moment
// once: the one the page opens at, the one a timestamp jumps to, never each cue as it
// plays (video.html, data-announce).
(() => {
  const player = document.querySelector("iframe[data-player]");
  const announcer = document.querySelector("[data-announce]");

  // Emptied first, so the same words twice are said twice.
  let saying;
  const say = (words, delay = 100) => {
    if (!announcer || !words) return;
    announcer.textContent = "";
    clearTimeout(saying);
    saying = setTimeout(() => { announcer.textContent = words; }, delay);
  };

  // A time in a video as the page writes it (web/pages/video.py, clock): m:ss, h:mm:ss.
  const clock = (value) => {
    const whole = Math.floor(value);
    const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
    const two = (n) => String(n).padStart(2, "0");
    return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
  };

  // Once the page has been read out: an unlock just done, else the moment the player
  // starts at (a moment opened from the results). A polite region is not heard while
  // the page loads, hence the pause.
  const here = new URL(window.location.href);
  const unlocked = document.querySelector("[data-unlocked]");
  const start = player ? Number(new URL(player.src).searchParams.get("start")) : 0;
  if (unlocked) {
    // The unlock reloaded the page: the keyboard goes on from the subtitles' heading,
    // where the button was, not from the top of the page.
    const heading = document.getElementById("subtitles-heading");
    if (heading) heading.focus();
    say(unlocked.textContent.replace(/\s+/g, " ").trim(), 500);
  } else if (start > 0) {
    say(i18n.t("starts_at", {time: clock(start)}), 500);
  }

  // The unlock notice was said once: a reload or a kept address does not repeat it.
  if (here.searchParams.has("unlocked")) {
    here.searchParams.delete("unlocked");
    history.replaceState(null, "", here.toString());
  }

  const cues = [...document.querySelectorAll("[data-cues] > li[data-start]")];
  if (!player || !cues.length) return;
  const origin = new URL(player.src).origin;
  const starts = cues.map((cue) => parseFloat(cue.dataset.start));

  const send = (message) => player.contentWindow && player.contentWindow.postMessage(JSON.stringify(message), origin);

  // Inside the transcript's own scroll box (a phone's), the marked cue comes into view
  // without moving the page.
  const list = document.querySelector("[data-cues]");
  const reveal = (cue) => {
    if (list.scrollHeight <= list.clientHeight) return;
    const top = cue.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + cue.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 3);
    }
  };
  const marked = document.querySelector("[data-cues] > li.current-cue");
  if (marked) reveal(marked);

  // The player reports its time a little late, so it gets a quarter second of slack; a
  // clicked cue is marked exactly (its address holds its start to the hundredth).
  const mark = (seconds, slack = 0.25) => {
    let index = -1;
    for (let i = 0; i < starts.length && starts[i] <= seconds + slack; i += 1) index = i;
    cues.forEach((cue, i) => {
      const on = i === index;
      cue.classList.toggle("current-cue", on);
      if (on) { cue.setAttribute("aria-current", "true"); reveal(cue); } else cue.removeAttribute("aria-current");
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
    const seconds = parseFloat(link.dataset.seek);
    send({event: "command", func: "seekTo", args: [seconds, true]});
    send({event: "command", func: "playVideo", args: []});
    mark(seconds, 0.01);
    say(i18n.t("playing_from", {time: link.textContent.trim()}));
    history.replaceState(null, "", link.href);
  });
})();
