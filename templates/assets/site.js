// Runs in <head> on every page: mark that scripts run (the CSS shows controls only then), on the
// entry page go straight to the reader's preferred language, and on http(s) register the service
// worker that keeps the site for reading offline. No strings of its own.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var script = document.currentScript;
  var root = script && script.src ? script.src.replace(/assets\/site\.js(?:[?#].*)?$/, "") : "";

  // Offline after the first visit (sw.js at the site's root, scoped to it). Not over file://, where
  // every page is on disk anyway. The browser looks for a new sw.js on each visit, never in its HTTP
  // cache; a new version waits until the reader chooses to reload.
  if (root && /^https?:$/.test(location.protocol) && "serviceWorker" in navigator) {
    var reloading = false;
    var offer = function (registration) {
      var region = document.querySelector("[data-update-notice]");
      var text = document.getElementById("update-notice-text");
      if (!region || !text || region.firstChild) return;
      region.appendChild(text.content.cloneNode(true));
      region.querySelector('[data-update="reload"]').addEventListener("click", function () {
        reloading = true;
        if (registration.waiting) registration.waiting.postMessage("skip-waiting");
        else location.reload();
      });
      region.querySelector('[data-update="later"]').addEventListener("click", function () {
        while (region.firstChild) region.removeChild(region.firstChild);
      });
    };
    navigator.serviceWorker.addEventListener("controllerchange", function () { if (reloading) location.reload(); });
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(root + "sw.js", { scope: root, updateViaCache: "none" }).then(function (registration) {
        if (registration.waiting && navigator.serviceWorker.controller) offer(registration);
        registration.addEventListener("updatefound", function () {
          var worker = registration.installing;
          if (worker) worker.addEventListener("statechange", function () {
            if (worker.state === "installed" && navigator.serviceWorker.controller) offer(registration);
          });
        });
      }, function () { /* offline, or the host refuses: the site still works */ });
    });
  }

  // Paper has no disclosure widget: a closed fold (a self-check's answers) prints open, and closes again after.
  var foldsOpened = [];
  window.addEventListener("beforeprint", function () {
    foldsOpened = Array.prototype.filter.call(document.querySelectorAll("details.fold:not([open])"), function (fold) {
      fold.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    foldsOpened.forEach(function (fold) { fold.open = false; });
    foldsOpened = [];
  });

  // The search box's script (assets/search.js) loads only when the reader goes to search: the box
  // gets focus, or `/` is pressed (it focuses the box). A script of the site's own, as the index is:
  // it loads over file:// and under the Content-Security-Policy. What the reader types meanwhile
  // stays in the box, and search.js takes it from there.
  var searchLoading = false;
  function loadSearch() {
    if (searchLoading || !root) return;
    searchLoading = true;
    var search = document.createElement("script");
    search.src = root + "assets/search.js";
    document.head.appendChild(search);
  }
  document.addEventListener("focusin", function (event) {
    if (event.target && event.target.id === "search-input") loadSearch();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var target = event.target, tag = target && target.tagName, input = document.getElementById("search-input");
    if (!input || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    event.preventDefault();
    input.focus();
    input.select();
  });

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
