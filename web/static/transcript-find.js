// Find in the video page's transcript (video.html, data-find): every match marked, the
// current one marked apart and scrolled into view, "3 of 12" shown and said (role=status);
// Enter and Shift+Enter (or the buttons) go to the next and the previous, Esc clears.
// Matching ignores case, full-width against half-width forms and katakana against
// hiragana (NFKC, then lower case, then katakana as hiragana): ＡＢＣ finds abc, ｶﾞ finds
// ガ, カレー finds かれー; a voiced kana stays voiced (か does not find が). The box is
// hidden in the HTML: without this script there is nothing to find with.
(() => {
  const box = document.querySelector("[data-find]");
  const list = document.querySelector("[data-cues]");
  if (!box || !list) return;
  const field = box.querySelector("[data-find-input]");
  const count = box.querySelector("[data-find-count]");
  const cues = [...list.querySelectorAll(":scope > li[data-start] .cue-text")];
  if (!cues.length) return;
  box.hidden = false;

  // Katakana (ァ..ヶ, ヽ, ヾ) to the hiragana 0x60 below it.
  const KATAKANA = /[\u30a1-\u30f6\u30fd\u30fe]/g;
  const fold = (text) => text.normalize("NFKC").toLowerCase()
    .replace(KATAKANA, (kana) => String.fromCharCode(kana.charCodeAt(0) - 0x60));

  // A character with the marks that follow it (a combining voiced mark, a half-width
  // ﾞ or ﾟ), folded together so ｶﾞ is ガ; each folded unit remembers the characters it
  // came from, so a match in the folded text marks the very characters read.
  const CLUSTER = /[\s\S][\p{M}\uff9e\uff9f]*/gu;
  const folded = (text) => {
    let out = "";
    const from = [];
    const to = [];
    for (const found of text.matchAll(CLUSTER)) {
      const piece = fold(found[0]);
      for (let i = 0; i < piece.length; i += 1) {
        from.push(found.index);
        to.push(found.index + found[0].length);
      }
      out += piece;
    }
    return {text: out, from, to};
  };

  // Each cue as the server wrote it (its <mark>s for the search's words) and as text.
  const original = cues.map((cue) => [...cue.childNodes].map((node) => node.cloneNode(true)));
  const plain = cues.map((cue) => cue.textContent);
  let index = null; // each cue's folded text, made on the first search
  let matches = []; // [{cue, start, end, mark}] in reading order
  let current = -1;
  let shown = new Set(); // cues whose marks are drawn

  const restore = (i) => cues[i].replaceChildren(...original[i].map((node) => node.cloneNode(true)));

  const draw = (i, spans) => {
    const text = plain[i];
    const parts = [];
    let at = 0;
    for (const span of spans) {
      if (span.start > at) parts.push(document.createTextNode(text.slice(at, span.start)));
      const mark = document.createElement("mark");
      mark.className = "find-match";
      mark.textContent = text.slice(span.start, span.end);
      span.mark = mark;
      parts.push(mark);
      at = span.end;
    }
    if (at < text.length) parts.push(document.createTextNode(text.slice(at)));
    cues[i].replaceChildren(...parts);
  };

  const find = (words) => {
    const wanted = fold(words);
    const found = [];
    if (!wanted.trim()) return found;
    index = index || plain.map(folded);
    index.forEach((cue, i) => {
      let end = -1;
      for (let at = cue.text.indexOf(wanted); at !== -1; at = cue.text.indexOf(wanted, at + wanted.length)) {
        const start = cue.from[at];
        if (start < end) continue; // inside the characters of the match before
        end = cue.to[at + wanted.length - 1];
        found.push({cue: i, start, end});
      }
    });
    return found;
  };

  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

  // The current match in sight. A wide screen scrolls the page, the find box staying at
  // the window's top (site.css). On a phone the transcript is its own scroll box under
  // the find box: the match goes to the middle of that box, and the page moves only when
  // the find box or the match is out of the window (to the find box's top when both fit).
  const reveal = (mark) => {
    const behavior = reduced.matches ? "auto" : "smooth";
    if (list.scrollHeight <= list.clientHeight) {
      mark.scrollIntoView({block: "center", inline: "nearest", behavior});
      return;
    }
    const at = mark.getBoundingClientRect();
    const inside = list.getBoundingClientRect();
    const down = at.top - inside.top - (list.clientHeight - at.height) / 2;
    const target = Math.max(0, Math.min(list.scrollTop + down, list.scrollHeight - list.clientHeight));
    list.scrollTo({top: target, behavior});
    const top = box.getBoundingClientRect().top;
    const markTop = at.top - (target - list.scrollTop);
    const markBottom = markTop + at.height;
    let page = 0;
    if (markBottom - top <= innerHeight) {
      if (top < 0 || markBottom > innerHeight) page = top;
    } else {
      page = markTop - (innerHeight - at.height) / 2;
    }
    if (page) window.scrollBy({top: page, behavior});
  };

  const say = () => {
    const words = field.value.trim();
    if (!words) count.textContent = "";
    else if (!matches.length) count.textContent = i18n.t("find_none");
    else count.textContent = i18n.t("find_position", {current: current + 1, total: matches.length});
  };

  const select = (next) => {
    const before = matches[current];
    if (before) before.mark.classList.remove("find-current");
    current = matches.length ? (next + matches.length) % matches.length : -1;
    const now = matches[current];
    if (now) {
      now.mark.classList.add("find-current");
      reveal(now.mark);
    }
    say();
  };

  const search = () => {
    // A longer word goes on from where the reader was, not back to the first cue.
    const from = matches[current] ? matches[current].cue : 0;
    matches = find(field.value);
    const drawn = new Set(matches.map((match) => match.cue));
    shown.forEach((i) => { if (!drawn.has(i)) restore(i); });
    drawn.forEach((i) => draw(i, matches.filter((match) => match.cue === i)));
    shown = drawn;
    current = -1;
    const first = matches.findIndex((match) => match.cue >= from);
    select(first === -1 ? 0 : first);
  };

  const step = (by) => {
    if (!matches.length) return;
    select(current + by);
  };

  // While an input method composes (かな漢字), the search waits for the words chosen.
  field.addEventListener("input", (event) => { if (!event.isComposing) search(); });
  field.addEventListener("compositionend", search);
  field.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.isComposing) {
      // While an IME composes, Enter commits the kana; it does not go to a match.
      event.preventDefault();
      step(event.shiftKey ? -1 : 1);
    } else if (event.key === "Escape" && field.value) {
      event.preventDefault();
      field.value = "";
      search();
    }
  });
  box.querySelector("[data-find-next]").addEventListener("click", () => step(1));
  box.querySelector("[data-find-previous]").addEventListener("click", () => step(-1));
})();
