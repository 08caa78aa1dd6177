// pushbridge's service worker (served as /sw.js; scope: the directory it is served from).
// Shows each push as a notification (tag = the alert's collapse id, so a newer one replaces an
// older one; its picture when it has one), closes the notifications of a withdrawn condition, opens the alert's link on a
// click, and keeps the subscribe page's files so the page opens offline.
"use strict";
const CACHE = "pushbridge-subscribe-1";
const FILES = ["subscribe", "manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

// The page's files: the network first (a new version shows at once), the cache when offline.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const scope = new URL(self.registration.scope);
  if (event.request.method !== "GET" || url.origin !== scope.origin) return;
  const name = url.pathname.slice(scope.pathname.length);
  if (!FILES.includes(name)) return;
  event.respondWith(fetch(event.request)
    .then((answer) => {
      const copy = answer.clone();
      if (answer.ok) caches.open(CACHE).then((cache) => cache.put(event.request, copy));
      return answer;
    })
    .catch(() => caches.match(event.request)));
});

self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (e) { message = { title: event.data.text() }; }
  if (message.type === "withdraw") {
    event.waitUntil(self.registration.getNotifications({ tag: message.tag })
      .then((shown) => shown.forEach((n) => n.close())));
    return;
  }
  const options = { body: message.body || "", data: message.data || {}, icon: "icon-192.png", badge: "icon-192.png" };
  if (message.tag) { options.tag = message.tag; options.renotify = true; }
  if (message.require_interaction) options.requireInteraction = true;
  if (message.silent) options.silent = true;
  // The alert's first picture (an attachment's capability URL), shown large where the platform can.
  if (message.image) options.image = message.image;
  event.waitUntil(self.registration.showNotification(message.title || "pushbridge", options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "subscribe", self.registration.scope).href;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    for (const w of windows) { if (w.url === target && "focus" in w) return w.focus(); }
    return self.clients.openWindow(target);
  }));
});
