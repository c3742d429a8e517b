// The service worker: the site readable offline after one visit on http(s). The builder writes it to
// the site's root as sw.js, after a line that sets BUILD (builder/publish.py, service_worker): the
// build's content hash, the shell to keep (styles, scripts, the charting library, the search indexes,
// each lesson's other scenarios (assets/data/), the lesson lists, the offline pages), and the languages. The pages register it (assets/site.js),
// never over file://. No strings of its own.
//
// - install: keep the shell in a cache named by the build's hash; keep again, fresh, the pages the
//   reader had kept under the old version, and the pages open now (the first visit is not yet controlled);
// - activate: delete every older cache of ours, and take control of open pages;
// - a page: from the network, kept (with its other languages, so the switcher works offline); without
//   a network the kept copy, else the offline page of its language;
// - a file with a content hash in its name (the search indexes, the lessons' other scenarios): from the
//   cache, else the network;
// - the rest of the shell (site.css, lesson.js …, whose names stay the same from one version to the
//   next): from the network while there is one, so that a page of a new version never runs with the
//   scripts of an old one; else this version's copy;
// - anything else (sw.js itself, data/*.json, offline.zip): the browser's own way, never kept.
"use strict";

var CACHE = "lessons-" + BUILD.version;
var SCOPE = new URL(self.registration.scope);  // the site's root, under its sub-path
var HASHED = /\.[0-9a-f]{12}\.[a-z]+$/;

function site(path) { return new URL(path, SCOPE).href; }
function pathOf(url) { return url.pathname.slice(SCOPE.pathname.length); }
// A page's key in the cache: its address without query or fragment, a folder as its index.html.
function pageKey(url) {
  var key = new URL(url.href);
  key.search = "";
  key.hash = "";
  if (key.pathname.slice(-1) === "/") key.pathname += "index.html";
  return key.href;
}
function language(path) {
  var first = path.split("/")[0];
  return BUILD.languages.indexOf(first) >= 0 ? first : null;
}
function keep(cache, url) {
  return fetch(url, { cache: "reload" }).then(function (response) {
    if (response.ok && !response.redirected) return cache.put(url, response);
  }).catch(function () { /* kept another time */ });
}
// The same page in every language, so the switcher works offline on a page read online.
function keepTranslations(cache, url) {
  var path = pathOf(new URL(url)), lang = language(path);
  if (!lang) return Promise.resolve();
  return Promise.all(BUILD.languages.filter(function (other) { return other !== lang; }).map(function (other) {
    var twin = site(other + path.slice(lang.length));
    return cache.match(twin).then(function (hit) { return hit || keep(cache, twin); });
  }));
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    var shell = BUILD.shell.map(function (path) { return new Request(site(path), { cache: "reload" }); });
    return cache.addAll(shell).then(function () {
      return Promise.all([caches.keys(), self.clients.matchAll({ type: "window", includeUncontrolled: true })]);
    }).then(function (found) {
      var older = found[0].filter(function (name) { return name.indexOf("lessons-") === 0 && name !== CACHE; });
      var open = found[1].map(function (client) { return pageKey(new URL(client.url)); });
      return Promise.all(older.map(function (name) {
        return caches.open(name).then(function (old) { return old.keys(); });
      })).then(function (lists) {
        var pages = open.filter(function (url) { return url.indexOf(SCOPE.href) === 0; });
        lists.forEach(function (requests) {
          requests.forEach(function (request) {
            var path = pathOf(new URL(request.url));
            if (/\.html$/.test(path) && BUILD.shell.indexOf(path) < 0) pages.push(request.url);
          });
        });
        return Promise.all(pages.filter(function (url, i) { return pages.indexOf(url) === i; }).map(function (url) {
          return keep(cache, url).then(function () { return keepTranslations(cache, url); });
        }));
      });
    });
  }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name.indexOf("lessons-") === 0 && name !== CACHE; })
      .map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

// A new version waits until the reader chooses to reload (the page's notice says so).
self.addEventListener("message", function (event) {
  if (event.data === "skip-waiting") self.skipWaiting();
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== SCOPE.origin || url.pathname.indexOf(SCOPE.pathname) !== 0) return;
  var path = pathOf(url);
  if (request.mode === "navigate") {
    event.respondWith(page(event, url, path));
  } else if (HASHED.test(path)) {
    event.respondWith(caches.match(request, { ignoreSearch: true }).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        if (response.ok) {
          var copy = response.clone();
          event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.put(request, copy); }));
        }
        return response;
      });
    }));
  } else if (BUILD.shell.indexOf(path) >= 0) {
    event.respondWith(fetch(request).catch(function () {
      return caches.open(CACHE).then(function (cache) { return cache.match(site(path)); });
    }));
  }
});

function page(event, url, path) {
  var key = pageKey(url);
  return fetch(event.request).then(function (response) {
    if (response.ok && !response.redirected && response.type === "basic") {
      var copy = response.clone();
      event.waitUntil(caches.open(CACHE).then(function (cache) {
        return cache.put(key, copy).then(function () { return keepTranslations(cache, key); });
      }));
    }
    return response;
  }).catch(function () {
    return caches.open(CACHE).then(function (cache) {
      return cache.match(key).then(function (hit) {
        return hit || cache.match(site((language(path) || BUILD.source) + "/offline.html"));
      });
    });
  });
}
