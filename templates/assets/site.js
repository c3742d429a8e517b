// Runs in <head> on every page: mark that scripts run (the CSS shows controls only then) and,
// on the entry page, go straight to the reader's preferred language. No strings of its own.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
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
