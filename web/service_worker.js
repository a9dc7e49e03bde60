// The page's service worker: every file of the page's folder kept in the browser's Cache Storage as
// it is fetched, so that the page and its exercise work with the server gone (offline, or a server
// stopped after the first visit). Each GET goes to the network first, and its answer is kept; when
// the network fails, the kept answer is served. The exercise's compressed files (*.gz) are kept by
// web/packed_files.js, decompressed, and pass through here untouched.
// Leaves out precaching: nothing is fetched that the page did not ask for.
const CACHE = 'whereami-page';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.endsWith('.gz') ||
      request.headers.has('range')) return;
  event.respondWith(fetch(request).then((answer) => {
    if (answer.ok && answer.type === 'basic') {
      const copy = answer.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(request, copy)).catch(() => {}));  // a full quota: not kept
    }
    return answer;
  }, async (error) => {
    const kept = await caches.match(request, { cacheName: CACHE });
    if (kept) return kept;
    throw error;
  }));
});
