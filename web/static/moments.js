// Every moment of a result (templates/search.html, "N more"): the link to the video
// becomes a button that lists the moments past those shown, a page at a time, from
// GET /api/videos/{id}/moments (its first are the ones shown, so they are skipped). Each
// moment is built as the server draws one: its time (a link into the video page), its
// cues with the search's marks, and a link to the platform. A highlight is escaped text
// with <mark> around matches: it is read in an inert template and rebuilt from its text,
// keeping <mark> alone. Focus goes to the first moment added; a status says how many
// came, or that they could not be loaded.
(() => {
  const source = document.getElementById("moments-text");
  if (!source) return;
  const words = JSON.parse(source.textContent);
  const locale = document.documentElement.lang || "en";
  const plural = new Intl.PluralRules(locale);
  const number = new Intl.NumberFormat(locale);
  const PER_PAGE = 20;

  const fill = (template, values) =>
    template.replace(/\{(\w+)\}/g, (slot, name) => (name in values ? values[name] : slot));
  const counted = (forms, count, values) =>
    fill(forms[plural.select(count)] || forms.other, { ...values, num: number.format(count) });

  // A time in a video as m:ss, or h:mm:ss from an hour (web/pages/video.py, clock).
  const clock = (value) => {
    const whole = Math.floor(value);
    const [hours, minutes, secs] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
    const two = (n) => String(n).padStart(2, "0");
    return hours ? `${hours}:${two(minutes)}:${two(secs)}` : `${minutes}:${two(secs)}`;
  };
  // A start for an address, to the hundredth (web/pages/video.py, seconds).
  const seconds = (value) => value.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");

  // The highlight's text, its <mark>s kept and nothing else: a template's content is
  // inert (no script runs, nothing loads), and only text is copied out of it.
  function marked(highlight) {
    const template = document.createElement("template");
    template.innerHTML = highlight;
    const out = document.createDocumentFragment();
    for (const node of template.content.childNodes) {
      if (node.nodeName === "MARK") {
        const mark = document.createElement("mark");
        mark.textContent = node.textContent;
        out.append(mark);
      } else {
        out.append(document.createTextNode(node.textContent));
      }
    }
    return out;
  }

  // The platform at a time, as the server links it (web/api/schemas/catalog.py, watch_url).
  const watchUrl = (url, start) => {
    const base = url.split("&t=")[0];
    return start ? `${base}&t=${Math.trunc(start)}s` : base;
  };

  // A moment as the server draws one (templates/search.html): opened at the first cue
  // that matched (else its first), its cues set apart, the platform at that time; one
  // with no word marked in a search by meaning says it was found by meaning.
  function momentItem(videoId, moment, semantic) {
    const cues = moment.cues && moment.cues.length ? moment.cues : [{ start: moment.start, highlight: moment.highlight }];
    const matched = cues.filter((cue) => cue.highlight.includes("<mark>"));
    const opens = (matched[0] || cues[0]).start;
    const byMeaning = semantic && !matched.length;
    const item = document.createElement("li");
    item.className = "moment";
    item.dataset.start = seconds(opens);
    if (byMeaning) item.dataset.byMeaning = "";
    const time = document.createElement("a");
    time.className = "timestamp";
    const at = opens > 0 ? `t=${seconds(opens)}&` : "";
    time.href = `/videos/${encodeURIComponent(videoId)}?${at}q=${encodeURIComponent(words.q)}`;
    time.textContent = clock(opens);
    item.append(time);
    if (byMeaning) {
      const kind = document.createElement("span");
      kind.className = "moment-kind";
      kind.textContent = words.byMeaning;
      item.append(" ", kind);
    }
    const snippet = document.createElement("span");
    snippet.className = "snippet";
    cues.forEach((said, n) => {
      if (n) {
        const sep = document.createElement("span");
        sep.className = "cue-sep";
        sep.setAttribute("aria-hidden", "true");
        sep.textContent = " / ";
        snippet.append(sep);
      }
      const cue = document.createElement("span");
      cue.className = "cue";
      cue.dataset.start = seconds(said.start);
      cue.append(marked(said.highlight));
      snippet.append(cue);
    });
    const watch = document.createElement("a");
    watch.className = "platform-link";
    watch.href = watchUrl(moment.url, opens);
    watch.target = "_blank";
    watch.rel = "noopener";
    watch.setAttribute("aria-label", fill(words.watch, { time: clock(opens) }));
    watch.append("YouTube");
    const arrow = document.createElement("span");
    arrow.setAttribute("aria-hidden", "true");
    arrow.textContent = " ↗";
    watch.append(arrow);
    item.append(" ", snippet, " ", watch);
    return item;
  }

  function setUp(box) {
    const link = box.querySelector(".more-moments-open");
    const list = document.getElementById(link.getAttribute("aria-controls"));
    const said = box.querySelector("[data-more-said]");
    const title = (box.closest(".result")?.querySelector(".result-video strong")?.textContent || "").trim();
    const total = Number(box.dataset.total);
    let listed = Number(box.dataset.shown);

    // A button in the link's place: it acts here rather than going to the video.
    const button = document.createElement("button");
    button.type = "button";
    button.className = "more-moments-button";
    button.setAttribute("aria-controls", list.id);
    const name = () => {
      const left = total - listed;
      button.textContent = counted(words.more, left, {});
      button.setAttribute("aria-label", counted(words.label, left, { title }));
    };
    name();
    link.replaceWith(button);

    async function more() {
      // The API's pages hold the shown moments first: ask the page holding the next one
      // and skip what is listed already.
      const page = Math.floor(listed / PER_PAGE) + 1;
      const url = `${box.dataset.api}&page=${page}&perPage=${PER_PAGE}`;
      button.setAttribute("aria-busy", "true");
      button.setAttribute("aria-disabled", "true");
      said.textContent = "";
      try {
        const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = await response.json();
        const fresh = body.moments.slice(listed - (page - 1) * PER_PAGE);
        const items = fresh.map((moment) => momentItem(box.dataset.moreMoments, moment, body.semantic.applied));
        list.append(...items);
        listed += items.length;
        // The card takes the whole row to hold them (site.css, moments-open).
        if (items.length) box.closest(".result")?.classList.add("moments-open");
        said.textContent = counted(words.added, items.length, {});
        if (items.length) items[0].querySelector(".timestamp").focus();
        if (!items.length || listed >= Math.min(total, body.totalMoments)) {
          button.remove();
        } else {
          name();
        }
      } catch (error) {
        said.textContent = words.failed;
      } finally {
        button.removeAttribute("aria-busy");
        button.removeAttribute("aria-disabled");
      }
    }

    button.addEventListener("click", () => {
      if (button.getAttribute("aria-disabled") === "true") return;
      more();
    });
  }

  document.querySelectorAll("[data-more-moments]").forEach(setUp);
})();
