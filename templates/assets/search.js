// Search in the page's language. site.js loads this script the first time the box gets focus or `/`
// is pressed (site.js keeps that shortcut), and this script then loads the index: a classic script the
// builder writes (assets/search-<lang>.<hash>.js, see builder/search.py). A script of the site's own
// loads over file://, from the unpacked archive, under a sub-path and under the page's
// Content-Security-Policy, where fetching a file would not. Candidates come from the index's CJK
// bigrams and words; each is confirmed by a substring check on the section's text, folded the same
// way on both sides. Results are built from text nodes only. No strings of its own.
(function () {
  "use strict";

  var box = document.querySelector("[data-search]");
  if (!box) return;
  var input = box.querySelector("input");
  var list = box.querySelector('[role="listbox"]');
  var status = box.querySelector('[data-part="search-status"]');
  var MAX_SHOWN = 20;  // the best at first; an option after them says how many there are and shows them all
  var index = null, loading = false, failed = false, found = [], results = [], limit = MAX_SHOWN, active = -1,
      announceTimer = 0;

  // ---- Folding: NFC, then per character NFKC and lower case (as builder/search.py folds) ----------
  var CJK = [[0x3005, 0x3007], [0x3041, 0x3096], [0x309D, 0x309E], [0x30A1, 0x30FA], [0x30FC, 0x30FE],
             [0x3400, 0x4DBF], [0x4E00, 0x9FFF], [0xAC00, 0xD7A3]];
  var WORD = /[\p{L}\p{N}]/u;
  function isCjk(ch) {
    var c = ch.charCodeAt(0);
    for (var i = 0; i < CJK.length; i++) if (c >= CJK[i][0] && c <= CJK[i][1]) return true;
    return false;
  }
  function isWord(ch) { return ch !== "" && !isCjk(ch) && WORD.test(ch); }
  var folds = {};
  function foldChar(ch) {
    var c = ch.charCodeAt(0);
    if (c < 0x80) return c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : ch;
    if (c >= 0x4E00 && c <= 0x9FFF) return ch;  // unified ideographs fold to themselves
    var f = folds[ch];
    if (f === undefined) f = folds[ch] = ch.normalize("NFKC").toLowerCase();
    return f;
  }
  // Fold `text`, keeping for every folded character the position of the character it came from
  // (`from` is null when every character folds to exactly one: then positions are the same).
  function foldMapped(text) {
    var parts = [], from = [], same = true;
    for (var i = 0; i < text.length; i++) {
      var ch = text[i], code = text.charCodeAt(i);
      if (code >= 0xD800 && code <= 0xDBFF && i + 1 < text.length) ch = text.slice(i, i + 2);
      var f = foldChar(ch);
      if (f.length !== ch.length) same = false;
      for (var j = 0; j < f.length; j++) from.push(i);
      parts.push(f);
      i += ch.length - 1;
    }
    from.push(text.length);
    return { text: parts.join(""), from: same ? null : from };
  }
  function fold(text) { return foldMapped(text.normalize("NFC")).text; }

  // ---- The index ------------------------------------------------------------------------------------
  function load() {
    if (index || loading) return;
    loading = true;
    failed = false;
    var script = document.createElement("script");
    script.src = box.getAttribute("data-index");
    script.onload = function () {
      var data = self.lessonSearchIndex;
      if (!data || data.version !== 1) { script.onerror(); return; }
      index = prepare(data);
      loading = false;
      if (input.value.trim()) search();
      foldInIdleTime(0);
    };
    script.onerror = function () {
      loading = false;
      failed = true;
      if (input.value.trim()) say(box.getAttribute("data-label-failed"), true);
    };
    document.head.appendChild(script);
    if (input.value.trim()) say(box.getAttribute("data-label-loading"), false);
  }
  function postings(list) {
    var ids = [], n = 0;
    if (list) list.split(",").forEach(function (gap) { n += parseInt(gap, 36); ids.push(n); });
    return ids;
  }
  function prepare(data) {
    var bigrams = {}, lists = data.bigrams[1].split(";"), k = 0;
    data.bigrams[0].split(" ").forEach(function (group) {
      for (var i = 1; i < group.length; i++) bigrams[group[0] + group[i]] = lists[k++];
    });
    var words = data.words[0] ? data.words[0].split(" ") : [];
    var byPage = data.pages.map(function () { return []; });
    var sections = data.sections.map(function (s, i) {
      byPage[s[0]].push(i);
      return { page: s[0], anchor: s[1], heading: s[2], text: s[3], folded: null };
    });
    return { pages: data.pages, titles: data.pages.map(function (p) { return foldMapped(p[1]); }), byPage: byPage,
             sections: sections, bigrams: bigrams, words: words, wordPostings: data.words[1].split(";") };
  }
  function foldedSection(s) {
    if (!s.folded) {
      var page = index.pages[s.page];
      s.folded = { text: foldMapped(s.text), heading: foldMapped(s.heading), title: index.titles[s.page] };
    }
    return s.folded;
  }

  // Fold every section while the reader is still typing, so that the first query need not.
  function foldInIdleTime(from) {
    var later = self.requestIdleCallback || function (f) { return setTimeout(function () { f({ timeRemaining: function () { return 8; } }); }, 1); };
    later(function (deadline) {
      var i = from;
      while (i < index.sections.length && deadline.timeRemaining() > 1) foldedSection(index.sections[i++]);
      if (i < index.sections.length) foldInIdleTime(i);
    });
  }

  // Sections that may hold `term`: those whose heading and text hold all its bigrams and a word starting
  // with each of its words, and the first section of a page whose title holds it; null when the term
  // has neither bigrams nor words (a single CJK character): then every section may.
  function candidates(term) {
    var lists = [], run = "", word = "";
    function endWord() {
      if (!word) return;
      var ids = [], lo = lowerBound(index.words, word);
      for (var i = lo; i < index.words.length && index.words[i].lastIndexOf(word, 0) === 0; i++) {
        ids = ids.concat(postings(index.wordPostings[i]));
      }
      lists.push(ids);
      word = "";
    }
    for (var i = 0; i <= term.length; i++) {
      var ch = term.charAt(i);
      if (isCjk(ch)) {
        if (run) lists.push(postings(index.bigrams[run.slice(-1) + ch]));
        run += ch;
      } else run = "";
      if (isWord(ch)) word += ch; else endWord();
    }
    if (!lists.length) return null;
    lists.sort(function (a, b) { return a.length - b.length; });
    var others = lists.slice(1).map(function (ids) {
      var has = {};
      ids.forEach(function (id) { has[id] = true; });
      return has;
    });
    var added = {}, out = [];
    function add(id) { if (!added[id]) { added[id] = true; out.push(id); } }
    lists[0].forEach(function (id) {
      for (var k = 0; k < others.length; k++) if (!others[k][id]) return;
      add(id);
    });
    index.titles.forEach(function (title, page) {  // a title stands for its page: its first section
      if (index.byPage[page].length && occurrences(title.text, term).length) add(index.byPage[page][0]);
    });
    return out;
  }
  function lowerBound(sorted, key) {
    var lo = 0, hi = sorted.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (sorted[mid] < key) lo = mid + 1; else hi = mid; }
    return lo;
  }
  // Where `term` occurs in `text`: a term starting with a letter or digit must start a word there.
  function occurrences(text, term) {
    var found = [], at = text.indexOf(term), wordStart = isWord(term.charAt(0));
    while (at >= 0) {
      if (!wordStart || !isWord(text.charAt(at - 1))) found.push(at);
      at = text.indexOf(term, at + 1);
    }
    return found;
  }

  // Scores: each term counts its occurrences in the text (up to 10), and more in the heading or the title;
  // a query that is a section's whole heading, or a lesson's whole title, names it: that comes first.
  var WHOLE_TITLE = 2000, WHOLE_HEADING = 1000;
  function compact(folded) { return folded.replace(/\s+/g, " ").trim(); }
  function query(text) {
    var terms = fold(text).split(/\s+/).filter(function (t) { return /[\p{L}\p{N}]/u.test(t); });
    if (!terms.length) return [];
    var whole = compact(fold(text));
    var pool = null;
    terms.forEach(function (term) {
      var ids = candidates(term);
      if (ids === null) return;
      var keep = {};
      ids.forEach(function (id) { keep[id] = true; });
      pool = pool === null ? ids : pool.filter(function (id) { return keep[id]; });
    });
    if (pool === null) pool = index.sections.map(function (s, i) { return i; });
    var found = [];
    pool.forEach(function (id) {
      var s = index.sections[id], f = foldedSection(s), score = 0, first = index.byPage[s.page][0] === id;
      for (var t = 0; t < terms.length; t++) {
        var inText = occurrences(f.text.text, terms[t]).length, inHeading = occurrences(f.heading.text, terms[t]).length;
        var inTitle = first && occurrences(f.title.text, terms[t]).length;
        if (!inText && !inHeading && !inTitle) return;
        score += Math.min(inText, 10) + (inHeading ? 10 : 0) + (inTitle ? 12 : 0);
      }
      if (first && compact(f.title.text) === whole) score += WHOLE_TITLE;
      else if (compact(f.heading.text) === whole) score += WHOLE_HEADING;
      found.push({ id: id, score: score, terms: terms });
    });
    found.sort(function (a, b) { return b.score - a.score || a.id - b.id; });
    return found;
  }
  // Where the terms occur in a folded text, as [start, end] in the text it was folded from, in order.
  function spans(mapped, terms) {
    var out = [];
    terms.forEach(function (term) {
      occurrences(mapped.text, term).forEach(function (at) {
        var end = at + term.length;
        out.push(mapped.from ? [mapped.from[at], mapped.from[end]] : [at, end]);
      });
    });
    return out.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
  }

  // ---- Showing results ---------------------------------------------------------------------------
  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text) e.appendChild(document.createTextNode(text));
    return e;
  }
  // Text nodes for text[start, end), with each span in `marks` inside a <mark>.
  function marked(parent, text, marks, start, end) {
    var at = start;
    marks.forEach(function (m) {
      if (m[0] < at || m[1] > end) return;  // overlapping an earlier one, or outside
      if (m[0] > at) parent.appendChild(document.createTextNode(text.slice(at, m[0])));
      parent.appendChild(el("mark", "", text.slice(m[0], m[1])));
      at = m[1];
    });
    if (end > at) parent.appendChild(document.createTextNode(text.slice(at, end)));
    return parent;
  }
  // A window of the section's text around its first match.
  function snippet(text, marks) {
    var p = el("span", "search-snippet");
    var first = marks.length ? marks[0][0] : 0;
    var start = Math.max(0, first - 24), end = Math.min(text.length, start + 110);
    while (start > 0 && first - start < 40 && isWord(text.charAt(start - 1)) && isWord(text.charAt(start))) start--;  // whole words
    if (start > 0 && /[\uDC00-\uDFFF]/.test(text.charAt(start))) start--;
    if (start > 0) p.appendChild(document.createTextNode("…"));
    marked(p, text, marks, start, end);
    if (end < text.length) p.appendChild(document.createTextNode("…"));
    return p;
  }
  function show(all) {
    found = all;
    results = found.slice(0, limit);
    active = -1;
    input.removeAttribute("aria-activedescendant");
    var root = box.getAttribute("data-root"), options = document.createDocumentFragment();
    results.forEach(function (r, i) {
      var s = index.sections[r.id], page = index.pages[s.page];
      var option = el("a", "search-result");
      option.id = "search-result-" + i;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.setAttribute("tabindex", "-1");
      option.href = root + page[0] + (s.anchor ? "#" + s.anchor : "");
      var f = foldedSection(s);
      option.appendChild(marked(el("span", "search-title"), page[1], spans(f.title, r.terms), 0, page[1].length));
      if (s.heading) option.appendChild(marked(el("span", "search-heading"), s.heading, spans(f.heading, r.terms), 0, s.heading.length));
      option.appendChild(snippet(s.text, spans(f.text, r.terms)));
      option.addEventListener("mousedown", function (event) { event.preventDefault(); });  // keep focus in the box
      options.appendChild(option);
    });
    if (found.length > results.length) {  // the last option: "Show all 21 results", which shows the rest
      var more = el("div", "search-more", countLabel("more", found.length, results.length));
      more.id = "search-more";
      more.setAttribute("role", "option");
      more.setAttribute("aria-selected", "false");
      more.addEventListener("mousedown", function (event) { event.preventDefault(); });
      more.addEventListener("click", showAll);
      options.appendChild(more);
    }
    while (list.firstChild) list.removeChild(list.firstChild);
    list.appendChild(options);
    var open = input.value.trim() !== "";
    list.hidden = !open || !results.length;
    input.setAttribute("aria-expanded", String(open && results.length > 0));
    announce(found.length, results.length, open);
  }
  function showAll() {
    var next = results.length;
    limit = Infinity;
    show(found);
    move(next);  // on the first result that was not shown before
  }
  // A label of the box's (`kind`: count, shown or more) for `n` results in all, `shown` of them on the list.
  function countLabel(kind, n, shown) {
    var tag = "other";
    try { tag = new Intl.PluralRules(box.getAttribute("data-lang")).select(n); } catch (e) { /* an old browser */ }
    var template = box.getAttribute("data-label-" + kind + "-" + tag) || box.getAttribute("data-label-" + kind + "-other") || "%(n)s";
    return template.replace("%(n)s", String(n)).replace("%(shown)s", String(shown));
  }
  function announce(n, shown, open) {
    clearTimeout(announceTimer);
    if (!open) { say("", false); return; }
    var text = !n ? box.getAttribute("data-label-none") : shown < n ? countLabel("shown", n, shown) : countLabel("count", n, n);
    announceTimer = setTimeout(function () { say(text, !n); }, 400);  // once the reader pauses typing
  }
  function say(text, visible) {
    status.textContent = text;
    status.classList.toggle("visually-hidden", !visible);
    status.classList.toggle("search-message", !!visible);
  }
  function search() {
    if (!index) { load(); return; }
    show(input.value.trim() ? query(input.value) : []);
  }
  function move(to) {
    var options = list.children;  // the results, and the option that shows them all
    if (!options.length) return;
    if (active >= 0) options[active].setAttribute("aria-selected", "false");
    active = (to + options.length) % options.length;
    options[active].setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", options[active].id);
    options[active].scrollIntoView({ block: "nearest" });
  }
  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  input.addEventListener("focus", load);
  input.addEventListener("input", function () { limit = MAX_SHOWN; search(); });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (list.hidden && input.value.trim()) { search(); }
      move(event.key === "ArrowDown" ? active + 1 : active < 0 ? list.children.length - 1 : active - 1);
    } else if (event.key === "Enter") {
      var target = results.length ? list.children[active >= 0 ? active : 0] : null;
      if (target) { event.preventDefault(); target.click(); }
    } else if (event.key === "Escape") {
      if (!list.hidden) { event.preventDefault(); close(); }
      else if (input.value) { event.preventDefault(); input.value = ""; show([]); }
    }
  });
  input.addEventListener("blur", function () { setTimeout(function () { if (document.activeElement !== input) close(); }, 150); });
  // Loaded by site.js on the box's first focus (or `/`, which focuses it): the reader may have typed.
  if (document.activeElement === input || input.value.trim()) load();
})();
