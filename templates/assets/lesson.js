// The lesson's interactive figures. The builder has already made everything they show, for every
// state a reader can reach: #lesson-data holds each figure's views (captions, charts, tables, readouts,
// translated and formatted). This script keeps the state (in the URL), chooses the view for it and
// draws it; charts first as the build-time SVG, then with Plotly once the reader comes near. It has
// no strings of its own and no figure logic: a new figure kind needs nothing here.
(function () {
  "use strict";

  var node = document.getElementById("lesson-data");
  if (!node) return;
  var data = JSON.parse(node.textContent);
  // Views name their captions, charts, tables and readouts by index in data.parts (each stored once), a
  // chart its axes, legend, frame and marks by index in data.pieces (a mark cut from a longer one as
  // [index, points]), and a table its rows by index in data.rows: put them back (a chart shared by
  // views, once).
  function piece(value) { return typeof value === "number" ? data.pieces[value] : value; }
  function cut(whole, n) {  // a mark named [i, n]: the first n points of data.pieces[i]
    var mark = {};
    Object.keys(whole).forEach(function (key) {
      mark[key] = data.point_fields.indexOf(key) >= 0 ? whole[key].slice(0, n) : whole[key];
    });
    return mark;
  }
  function chartPart(i) {
    var chart = data.parts[i];
    chart.key = i;  // one distinct chart, one part: a state change that keeps the key leaves the chart as it was
    ["x", "y", "legend", "frame"].forEach(function (key) { if (key in chart) chart[key] = piece(chart[key]); });
    chart.marks = chart.marks.map(function (m) { return Array.isArray(m) ? cut(data.pieces[m[0]], m[1]) : piece(m); });
    return chart;
  }
  function unpack(half) {  // the page data, or the other scenarios' (their parts, pieces and rows continue the page's)
    var from = half === data ? 0 : data.parts.length;
    if (half !== data) ["parts", "pieces", "rows"].forEach(function (key) { data[key] = data[key].concat(half[key]); });
    data.parts.slice(from).forEach(function (part) {  // a table names its rows by index in data.rows
      if (part && part.rows) part.rows = part.rows.map(function (i) { return data.rows[i]; });
    });
    Object.keys(half.figures).forEach(function (id) {
      var fields = half.figures[id].views, views = half === data ? (data.figures[id].views = {}) : data.figures[id].views;
      fields.keys.forEach(function (key, i) {  // the views come as a list per field
        var view = views[key] = {};
        Object.keys(fields).forEach(function (field) {
          if (field !== "keys" && fields[field][i] !== null) view[field] = fields[field][i];
        });
        Object.keys(view.charts || {}).forEach(function (name) { view.charts[name] = chartPart(view.charts[name]); });
        ["steps", "twins"].forEach(function (field) {
          if (view[field]) view[field] = view[field].map(function (i) { return data.parts[i]; });
        });
        ["grid", "notice", "caption"].forEach(function (field) { if (view[field] !== undefined) view[field] = data.parts[view[field]]; });
      });
    });
  }
  unpack(data);

  // ---- The other scenarios' views, loaded when first needed ------------------------------------
  // The page holds the views it shows before the reader picks another scenario or turns the residual off; the others are in a
  // script of their own (#lesson-data's data-more, named by its content: a classic script setting
  // self.lessonMoreData, since a page read from disk may load a script but not fetch JSON). It is asked
  // for when the browser is idle after the load or the reader comes to a figure, and at once when a
  // state needs it. Until it is in, render() leaves every figure in the state it shows (no figure
  // shows another scenario's controls beside the old one's chart); then it draws the state of that
  // moment, whatever the reader did meanwhile.
  var moreSrc = node.getAttribute("data-more"), more = moreSrc ? null : "in";  // null: not asked for; "loading"; "in"
  var waiting = null;  // null, or whether the render waiting for them announces its state
  function loadMore() {
    if (more) return;
    more = "loading";
    var s = document.createElement("script");
    s.src = moreSrc;
    s.onload = function () {
      var half = window.lessonMoreData;
      window.lessonMoreData = undefined;
      if (!half) { more = null; s.remove(); return; }
      unpack(half);
      more = "in";
      if (waiting !== null) { var announce = waiting; waiting = null; render(announce); }
      shown.splice(0).forEach(function (work) { later(work); });  // after the redraws render() asked for
    };
    s.onerror = function () { more = null; s.remove(); };  // the figures keep their state; the next change retries
    document.head.appendChild(s);
  }
  // What waits for every state's views (data-ready: the figures answer any state at once, drawn by Plotly).
  var shown = [];
  function whenShown(work) { if (more === "in") work(); else { shown.push(work); loadMore(); } }
  function shows() {  // whether every figure has its view of the state (else it waits for the other scenarios)
    return more === "in" || figures.every(function (f) { return viewOf(f); });
  }
  if (moreSrc) {
    window.addEventListener("load", function () {
      if (window.requestIdleCallback) requestIdleCallback(loadMore, { timeout: 2000 }); else setTimeout(loadMore, 200);
    });
    ["pointerover", "focusin", "touchstart"].forEach(function (type) {
      document.addEventListener(type, function (event) {
        if (event.target.closest && event.target.closest("[data-figure]")) loadMore();
      }, { passive: true });
    });
  }
  // ---- (end of the other scenarios' views) -----------------------------------------------------

  var L = data.labels;
  var script = document.currentScript;
  var assets = (script && script.src || "").replace(/[^/]*$/, "");
  var figures = Object.keys(data.figures).map(function (id) {
    var spec = data.figures[id];
    // the state keys a link can set in this figure: its own state, and the walkthrough's step if it shows it
    return { id: id, spec: spec, root: document.getElementById(id), keys: spec.state.concat(spec.walkthrough ? ["step"] : []) };
  }).filter(function (f) { return f.root; });
  var stepItems = Array.prototype.slice.call(document.querySelectorAll("#walkthrough-steps > ol > li"));

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (m, key) { return key in values ? values[key] : m; });
  }
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  // A caption the state changes keeps its hyphenated words whole, as the build writes them (builder/word_glue.py).
  function setWords(node, text) {
    var words = /[0-9A-Za-z\u00C0-\u024F]+(?:-[0-9A-Za-z\u00C0-\u024F]+)+/g, at = 0, m;
    node.textContent = "";
    while ((m = words.exec(text))) {
      node.appendChild(document.createTextNode(text.slice(at, m.index)));
      node.appendChild(el("span", { "class": "word" }, [m[0]]));
      at = m.index + m[0].length;
    }
    node.appendChild(document.createTextNode(text.slice(at)));
  }
  function parts(root, name) { return Array.prototype.slice.call(root.querySelectorAll('[data-part="' + name + '"]')); }
  function controls(name) { return Array.prototype.slice.call(document.querySelectorAll('[data-control="' + name + '"]')); }

  // ---- State and the URL ------------------------------------------------------------------
  // The state is in the fragment (#scenario=…&residual=on&depth=3&step=2&block=1). A plain #section
  // link leaves it alone; a page opened from the language switcher may carry it in the query instead
  // (?scenario=…#section), so the section and the figure state both survive the switch.
  var defaults = data.defaults;
  var state = read() || copy(defaults);

  function copy(s) { return { scenario: s.scenario, residual: s.residual, depth: s.depth, block: s.block, step: s.step }; }
  function parse(text) {
    if (text.indexOf("=") < 0) return null;
    var s = copy(defaults);
    text.split("&").forEach(function (pair) {
      var kv = pair.split("="), v = decodeURIComponent(kv[1] || "");
      if (kv[0] === "scenario" && data.scenarios.indexOf(v) >= 0) s.scenario = v;
      if (kv[0] === "residual" && (v === "on" || v === "off")) s.residual = v === "on";
      if ((kv[0] === "depth" || kv[0] === "block") && /^[1-6]$/.test(v)) s[kv[0]] = +v;
      if (kv[0] === "step" && /^\d+$/.test(v) && data.steps.length) s.step = Math.max(1, Math.min(+v, data.steps.length));
    });
    return s;
  }
  function read() { return parse(location.hash.replace(/^#/, "")) || parse(location.search.replace(/^\?/, "")); }
  function encode(s) {
    var out = [];
    if (data.scenarios.length > 1) out.push("scenario=" + encodeURIComponent(s.scenario));
    out.push("residual=" + (s.residual ? "on" : "off"), "depth=" + s.depth);
    if (uses("block")) out.push("block=" + s.block);
    if (data.steps.length) out.push("step=" + s.step);
    return out.join("&");
  }
  function uses(key) { return figures.some(function (f) { return f.spec.state.indexOf(key) >= 0; }); }

  // History: a control changes the state of the entry the reader is on (replaceState), so Back leaves
  // the page after a session of clicking; only a link that sets a state adds an entry (pushState), and
  // Back returns to the state and the place it was followed from.
  function commit(next) {
    state = next;
    history.replaceState({ lessonState: state }, "", "#" + encode(state));
    render(true);
    wake();
  }
  window.addEventListener("popstate", function (event) {
    var s = event.state && event.state.lessonState ? event.state.lessonState : parse(location.hash.replace(/^#/, ""));
    if (s) { state = copy(s); render(true); }
    // a plain #section keeps the figures as they are
  });
  window.addEventListener("hashchange", function () {
    var s = parse(location.hash.replace(/^#/, ""));  // a state typed into the address bar
    if (s && encode(s) !== encode(state)) { state = s; history.replaceState({ lessonState: state }, ""); render(true); wake(); }
  });
  // A link that sets a state (a prediction's answer: #residual=off&depth=6) shows it in the figure it
  // is about: the one it names (#figure=depth-map&…), else the one whose state it sets most of.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest('a[href^="#"]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var text = link.getAttribute("href").slice(1), next = parse(text);
    if (!next) return;
    event.preventDefault();
    var before = state;
    state = next;
    history.pushState({ lessonState: state }, "", "#" + encode(state));
    render(true);
    wake();
    show(target(text), before);
  });
  function target(text) {
    var named = /(?:^|&)figure=([\w-]+)/.exec(text), keys = text.split("&").map(function (p) { return p.split("=")[0]; });
    if (named) return figures.filter(function (f) { return f.id === named[1]; })[0] || null;
    var best = null, score = -1;
    figures.forEach(function (f) {
      var n = keys.filter(function (k) { return f.keys.indexOf(k) >= 0; }).length;
      if (n > score) { best = f; score = n; }
    });
    return best;
  }
  // Bring the figure into view and give it the focus (the reader's next Tab is in it). A figure taller than
  // the window shows from the first control the link changed (the title, the caption and the controls it
  // left alone above), so the link's answer, in the charts below, has as much room as it can.
  function show(f, before) {
    if (!f) return;
    var at = f.root;
    if (f.root.getBoundingClientRect().height > window.innerHeight) {
      var changed = Object.keys(state).filter(function (k) { return state[k] !== before[k]; });
      at = Array.prototype.filter.call(f.root.querySelectorAll(".controls [data-control]"), function (c) {
        return changed.indexOf(c.getAttribute("data-control")) >= 0;
      }).map(function (c) { return c.closest("fieldset") || c; })[0] || f.root;  // a sentence's radio: its picker
    }
    at.scrollIntoView({ block: "start" });
    f.root.focus({ preventScroll: true });
  }
  function announceState() {
    // site.js carries the state over the language switcher (nothing, while it is the default)
    document.dispatchEvent(new CustomEvent("lesson:state", { detail: encode(state) === encode(defaults) ? "" : encode(state) }));
  }

  // ---- Controls -----------------------------------------------------------------------------
  function with_(changes) { var s = copy(state); Object.keys(changes).forEach(function (k) { s[k] = changes[k]; }); return s; }
  controls("residual").forEach(function (b) {
    b.addEventListener("click", function () { commit(with_({ residual: !state.residual })); });
  });
  ["depth", "block"].forEach(function (name) {
    controls(name).forEach(function (input) {
      input.addEventListener("input", function () { var c = {}; c[name] = +input.value; commit(with_(c)); });
    });
  });
  controls("scenario").forEach(function (radio) {
    radio.addEventListener("change", function () { if (radio.checked) commit(with_({ scenario: radio.value })); });
  });
  function goStep(n, button) {
    var changes = { step: n }, block = data.steps[n - 1] && data.steps[n - 1].block;
    if (block) changes.block = block;  // the attention view follows the walkthrough's block
    commit(with_(changes));
    keepInView(button.closest("[data-figure]"));
  }
  // On a phone the chart and the step buttons do not fit on one screen: after a step, the chart whose
  // outline moved is scrolled back into view if any of it is off screen (the buttons sit right under it).
  function keepInView(root) {
    var box = root && root.querySelector('[data-chart] [data-part="chart"]');
    if (!box) return;
    var r = box.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: r.top < 0 ? "start" : "end" });
  }
  controls("step-prev").forEach(function (b) { b.addEventListener("click", function () { if (state.step > 1) goStep(state.step - 1, b); }); });
  controls("step-next").forEach(function (b) {
    b.addEventListener("click", function () { if (state.step < data.steps.length) goStep(state.step + 1, b); });
  });
  controls("twin").forEach(function (b) {
    b.addEventListener("click", function () {
      var box = b.parentNode, open = !box.classList.contains("open");
      box.classList.toggle("open", open);
      b.setAttribute("aria-expanded", String(open));
      b.textContent = open ? L.hide_table : L.show_table;
    });
  });

  // ---- Drawing a view ------------------------------------------------------------------------
  function viewOf(f) {
    var key = f.spec.state.map(function (k) { return k === "residual" ? (state.residual ? "on" : "off") : String(state[k]); });
    return f.spec.views[key.join("|")];
  }
  function table(caption, columns, rows, captionId) {
    return el("table", {}, [el("caption", captionId ? { id: captionId } : {}, [caption]),
      el("thead", {}, [el("tr", {}, columns.map(function (c) { return el("th", { scope: "col" }, [c]); }))]),
      el("tbody", {}, rows.map(function (r) {
        return el("tr", {}, [el("th", { scope: "row" }, [r[0]])].concat(r.slice(1).map(function (c) { return el("td", {}, [c]); })));
      }))]);
  }
  function twins(box, view, figureId) {  // the text twin: one or more tables, each scrolling on its own if it must
    replace(box, view.twins.map(function (t, i) {
      var id = figureId + "-twin-" + (i + 1) + "-caption";
      return el("div", { "class": "table-scroll twin-table", tabindex: "0", role: "region", "aria-labelledby": id },
                [table(t.caption, t.columns, t.rows, id)]);
    }));
  }
  function grid(g, figureId) {
    var head = el("tr", {}, [el("th", { scope: "col", "class": "corner" }, g.corner.map(function (c) { return el("span", {}, [c]); }))].concat(
      g.tokens.map(function (t) { return el("th", { scope: "col", lang: "en" }, [t]); })));
    var rows = g.cells.map(function (row, i) {
      return el("tr", i === g.tracked ? { "class": "tracked" } : {}, [el("th", { scope: "row", lang: "en" }, [g.tokens[i]])].concat(
        row.map(function (cell, j) {
          var td = el("td", j === g.top[i] ? { "class": "top" } : {}, [cell[0]]);
          td.style.setProperty("--w", cell[1]);
          return td;
        })));
    });
    return el("table", {}, [el("caption", { id: figureId + "-grid-caption" }, [g.caption]), el("thead", {}, [head]), el("tbody", {}, rows)]);
  }
  function readout(r) {
    var out = r.notes.map(function (n) { return el("p", { "class": "note" }, [n]); });
    // A table too wide for a phone would scroll sideways in a box of its own, which the keyboard can reach.
    out.push(el("div", { "class": "table-scroll", tabindex: "0" }, [table("", [r.corner].concat(r.columns), r.rows)]));
    if (r.attention) {
      out.push(el("div", { "class": "table-scroll", tabindex: "0" }, [el("table", { "class": "attention-weights" }, [
        el("caption", {}, [r.attention.caption]),
        el("thead", {}, [el("tr", {}, r.attention.tokens.map(function (t) { return el("th", { scope: "col", lang: "en" }, [t]); }))]),
        el("tbody", {}, [el("tr", {}, r.attention.weights.map(function (w) { return el("td", {}, [w]); }))])])]));
    }
    return out;
  }
  function replace(target, children) { target.replaceChildren.apply(target, children); }
  function swatch(item) {  // a legend entry's swatch, drawn like its mark (as builder/figures/_charts.html)
    var css = "swatch swatch-" + item.swatch + (item.pattern ? " swatch-" + item.pattern : "") + (item.symbol ? " swatch-" + item.symbol : "") +
              (item.dash ? " swatch-dash" : "");
    var s = el("span", { "class": css });
    s.style.setProperty("--c", "var(--mark-" + item["class"] + ")");
    if (item.dash) { s.style.setProperty("--dash", item.dash[0] + "px"); s.style.setProperty("--gap", item.dash[1] + "px"); }
    return s;
  }

  function render(announce) {
    // Everything a reader sees of the state changes in this one task: the chart (as SVG, Plotly redraws
    // it when idle), its captions, and the tables and readouts too. A table left for later would show
    // the previous state beside the new caption for a frame or more (longer on a slow phone).
    if (!shows()) { waiting = !!(waiting || announce); loadMore(); return; }  // the other scenarios' views: above
    draw();
    figures.forEach(function (f) {
      var view = viewOf(f), root = f.root;
      if (!view) return;
      parts(root, "caption").forEach(function (p) { if (p.textContent !== view.caption) setWords(p, view.caption); });
      // a chart only some states have (a close-up) shows in those
      Array.prototype.forEach.call(root.querySelectorAll("[data-chart]"), function (box) {
        box.hidden = !(view.charts && view.charts[box.getAttribute("data-chart")]);
      });
      Object.keys(view.charts || {}).forEach(function (name) {
        var box = root.querySelector('[data-chart="' + name + '"]'), chart = view.charts[name];
        if (!box) return;
        var drawing = box.querySelector('[data-part="chart"]'), named = chart.label || view.summary;
        if (drawing.getAttribute("aria-label") !== named) drawing.setAttribute("aria-label", named);
        if (box.getAttribute("data-key") === String(chart.key)) return;
        box.setAttribute("data-key", chart.key);
        var title = box.querySelector(".chart-title");
        if (title && chart.title && title.textContent !== chart.title) title.textContent = chart.title;
        replace(box.querySelector('[data-part="legend"]'), chart.legend.map(function (item) {
          return el("li", {}, [swatch(item), item.text]);
        }));
      });
      parts(root, "summary").forEach(function (p) { p.textContent = view.summary; });
      if (announce) parts(root, "status").forEach(function (p) {
        p.textContent = view.steps.length ? fill(L.with_step, { summary: view.summary, step: fill(L.step_of, { n: state.step, total: data.steps.length }) })
                                      : view.summary;
      });
    });
    controls("residual").forEach(function (b) {
      b.setAttribute("aria-pressed", String(state.residual));
      b.querySelector('[data-part="residual"]').textContent = state.residual ? L.on : L.off;
    });
    ["depth", "block"].forEach(function (name) {
      controls(name).forEach(function (input) { if (+input.value !== state[name]) input.value = state[name]; });
      figures.forEach(function (f) { parts(f.root, name).forEach(function (o) { o.textContent = state[name]; }); });
    });
    controls("scenario").forEach(function (radio) { radio.checked = radio.value === state.scenario; });
    figures.forEach(function (f) { parts(f.root, "walkthrough").forEach(function (w) { stepControls(w); }); });
    renderTables();
    announceState();
  }

  function renderTables() {
    figures.forEach(function (f) {
      var view = viewOf(f), root = f.root;
      if (!view) return;
      parts(root, "twins").forEach(function (p) { if (changed(p, view.twins)) twins(p, view, f.id); });
      parts(root, "grid").forEach(function (p) { if (changed(p, [view.grid])) replace(p, [grid(view.grid, f.id)]); });
      parts(root, "walkthrough").forEach(function (w) {
        // The notice says the step's text is about another state, on the steps whose numbers differ from
        // that state's (the input is the same in every sentence and with the residual on or off: no notice).
        var notice = w.querySelector('[data-part="walk-notice"]');
        var about = view.notice && view.notice.steps.indexOf(state.step) >= 0 ? view.notice : null;
        if (notice && changed(notice, [about])) walkNotice(w, notice, about);
        if (changed(w, [state.step, view.steps[state.step - 1]])) walkthrough(w, view);
      });
      root.setAttribute("data-state", encode(state));  // what the figure shows now (its text, tables, SVG charts)
    });
  }
  // Whether a part is to show other tables than it does (views share theirs: one object per distinct table).
  function changed(part, shows) {
    var same = part.shows && part.shows.length === shows.length && shows.every(function (x, i) { return x === part.shows[i]; });
    part.shows = shows;
    return !same;
  }

  var queue = [], scheduled = null;
  function later(work, key) {  // run when the browser has painted and is idle; a newer job for `key` replaces an older
    key = key || work;
    queue = queue.filter(function (job) { return job.key !== key; });
    queue.push({ key: key, work: work });
    if (scheduled) return;
    var run = function () { scheduled = null; var jobs = queue; queue = []; jobs.forEach(function (job) { job.work(); }); };
    scheduled = window.requestIdleCallback ? requestIdleCallback(run, { timeout: 200 }) : setTimeout(run, 0);
  }

  function stepControls(w) {
    var n = state.step, total = data.steps.length, focused = document.activeElement;
    w.querySelector('[data-part="step-counter"]').textContent = fill(L.step_of, { n: n, total: total });
    var prev = w.querySelector('[data-control="step-prev"]'), next = w.querySelector('[data-control="step-next"]');
    prev.disabled = n <= 1;
    next.disabled = n >= total;
    // A button that becomes disabled while focused would drop focus to <body>: hand it to the other one.
    if (focused === next && next.disabled) prev.focus();
    if (focused === prev && prev.disabled) next.focus();
  }

  // The steps' text is about the lesson's own state: another state says so above it, with a button back.
  function walkNotice(w, notice, about) {
    var text = w.querySelector('[data-part="walk-text"]');
    replace(notice, about ? [el("p", { "class": "notice walk-notice" }, [about.text + " ",
      (function () {
        var back = el("button", { type: "button", "class": "walk-back" }, [about.button]);
        back.addEventListener("click", function () { commit(with_(about.state)); text.focus(); });
        return back;
      })()])] : []);
  }

  function walkthrough(w, view) {
    var n = state.step, item = stepItems[n - 1], text = w.querySelector('[data-part="walk-text"]');
    replace(text, item ? Array.prototype.map.call(item.childNodes, function (c) { return c.cloneNode(true); }) : []);
    stepItems.forEach(function (li, i) { li.classList.toggle("current", i === n - 1); });
    replace(w.querySelector('[data-part="walk-readout"]'), view.steps[n - 1] ? readout(view.steps[n - 1]) : []);
  }

  // ---- Charts as SVG, until Plotly has loaded ------------------------------------------------------
  // The same drawing as builder/figures/chart.py makes at build time, from the same description, so a
  // state the reader picks before Plotly is ready shows at once (tests/test_browser.py compares the two).
  var SVG = "http://www.w3.org/2000/svg", G = data.chart_geometry;
  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function f1(v) { return v.toFixed(1).replace(/0+$/, "").replace(/\.$/, ""); }
  function frameOf(chart, size) { return (chart.frame || data.chart_sizes[chart.size || "main"])[size]; }
  function hatch(x, y, w, h) {  // as chart.py's hatch_path: the lines x + y = c, G.hatch apart, clipped to the box
    var step = G.hatch * Math.SQRT2, d = "";
    for (var c = x + y + step / 2; c < x + w + y + h; c += step) {
      d += "M" + f1(Math.max(x, c - (y + h))) + " " + f1(Math.min(y + h, c - x)) + "L" + f1(Math.min(x + w, c - y)) + " " + f1(Math.max(y, c - (x + w)));
    }
    return d;
  }
  function symbol(kind, px, py) {
    var r = G.radius, a = G.ring[0], b = G.ring[1];
    if (kind === "ring") {  // as chart.py's _symbol: the outer circle one way round, the inner the other
      return "M" + f1(px - b) + " " + f1(py) + "a" + f1(b) + " " + f1(b) + " 0 1 0 " + f1(2 * b) + " 0a" + f1(b) + " " + f1(b) + " 0 1 0 " + f1(-2 * b) + " 0Z" +
             "M" + f1(px - a) + " " + f1(py) + "a" + f1(a) + " " + f1(a) + " 0 1 1 " + f1(2 * a) + " 0a" + f1(a) + " " + f1(a) + " 0 1 1 " + f1(-2 * a) + " 0Z";
    }
    if (kind === "diamond") return "M" + f1(px) + " " + f1(py - r) + "L" + f1(px + r) + " " + f1(py) + "L" + f1(px) + " " + f1(py + r) + "L" + f1(px - r) + " " + f1(py) + "Z";
    if (kind === "square") return "M" + f1(px - 4.5) + " " + f1(py - 4.5) + "h9v9h-9Z";
    return "M" + f1(px - r) + " " + f1(py) + "a" + f1(r) + " " + f1(r) + " 0 1 0 " + f1(2 * r) + " 0a" + f1(r) + " " + f1(r) + " 0 1 0 " + f1(-2 * r) + " 0Z";
  }
  function anchor(px, py, position, gap) {  // as chart.py's _text_anchor
    var g = gap || G.gap, c = g + G.centre - G.gap;
    if (position === "above") return [px, py - c, "middle"];
    if (position === "below") return [px, py + c, "middle"];
    if (position === "right") return [px + g, py, "start"];
    return [px - g, py, "end"];
  }
  function svgChart(chart, size, highlight) {
    var dims = frameOf(chart, size), width = dims[0], height = dims[1], m = dims[2];
    var left = m.l, right = width - m.r, top = m.t, bottom = height - m.b;
    var xr = chart.x.range, yr = chart.y.range;
    // Positions on whole units, as chart.py's render_svg (the same drawing, fewer bytes)
    function sx(x) { return Math.round(left + (x - xr[0]) / (xr[1] - xr[0]) * (right - left)); }
    function sy(y) { return Math.round(bottom - (y - yr[0]) / (yr[1] - yr[0]) * (bottom - top)); }
    var root = svgEl("svg", { "class": "chart-svg chart-svg-" + size, viewBox: "0 0 " + width + " " + height,
                              "aria-hidden": "true", focusable: "false" });
    var axes = root.appendChild(svgEl("g", { "class": "axes" }));
    chart.y.ticks.forEach(function (t) {
      var y = f1(sy(t[0]));
      axes.appendChild(svgEl("line", { "class": "grid", x1: left, x2: right, y1: y, y2: y }));
      axes.appendChild(svgEl("text", { "class": "tick tick-y", x: left - 6, y: y }, t[1]));
    });
    chart.x.ticks.forEach(function (t) {
      axes.appendChild(svgEl("text", { "class": "tick", x: f1(sx(t[0])), y: bottom + 16 }, size === "narrow" ? t[2] : t[1]));
    });
    axes.appendChild(svgEl("line", { "class": "axis", x1: left, x2: right, y1: bottom, y2: bottom }));
    axes.appendChild(svgEl("text", { "class": "axis-title", x: f1((left + right) / 2), y: height - 6 }, chart.x.title));
    axes.appendChild(svgEl("text", { "class": "axis-title axis-title-y", x: G.axis_title[0], y: G.axis_title[1] }, chart.y.title));
    chart.marks.forEach(function (mark) {
      var attrs = { "class": "mark mark-" + mark.type + " " + mark["class"], "data-mark": mark["class"] };
      if (mark.type !== "text") attrs.style = "--c: var(--mark-" + mark["class"].split(" ")[0] + ")";
      var g = root.appendChild(svgEl("g", attrs));
      var hover = size === "wide" && mark.hover || [];  // as the build: no hover titles on a phone's drawing
      function titled(e, i) { if (i < hover.length) e.appendChild(svgEl("title", {}, hover[i])); return e; }
      function valued(attrs, values) {  // as the build: the drawn values (data-x, …) in the wide drawing only
        if (size === "wide") Object.keys(values).forEach(function (k) { attrs[k] = values[k]; });
        return attrs;
      }
      if (mark.type === "band") {
        var a = mark.x[0], b = mark.x[1], h = mark.y[0];
        g.appendChild(svgEl("rect", valued({ "class": "fill", x: f1(sx(a)), y: f1(sy(h)), width: f1(sx(b) - sx(a)), height: f1(sy(0) - sy(h)) }, { "data-y": h })));
        g.appendChild(svgEl("line", { "class": "edge", x1: f1(sx(a)), x2: f1(sx(b)), y1: f1(sy(h)), y2: f1(sy(h)) }));
      } else if (mark.type === "bar") {
        var half = mark.width / 2;
        mark.x.forEach(function (x, i) {
          var base = mark.base ? mark.base[i] : 0, y = mark.y[i], t = sy(base + y), low = sy(base);
          var x0 = sx(x - half), w = sx(x + half) - sx(x - half), hh = Math.max(low - t, 0.5);
          g.appendChild(titled(svgEl("rect", valued({ x: f1(x0), y: f1(t), width: f1(w), height: f1(hh) }, { "data-x": x, "data-y": y, "data-base": base })), i));
          if (mark.pattern === "hatch") g.appendChild(svgEl("path", { "class": "hatch", d: hatch(x0, t, w, hh) }));
        });
      } else if (mark.type === "points" || mark.type === "line") {
        var pts = mark.x.map(function (x, i) { return [sx(x), sy(mark.y[i])]; });
        if (mark.type === "line" && pts.length > 1) {
          var line = { "class": "stroke", points: pts.map(function (p) { return f1(p[0]) + "," + f1(p[1]); }).join(" ") };
          if (mark.dash) line["stroke-dasharray"] = mark.dash[0] + " " + mark.dash[1];
          g.appendChild(svgEl("polyline", line));
        }
        pts.forEach(function (p, i) {
          g.appendChild(titled(svgEl("path", valued({ "class": mark.symbol === "ring" ? "point ring" : "point", d: symbol(mark.symbol, p[0], p[1]) },
                                                      { "data-x": mark.x[i], "data-y": mark.y[i] })), i));
        });
      } else if (mark.type === "outline") {
        var corners = [[mark.x[0], mark.y[0]], [mark.x[1], mark.y[0]], [mark.x[1], mark.y[1]], [mark.x[0], mark.y[1]], [mark.x[0], mark.y[0]]];
        var edge = { "class": "stroke", points: corners.map(function (p) { return f1(sx(p[0])) + "," + f1(sy(p[1])); }).join(" ") };
        if (mark.dash) edge["stroke-dasharray"] = mark.dash[0] + " " + mark.dash[1];
        g.appendChild(svgEl("polyline", edge));
      } else if (mark.type === "text") {
        mark.x.forEach(function (x, i) {
          var at = anchor(sx(x), sy(mark.y[i]), mark.position[i], mark.gap);
          g.appendChild(svgEl("text", valued({ "class": "value", x: f1(at[0]), y: f1(at[1]), "text-anchor": at[2] },
                                             { "data-x": x, "data-y": mark.y[i], "data-position": mark.position[i] }), mark.text[i]));
        });
      }
    });
    if (highlight && highlight.length === 3) {  // a point no mark draws (after a block's attention): a dot, as chart.py
      if (highlight[2] === "ringed") root.appendChild(svgEl("circle", { "class": "highlight-ring needs-js", cx: f1(sx(highlight[0])),
                                                                         cy: f1(sy(highlight[1])), r: G.halfway_ring }));
      root.appendChild(svgEl("circle", { "class": "highlight-point needs-js", cx: f1(sx(highlight[0])), cy: f1(sy(highlight[1])), r: G.halfway }));
    } else if (highlight && highlight.length === 2) {  // one point: a square G.outline across, whatever the scale
      var half = G.outline / 2;
      root.appendChild(svgEl("rect", { "class": "highlight needs-js", x: f1(sx(highlight[0]) - half), y: f1(sy(highlight[1]) - half),
                                       width: G.outline, height: G.outline }));
    } else if (highlight) {
      var hx = highlight[0], hw = highlight[1];
      root.appendChild(svgEl("rect", { "class": "highlight needs-js", x: f1(sx(hx - hw / 2)), y: f1(sy(highlight[3])),
                                       width: f1(sx(hx + hw / 2) - sx(hx - hw / 2)), height: f1(sy(highlight[2]) - sy(highlight[3])) }));
    }
    return root;
  }
  function drawSvg(box, chart) {  // before Plotly: replace the box's two drawings with this state's
    var h = chart.highlights && chart.highlights[state.step - 1];
    box.querySelectorAll(".chart-svg").forEach(function (old) { old.remove(); });
    box.insertBefore(svgChart(chart, "narrow", h), box.firstChild);
    box.insertBefore(svgChart(chart, "wide", h), box.firstChild);
  }

  // ---- Charts with Plotly --------------------------------------------------------------------
  // Plotly (the basic bundle) loads only when a figure comes near or the reader interacts: until
  // then the build-time SVG is the chart. It then draws the same description into the same box.
  var plotly = null;  // null: not asked for; "loading"; or the library
  function wake() {
    if (plotly) return;
    plotly = "loading";
    var s = document.createElement("script");
    s.src = assets + "vendor/plotly-basic.min.js";
    s.onload = function () {
      plotly = window.Plotly;
      draw();
      later(function () { whenShown(function () { figures.forEach(function (f) { f.root.setAttribute("data-ready", "true"); }); }); }, "ready");
    };
    s.onerror = function () { plotly = null; s.remove(); };  // the build-time chart stays; a later interaction retries
    document.head.appendChild(s);
  }
  if ("IntersectionObserver" in window) {
    var watcher = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { watcher.disconnect(); wake(); }
    }, { rootMargin: "300px 0px" });
    figures.forEach(function (f) { if (f.root.querySelector("[data-chart]")) watcher.observe(f.root); });
  }
  figures.forEach(function (f) {
    f.root.addEventListener("pointerenter", wake);
    f.root.addEventListener("focusin", wake);
  });

  var theme = null;
  function colour(name) {
    if (!theme) {
      var css = getComputedStyle(document.documentElement);
      theme = { get: function (n) { return css.getPropertyValue("--" + n).trim(); }, font: getComputedStyle(document.body).fontFamily,
                stamp: Math.random() };  // a new theme (dark mode switched) redraws every chart
    }
    return theme.get(name);
  }
  function esc(text) { return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function hover(lines) { return esc(lines).replace(/\n/g, "<br>"); }

  // The chart as Plotly traces, each mark one trace in its own colour (--mark-<class>): bars with the
  // same hatching as the SVG (stripes of the background, G.hatch apart), lines with the same dashes.
  function traces(chart, step) {
    var out = [], fg = colour("fg"), bg = colour("bg");
    chart.marks.forEach(function (m) {
      var c = colour("mark-" + m["class"].split(" ")[0]), meta = m["class"];
      if (m.type === "band") {
        out.push({ type: "scatter", mode: "lines", x: m.x, y: [m.y[0], m.y[0]], fill: "tozeroy", fillcolor: c + "55",
                   line: { color: c, width: 2 }, hoverinfo: "text", text: [hover(m.hover[0]), hover(m.hover[0])], meta: meta });
      } else if (m.type === "bar") {
        var marker = { color: c, line: { color: fg, width: 1 } };
        if (m.pattern === "hatch") {
          // Plotly draws "/" every `size` px (measured across the stripes), `solidity` × size × √2 wide
          marker.pattern = { shape: "/", fillmode: "overlay", fgcolor: bg, fgopacity: 1, size: G.hatch, solidity: 1.5 / (G.hatch * Math.SQRT2) };
        }
        out.push({ type: "bar", x: m.x, y: m.y, base: m.base || null, width: m.x.map(function () { return m.width; }), meta: meta,
                   marker: marker, hoverinfo: "text", hovertext: m.hover.map(hover) });
      } else if (m.type === "points" || m.type === "line") {
        var ring = m.symbol === "ring";  // Plotly's open circle: its stroke is the ring, from G.ring[0] to G.ring[1]
        out.push({ type: "scatter", mode: m.type === "line" ? "lines+markers" : "markers", x: m.x, y: m.y, meta: meta,
                   line: { color: c, width: 3, dash: m.dash ? m.dash[0] + "px," + m.dash[1] + "px" : "solid" },
                   marker: ring ? { symbol: "circle-open", size: G.ring[0] + G.ring[1], color: c, line: { color: c, width: G.ring[1] - G.ring[0] } }
                                : { symbol: m.symbol, size: 2 * G.radius, color: c, line: { color: bg, width: 1.5 } },
                   hoverinfo: "text", hovertext: (m.hover || []).map(hover) });
      } else if (m.type === "outline") {
        var xs = m.x, ys = m.y;
        out.push({ type: "scatter", mode: "lines", x: [xs[0], xs[1], xs[1], xs[0], xs[0]], y: [ys[0], ys[0], ys[1], ys[1], ys[0]], meta: meta,
                   line: { color: c, width: 2, dash: m.dash ? m.dash[0] + "px," + m.dash[1] + "px" : "solid" }, hoverinfo: "skip" });
      }
    });
    // The walkthrough's outline: a closed line, drawn last on the lines' layer, so it is on top of every
    // mark (as in the SVG; a bar would sit under the points it outlines).
    var h = chart.highlights && chart.highlights[step - 1];
    if (h && h.length === 3 && h[2] === "ringed") {  // that dot far from every path: a ring around it too (one trace, two markers; sizes in an array would make Plotly draw them 70 % opaque)
      out.push({ type: "scatter", mode: "markers", x: [h[0], h[0]], y: [h[1], h[1]], meta: "highlight", hoverinfo: "skip",
                 marker: { symbol: ["circle-open", "circle"], size: [2 * G.halfway_ring, 2 * G.halfway], color: colour("highlight"), opacity: 1,
                           line: { color: [colour("highlight"), bg], width: [2.5, 1.5] } } });
    } else if (h && h.length === 3) {  // a point no mark draws (after a block's attention): a dot in the outline's colour
      out.push({ type: "scatter", mode: "markers", x: [h[0]], y: [h[1]], meta: "highlight", hoverinfo: "skip",
                 marker: { symbol: "circle", size: 2 * G.halfway, color: colour("highlight"), line: { color: bg, width: 1.5 } } });
    } else if (h && h.length === 2) {  // one point: an open square marker G.outline across (Plotly's sizes are pixels)
      out.push({ type: "scatter", mode: "markers", x: [h[0]], y: [h[1]], meta: "highlight", hoverinfo: "skip",
                 marker: { symbol: "square-open", size: G.outline, color: colour("highlight"), line: { color: colour("highlight"), width: 3 } } });
    } else if (h) {
      var x0 = h[0] - h[1] / 2, x1 = h[0] + h[1] / 2;
      out.push({ type: "scatter", mode: "lines", x: [x0, x1, x1, x0, x0], y: [h[2], h[2], h[3], h[3], h[2]], meta: "highlight",
                 hoverinfo: "skip", line: { color: colour("highlight"), width: 3 } });
    }
    return out;
  }
  // Value labels as annotations: placed like the SVG's, the same distance from their point.
  function labels(chart, fg) {
    var out = [];
    chart.marks.forEach(function (m) {
      if (m.type !== "text") return;
      var gap = m.gap || G.gap, centre = gap + G.centre - G.gap;
      m.x.forEach(function (x, i) {
        var p = m.position[i], side = p === "left" || p === "right";
        out.push({ x: x, y: m.y[i], text: esc(m.text[i]), showarrow: false, font: { color: fg },
                   xanchor: p === "right" ? "left" : p === "left" ? "right" : "center", yanchor: "middle",
                   xshift: side ? (p === "right" ? gap : -gap) : 0, yshift: side ? 0 : (p === "above" ? centre : -centre),
                   borderpad: 0, name: m["class"] });
      });
    });
    return out;
  }

  function layout(chart) {
    var narrow = window.matchMedia("(max-width: 600px)").matches, fg = colour("fg"), line = colour("line"), bg = colour("bg");
    var m = frameOf(chart, narrow ? "narrow" : "wide")[2];  // the SVG's margins, as builder/figures/chart.py
    // The y title reads across, above the axis, where the SVG has it (Plotly would turn it on its side).
    var yTitle = { text: esc(chart.y.title), xref: "paper", yref: "paper", x: 0, y: 1, xanchor: "left", yanchor: "middle",
                   xshift: G.axis_title[0] - m.l, yshift: m.t - G.axis_title[1], showarrow: false, font: { color: fg }, name: "y-title" };
    function axis(a, ticks, isX) {
      return { range: a.range, tickvals: ticks.map(function (t) { return t[0]; }),
               ticktext: ticks.map(function (t) { return esc(isX && narrow ? t[2] : t[1]); }), title: { text: isX ? esc(a.title) : "", standoff: 6 },
               fixedrange: true, zeroline: false, gridcolor: isX ? "rgba(0,0,0,0)" : line, linecolor: fg, showline: isX,
               tickangle: 0, automargin: false };
    }
    return { template: null, paper_bgcolor: bg, plot_bgcolor: bg, margin: { l: m.l, r: m.r, t: m.t, b: m.b }, dragmode: false,
             showlegend: false, barmode: "overlay", font: { color: fg, family: theme.font, size: narrow ? G.font.narrow : G.font.wide },
             xaxis: axis(chart.x, chart.x.ticks, true), yaxis: axis(chart.y, chart.y.ticks, false), hovermode: "closest",
             annotations: labels(chart, fg).concat([yTitle]) };
  }

  // A state change is drawn at once as SVG (a few milliseconds); Plotly, once loaded, redraws the same
  // description when the browser is idle and takes over the box (hover details), with no visible jump.
  function draw() {
    var ready = plotly && plotly !== "loading";
    figures.forEach(function (f) {
      var view = viewOf(f);
      Object.keys(view && view.charts || {}).forEach(function (name) {
        var box = f.root.querySelector('[data-chart="' + name + '"] [data-part="chart"]');
        if (!box) return;
        var chart = view.charts[name], shown = chart.key + "|" + JSON.stringify(chart.highlights && chart.highlights[state.step - 1]);
        if (box.shown === undefined && encode(state) === encode(defaults)) box.shown = shown;  // as built
        if (box.shown !== shown) {
          drawSvg(box, chart);
          box.classList.remove("plotted");
          box.shown = shown;
        }
        box.setAttribute("data-state", encode(state));
        if (ready) later(function () { plot(box, chart); }, box);
      });
    });
  }

  function plot(box, chart) {
    if (!box.offsetParent) return;  // hidden (display: none): drawn when shown
    var narrow = window.matchMedia("(max-width: 600px)").matches;
    colour("fg");  // reads the theme once (again after the colour scheme changes)
    var stamp = [box.shown, narrow, theme.stamp].join("|");
    if (box.plotted !== stamp) {
      var target = box.querySelector(".plot") || box.appendChild(el("div", { "class": "plot" }));
      plotly.react(target, traces(chart, state.step), layout(chart),
                   { displayModeBar: false, responsive: false, scrollZoom: false, doubleClick: false, showTips: false });
      box.plotted = stamp;
    }
    box.classList.add("plotted");
    box.setAttribute("data-plotted", box.getAttribute("data-state"));
  }
  var pending = null;
  window.addEventListener("resize", function () {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () {
      Array.prototype.forEach.call(document.querySelectorAll(".plotted .plot"), function (p) {
        if (p.offsetParent && plotly && plotly !== "loading") plotly.Plots.resize(p);
      });
      Array.prototype.forEach.call(document.querySelectorAll("[data-part=chart]"), function (box) { box.plotted = null; });
      draw();
    });
  });
  var scheme = window.matchMedia && matchMedia("(prefers-color-scheme: dark)");
  if (scheme && scheme.addEventListener) scheme.addEventListener("change", function () { theme = null; draw(); });
  if (window.matchMedia) matchMedia("print").addEventListener("change", function () { draw(); });

  // The entry the reader arrived on remembers its state too, so Back to it restores it. A state it was
  // opened with that names a figure (a shared link) brings that figure into view.
  history.replaceState({ lessonState: state }, "");
  var arrived = location.hash.replace(/^#/, "");
  if (read()) { render(false); wake(); if (/(?:^|&)figure=/.test(arrived)) show(target(arrived), defaults); } else { render(false); }
})();
