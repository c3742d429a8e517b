// The lesson's interactive figure. Data comes from the page's embedded trace JSON
// (#figure-data), every label from #figure-labels (translated by the catalogs): this file has
// no strings of its own. One controller handles state, the URL, controls, the text twin and
// the live region; each figure kind is configuration (FIGURES below), not a copy.
(function () {
  "use strict";

  var root = document.querySelector("[data-figure]");
  if (!root) return;
  var fig = JSON.parse(document.getElementById("figure-data").textContent);
  var L = JSON.parse(document.getElementById("figure-labels").textContent);
  var trace = fig.trace;
  var T = trace.tracked;
  var dims = fig.dimensions;
  var assets = (document.currentScript && document.currentScript.src || "").replace(/[^/]*$/, "");
  var chart = document.getElementById("figure-chart");
  var status = document.getElementById("figure-status");
  var locale = (fig.locale || "en").replace("_", "-");
  var formatters = {};

  // Numbers: the page's locale, U+2212 for negatives, as the server-side Babel formatting does.
  function num(value, decimals) {
    var d = decimals === undefined ? 2 : decimals;
    if (!formatters[d]) {
      formatters[d] = new Intl.NumberFormat(locale, { minimumFractionDigits: d, maximumFractionDigits: d, useGrouping: false });
    }
    var rounded = Math.round(value * Math.pow(10, d)) / Math.pow(10, d);
    if (rounded === 0) rounded = 0;
    return formatters[d].format(rounded).replace("-", "\u2212");
  }
  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (m, key) { return key in values ? values[key] : m; });
  }
  function vec(values, decimals) { return "[" + values.map(function (v) { return num(v, decimals); }).join(", ") + "]"; }
  function norm(v) { return Math.sqrt(v.reduce(function (s, x) { return s + x * x; }, 0)); }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function css(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }
  function blockLabel(n) { return n === 0 ? L.input : fill(L.block, { n: n }); }
  // Narrow screens: tick labels shrink to the bare block number (x₀ for the input), unrotated.
  var narrow = false;  // read once per redraw: reading a width after DOM changes forces a relayout
  function tickLabel(n) { return !narrow ? blockLabel(n) : (n === 0 ? "x\u2080" : String(n)); }
  function runOf(state) { return trace.runs[state.residual ? "pre-on" : "pre-off"]; }
  function streamAfter(run, block) { return block === 0 ? run.x0[T] : run.steps[2 * block - 1].after[T]; }

  // ---- State and the URL ---------------------------------------------------------------
  var steps = fig.walkthrough || [];
  var defaults = { depth: fig.kind === "depth-map" ? trace["default"].depth : trace.max_depth,
                   residual: trace["default"].residual, step: 1 };
  var state = readHash() || copy(defaults);

  function copy(s) { return { depth: s.depth, residual: s.residual, step: s.step }; }
  function readHash() {
    var hash = location.hash.replace(/^#/, "");
    if (hash.indexOf("=") < 0) return null;  // a plain #section anchor, not a state
    var s = copy(defaults);
    hash.split("&").forEach(function (pair) {
      var kv = pair.split("="), v = kv[1];
      if (kv[0] === "depth" && /^[1-9]$/.test(v)) s.depth = Math.min(+v, trace.max_depth);
      if (kv[0] === "residual" && (v === "on" || v === "off")) s.residual = v === "on";
      if (kv[0] === "step" && /^\d+$/.test(v) && steps.length) s.step = Math.max(1, Math.min(+v, steps.length));
    });
    return s;
  }
  function hashOf(s) {
    var parts = ["depth=" + s.depth];
    if (fig.kind === "depth-map") parts.push("residual=" + (s.residual ? "on" : "off"));
    if (steps.length) parts.push("step=" + s.step);
    return "#" + parts.join("&");
  }
  function syncLinks() {
    // site.js keeps the fragment on the language switcher; pushState fires no event of its own.
    document.dispatchEvent(new Event("lesson:state"));
  }
  function setState(next) {
    state = next;
    history.pushState(null, "", hashOf(state));
    render(true);
  }
  window.addEventListener("popstate", function () { state = readHash() || copy(defaults); render(true); });
  window.addEventListener("hashchange", function () {
    var s = readHash();
    if (s) { state = s; render(true); }
  });

  // ---- Figure kinds ----------------------------------------------------------------------
  var FIGURES = {
    "depth-map": {
      rows: function (s) {  // the text twin: one row per position in the stack
        var run = runOf(s), rows = [];
        for (var b = 0; b <= s.depth; b++) {
          var measure = b === 0 ? 0 : run.blocks[s.residual ? "cumulative" : "output"][b - 1][T];
          rows.push({ head: blockLabel(b), cells: streamAfter(run, b).map(function (v) { return num(v); }).concat([num(measure)]) });
        }
        return rows;
      },
      columns: function (s) { return dims.concat([s.residual ? L.measure_on : L.measure_off]); },
      caption: function (s) {
        return fill(L.twin_caption, { token: trace.tokens[T], residual: s.residual ? L.on : L.off, depth: s.depth });
      },
      summary: function (s) {
        var run = runOf(s);
        return s.residual
          ? fill(L.summary_on, { depth: s.depth, value: num(run.blocks.cumulative[s.depth - 1][T], 1) })
          : fill(L.summary_off, { value: num(run.blocks.output[s.depth - 1][T], 1) });
      },
      traces: function (s, colors, highlight) {
        var run = runOf(s), x0 = run.x0[T], base = norm(x0), xs = [], heights = [], hover = [];
        for (var b = 1; b <= s.depth; b++) {
          xs.push(b);
          heights.push(run.blocks[s.residual ? "cumulative" : "output"][b - 1][T]);
          hover.push(hoverText(blockLabel(b), streamAfter(run, b)));
        }
        var ribbonEnd = s.residual ? s.depth + 0.5 : 0.5;  // residual off: cut at the entrance
        var ribbon = {
          type: "scatter", mode: "lines", name: L.ribbon, x: [-0.5, ribbonEnd], y: [base, base],
          fill: "tozeroy", fillcolor: colors.ribbonFill, line: { color: colors.ribbon, width: 2 },
          hoverinfo: "text", text: [hoverText(L.input, x0), hoverText(L.input, x0)], meta: "ribbon",
        };
        var bars = {
          type: "bar", name: s.residual ? L.cumulative : L.output, x: xs, y: heights,
          base: s.residual ? xs.map(function () { return base; }) : undefined, width: 0.55,
          marker: { color: s.residual ? colors.on : colors.off,
                    pattern: { shape: s.residual ? "" : "/", fillmode: "overlay", fgcolor: colors.bg, solidity: 0.3 },
                    line: { color: colors.fg, width: 1 } },
          text: heights.map(function (h) { return num(h, 1); }), textposition: "outside",
          textfont: { color: colors.fg }, cliponaxis: false,
          hoverinfo: "text", hovertext: hover, meta: s.residual ? "bars-on" : "bars-off",
        };
        // The walkthrough's current part of the chart: an empty outlined bar over it (block 0 is the
        // input ribbon), drawn as a trace rather than a layout shape, which would cost a full relayout.
        var marked = { x: [], y: [], base: [] };
        highlight.forEach(function (b) {
          marked.x.push(b);
          marked.y.push(b === 0 ? base : heights[b - 1]);
          marked.base.push(b === 0 || !s.residual ? 0 : base);
        });
        var outline = {
          type: "bar", x: marked.x, y: marked.y, base: marked.base, meta: "highlight",
          width: marked.x.map(function (x) { return x === 0 ? 0.95 : 0.7; }),
          marker: { color: "rgba(0,0,0,0)", line: { color: colors.highlight, width: 4 } },
          showlegend: false, hoverinfo: "skip",
        };
        return [ribbon, bars, outline];
      },
      legend: function (s) {  // [swatch, text]: the swatches are drawn by site.css from the theme colours
        return [["ribbon", L.ribbon], s.residual ? ["bars-on", L.cumulative] : ["bars-off", L.output]];
      },
      layout: function (s) {
        var ticks = [];
        for (var b = 0; b <= s.depth; b++) ticks.push(b);
        return { xaxis: { tickvals: ticks, ticktext: ticks.map(tickLabel), range: [-0.6, s.depth + 0.6], title: { text: L.axis_x } },
                 yaxis: { title: { text: L.axis_y }, rangemode: "tozero" } };
      },
    },
    "norm-compare": {
      rows: function (s) {
        var rows = [];
        for (var b = 1; b <= s.depth; b++) {
          rows.push({ head: blockLabel(b), cells: [num(trace.runs["pre-on"].blocks.length[b - 1][T]),
                                                  num(trace.runs["post-on"].blocks.length[b - 1][T])] });
        }
        return rows;
      },
      columns: function () { return [L.pre, L.post]; },
      caption: function () { return fill(L.compare_caption, { token: trace.tokens[T] }); },
      summary: function (s) {
        return fill(L.summary_compare, { depth: s.depth, pre: num(trace.runs["pre-on"].blocks.length[s.depth - 1][T], 1),
                                         post: num(trace.runs["post-on"].blocks.length[s.depth - 1][T], 1) });
      },
      traces: function (s, colors) {
        function line(key, name, color, symbol, dash) {
          var xs = [], ys = [], hover = [];
          for (var b = 1; b <= s.depth; b++) {
            xs.push(b);
            ys.push(trace.runs[key].blocks.length[b - 1][T]);
            hover.push(hoverText(name + " · " + blockLabel(b), streamAfter(trace.runs[key], b)));
          }
          return { type: "scatter", mode: "lines+markers+text", name: name, x: xs, y: ys, meta: key,
                   line: { color: color, width: 3, dash: dash }, marker: { symbol: symbol, size: 10, color: color },
                   text: ys.map(function (y) { return num(y, 1); }), textposition: "top center",
                   textfont: { color: colors.fg }, hoverinfo: "text", hovertext: hover };
        }
        return [line("pre-on", L.pre, colors.on, "circle", "solid"), line("post-on", L.post, colors.ribbon, "square", "dash")];
      },
      legend: function () { return [["pre", L.pre], ["post", L.post]]; },
      layout: function (s) {
        var ticks = [];
        for (var b = 1; b <= s.depth; b++) ticks.push(b);
        return { xaxis: { tickvals: ticks, ticktext: ticks.map(tickLabel), range: [0.5, s.depth + 0.5], title: { text: L.axis_x } },
                 yaxis: { title: { text: L.length }, rangemode: "tozero" } };
      },
    },
  };
  var kind = FIGURES[fig.kind];

  function hoverText(title, values) {
    return "<b>" + title + "</b><br>" + values.map(function (v, i) { return dims[i] + ": " + num(v); }).join("<br>");
  }

  // ---- Controls ------------------------------------------------------------------------
  var toggle = document.getElementById("residual-toggle");
  var toggleState = document.getElementById("residual-state");
  var depthInput = document.getElementById("depth-input");
  var depthOutput = document.getElementById("depth-output");
  var prev = document.getElementById("step-prev");
  var next = document.getElementById("step-next");
  var twinToggle = document.getElementById("twin-toggle");

  if (toggle) toggle.addEventListener("click", function () {
    setState({ depth: state.depth, residual: !state.residual, step: state.step });
  });
  if (depthInput) {
    depthInput.addEventListener("input", function () {
      setState({ depth: +depthInput.value, residual: state.residual, step: state.step });
    });
  }
  if (prev) prev.addEventListener("click", function () {
    if (state.step > 1) setState({ depth: state.depth, residual: state.residual, step: state.step - 1 });
  });
  if (next) next.addEventListener("click", function () {
    if (state.step < steps.length) setState({ depth: state.depth, residual: state.residual, step: state.step + 1 });
  });
  if (twinToggle) twinToggle.addEventListener("click", function () {
    var open = !root.querySelector(".twin").classList.contains("open");
    root.querySelector(".twin").classList.toggle("open", open);
    twinToggle.setAttribute("aria-expanded", String(open));
    twinToggle.textContent = open ? L.hide_table : L.show_table;
  });

  // ---- Rendering ---------------------------------------------------------------------
  function renderTwin() {
    var table = document.getElementById("twin-table");
    var caption = el("caption", { id: "twin-caption" }, [kind.caption(state)]);
    var head = el("tr", {}, [el("th", { scope: "col" }, [L.axis_x])].concat(
      kind.columns(state).map(function (c) { return el("th", { scope: "col" }, [c]); })));
    var body = el("tbody", { id: "twin-body" }, kind.rows(state).map(function (row) {
      return el("tr", {}, [el("th", { scope: "row" }, [row.head])].concat(
        row.cells.map(function (c) { return el("td", {}, [c]); })));
    }));
    table.replaceChildren(caption, el("thead", {}, [head]), body);
  }

  var stepItems = Array.prototype.slice.call(document.querySelectorAll("#walkthrough-steps > ol > li"));

  function stepInfo(key, run, s) {
    // What the walkthrough shows for one step: which blocks to highlight and the readout.
    if (key === "input") return { blocks: [0], stream: run.x0[T] };
    if (key === "sum") {
      var all = []; for (var b = 0; b <= s.depth; b++) all.push(b);
      var last = streamAfter(run, s.depth);
      // Residual on: the corrections sum to stream − x₀. Off: there is no sum, only the latest output.
      return s.residual ? { blocks: all, stream: last, correction: last.map(function (v, i) { return v - run.x0[T][i]; }) }
                        : { blocks: [s.depth], stream: last };
    }
    var m = /^b(\d)(?:\.(attention|ffn))?$/.exec(key), block = +m[1];
    if (m[2]) {
      var st = run.steps[2 * (block - 1) + (m[2] === "attention" ? 0 : 1)];
      return { blocks: [block], stream: st.after[T], correction: st.delta[T], attention: st.attention && st.attention[T] };
    }
    var a = run.steps[2 * block - 2], f = run.steps[2 * block - 1];
    return { blocks: [block], stream: f.after[T], correction: a.delta[T].map(function (v, i) { return v + f.delta[T][i]; }) };
  }

  function renderWalkthrough() {
    if (!steps.length) return null;
    var info = stepInfo(steps[state.step - 1], runOf(state), state);
    document.getElementById("step-counter").textContent = fill(L.step_of, { n: state.step, total: steps.length });
    prev.disabled = state.step <= 1;
    next.disabled = state.step >= steps.length;
    var text = document.getElementById("walk-text");
    var item = stepItems[state.step - 1];
    text.replaceChildren.apply(text, item ? Array.prototype.map.call(item.childNodes, function (n) { return n.cloneNode(true); }) : []);
    stepItems.forEach(function (li, i) { li.classList.toggle("current", i === state.step - 1); });
    var rows = [el("tr", {}, [el("th", { scope: "row" }, [L.stream])].concat(info.stream.map(function (v) { return el("td", {}, [num(v)]); })))];
    if (info.correction) {
      rows.push(el("tr", {}, [el("th", { scope: "row" }, [L.correction])].concat(info.correction.map(function (v) { return el("td", {}, [num(v)]); }))));
    }
    var tables = [el("table", {}, [
      el("thead", {}, [el("tr", {}, [el("td", {}, [])].concat(dims.map(function (d) { return el("th", { scope: "col" }, [d]); })))]),
      el("tbody", {}, rows)])];
    if (info.attention) {
      tables.push(el("table", { "class": "attention-weights" }, [
        el("caption", {}, [fill(L.attention, { token: trace.tokens[T] })]),
        el("thead", {}, [el("tr", {}, trace.tokens.map(function (t) { return el("th", { scope: "col" }, [t]); }))]),
        el("tbody", {}, [el("tr", {}, info.attention.map(function (w) { return el("td", {}, [num(w)]); }))])]));
    }
    if (!state.residual) tables.unshift(el("p", { "class": "note" }, [L.off_note]));
    var beyond = info.blocks.some(function (b) { return b > state.depth; });
    if (beyond) tables.push(el("p", { "class": "note" }, [L.not_shown]));
    document.getElementById("walk-readout").replaceChildren.apply(document.getElementById("walk-readout"), tables);
    return info;
  }

  // Theme colours and font, read once (and again when the colour scheme changes): reading computed
  // styles after DOM changes forces a synchronous relayout of the whole page.
  var theme = null;
  function colors() {
    if (!theme) {
      theme = { bg: css("--bg"), fg: css("--fg"), line: css("--line"), ribbon: css("--ribbon"),
                ribbonFill: css("--ribbon") + "55", on: css("--bar-on"), off: css("--bar-off"),
                highlight: css("--highlight"), font: getComputedStyle(document.body).fontFamily };
    }
    return theme;
  }

  var legend = document.getElementById("chart-legend"), legendKey = null;
  function renderLegend() {
    var items = kind.legend(state), key = JSON.stringify(items);
    if (!legend || key === legendKey) return;
    legendKey = key;
    legend.replaceChildren.apply(legend, items.map(function (item) {
      return el("li", {}, [el("span", { "class": "swatch swatch-" + item[0] }), item[1]]);
    }));
  }

  var plotted = false;
  function renderChart(info) {
    if (!window.Plotly) return;
    var c = colors();
    narrow = chart.clientWidth < 560;
    var layout = kind.layout(state);
    layout.template = null;
    layout.paper_bgcolor = c.bg;
    layout.plot_bgcolor = c.bg;
    layout.font = { color: c.fg, family: c.font, size: 13 };
    layout.margin = { l: 56, r: 16, t: 28, b: 56 };
    layout.xaxis.tickangle = 0;
    layout.dragmode = false;
    layout.barmode = "overlay";  // the highlight outline sits on its bar, not beside it
    layout.showlegend = false;  // the legend is HTML above the chart: Plotly's cost about 4 ms a redraw
    layout.xaxis.fixedrange = true;
    layout.yaxis.fixedrange = true;
    layout.xaxis.gridcolor = layout.yaxis.gridcolor = c.line;
    var highlight = info ? info.blocks.filter(function (b) { return b <= state.depth; }) : [];
    // Not Plotly's `responsive` (it re-measures the container on every redraw): our own resize
    // handler below redraws, which also switches tick labels for narrow screens.
    var config = { displayModeBar: false, responsive: false, scrollZoom: false, doubleClick: false, showTips: false,
                   locale: locale };
    Plotly.react(chart, kind.traces(state, c, highlight), layout, config);
    renderLegend();
    if (!chart.hasResizeHook) {  // follow the window's width; tick labels depend on it too
      chart.hasResizeHook = true;
      var pending = null;
      window.addEventListener("resize", function () {
        cancelAnimationFrame(pending);
        pending = requestAnimationFrame(function () {
          Plotly.Plots.resize(chart);
          renderChart(steps.length ? stepInfo(steps[state.step - 1], runOf(state), state) : null);
        });
      });
    }
    plotted = true;
    chart.setAttribute("data-state", hashOf(state).slice(1));
  }

  function render(announce) {
    // The chart first: Plotly measures text, which forces a relayout of the whole page if anything
    // else has changed before it. Every other DOM write comes after.
    renderChart(steps.length ? stepInfo(steps[state.step - 1], runOf(state), state) : null);
    if (toggle) {
      toggle.setAttribute("aria-pressed", String(state.residual));
      toggleState.textContent = state.residual ? L.on : L.off;
    }
    if (depthInput) { depthInput.value = state.depth; depthOutput.textContent = state.depth; }
    renderTwin();
    renderWalkthrough();
    var summary = kind.summary(state);
    chart.setAttribute("aria-label", summary);
    syncLinks();
    if (announce) {
      var line = steps.length
        ? fill(L.state_step, { residual: state.residual ? L.on : L.off, depth: state.depth, n: state.step, total: steps.length })
        : fill(L.state, { residual: state.residual ? L.on : L.off, depth: state.depth });
      status.textContent = line + " " + summary;
    }
  }

  // Text and table first; Plotly (4.8 MB) only after the first paint, so it never blocks reading.
  render(false);
  function loadPlotly() {
    if (window.Plotly) { renderChart(steps.length ? stepInfo(steps[state.step - 1], runOf(state), state) : null); return; }
    var script = document.createElement("script");
    script.src = assets + "plotly.min.js";
    script.onload = function () { render(false); root.setAttribute("data-ready", "true"); };
    document.head.appendChild(script);
  }
  requestAnimationFrame(function () { setTimeout(loadPlotly, 0); });
  var scheme = window.matchMedia && matchMedia("(prefers-color-scheme: dark)");
  if (scheme && scheme.addEventListener) scheme.addEventListener("change", function () {
    theme = null;
    if (plotted) renderChart(renderWalkthrough());
  });
})();
