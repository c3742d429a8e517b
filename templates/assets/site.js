// Runs in <head> on every page: mark that scripts run (the CSS shows controls only then) and,
// on the entry page, go straight to the reader's preferred language. No strings of its own.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // The language switcher keeps where the reader is: a #section, and the figures' state (sent by
  // lesson.js). With both, the state goes in the query and the section in the fragment.
  var figureState = "";
  function keepFragment() {
    var hash = location.hash.replace(/^#/, "");
    var section = hash && hash.indexOf("=") < 0 ? "#" + hash : "";
    var state = figureState || (hash.indexOf("=") >= 0 ? hash : "");
    var links = document.querySelectorAll("a[data-keep-state]");
    for (var i = 0; i < links.length; i++) {
      var base = links[i].getAttribute("href").replace(/[?#].*$/, "");
      links[i].setAttribute("href", section ? base + (state ? "?" + state : "") + section : base + (state ? "#" + state : ""));
    }
  }
  window.addEventListener("hashchange", keepFragment);
  window.addEventListener("popstate", keepFragment);
  document.addEventListener("lesson:state", function (event) { figureState = event.detail || ""; keepFragment(); });
  document.addEventListener("DOMContentLoaded", keepFragment);
  document.addEventListener("DOMContentLoaded", function () {
    var entry = document.querySelector("[data-language-choices]");
    if (!entry || /[?&]choose\b/.test(location.search)) return;
    var links = Array.prototype.slice.call(entry.querySelectorAll("a[data-lang]"));
    var wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
    for (var i = 0; i < wanted.length; i++) {
      var tag = String(wanted[i]).toLowerCase();
      for (var j = 0; j < links.length; j++) {
        var code = links[j].getAttribute("data-lang");
        var full = links[j].getAttribute("data-html-lang").toLowerCase();
        if (tag === full || tag === code || tag.split("-")[0] === code) {
          location.replace(links[j].getAttribute("href"));
          return;
        }
      }
    }
  });
})();
