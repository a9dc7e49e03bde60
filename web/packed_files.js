// The exercise's large files, shipped gzip-compressed (platform/web_dist.mjs lists each folder's in its
// pack.json: name, size, and the compressed file's SHA-256): fetched once, checked against the hash,
// decompressed here (the browser's DecompressionStream) and kept in the browser's Cache Storage
// under that hash, so a later visit, or one with the server gone, fetches none of them.
// packedFiles(folders, progress) resolves to fetch(url): a fetch that answers for the packed files
// of those folders and passes every other address on. progress({done, total}) counts the bytes
// fetched and the total to fetch, kept ones left out.
const CACHE = 'whereami-packed';

async function readAll(response, onBytes) {
  const reader = response.body.getReader();
  const chunks = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Blob(chunks);
    chunks.push(value);
    onBytes(value.length);
  }
}

export async function packedFiles(folders, progress) {
  const plainFetch = globalThis.fetch.bind(globalThis);
  const cache = typeof caches === 'undefined' ? null : await caches.open(CACHE).catch(() => null);
  const entries = new Map();  // absolute URL of the file as named -> {folder, name, entry, key}
  for (const folder of folders) {
    const base = new URL(`${folder}/`, location.href);
    const answer = await plainFetch(new URL('pack.json', base));
    if (!answer.ok) throw new Error(`${folder}/pack.json did not load (${answer.status}): publish the folder make web-dist made`);
    const pack = await answer.json();
    for (const [name, entry] of Object.entries(pack.files)) {
      const url = new URL(name, base).href;
      entries.set(url, { folder, name, entry, key: `${url}?sha256=${entry.sha256}` });
    }
  }
  // What is kept already; the rest is to fetch. Kept files of another build are removed.
  const kept = new Set();
  if (cache) {
    const keys = new Set([...entries.values()].map(({ key }) => key));
    for (const request of await cache.keys()) {
      if (keys.has(request.url)) kept.add(request.url);
      else if ([...entries.keys()].some((url) => request.url.startsWith(`${url}?`))) await cache.delete(request);
    }
  }
  const status = { done: 0, total: 0 };
  for (const { key, entry } of entries.values()) if (!kept.has(key)) status.total += entry.storedBytes;
  progress({ ...status });

  const load = async ({ folder, name, entry, key }) => {
    if (cache && kept.has(key)) {
      const answer = await cache.match(key);
      if (answer) return answer;
    }
    const answer = await plainFetch(new URL(entry.stored, new URL(`${folder}/`, location.href)));
    if (!answer.ok) throw new Error(`${folder}/${entry.stored} did not load (${answer.status})`);
    const stored = await readAll(answer, (bytes) => {
      status.done += bytes;
      progress({ ...status });
    });
    let bytes = new Uint8Array(await stored.arrayBuffer());
    // A host that sent the file with Content-Encoding: gzip has had the browser decompress it already.
    const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
    if (gzipped) {
      const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      const hex = Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
      if (hex !== entry.sha256)
        throw new Error(`${folder}/${entry.stored} is not the file its pack.json names (SHA-256 ${hex}, not ${entry.sha256}): make web-dist again and publish its folder whole`);
      bytes = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
    }
    if (bytes.length !== entry.bytes)
      throw new Error(`${folder}/${entry.stored} decompresses to ${bytes.length} bytes, not the ${entry.bytes} of ${name}: make web-dist again`);
    const headers = { 'Content-Type': name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream', 'Content-Length': String(bytes.length) };
    if (cache) await cache.put(key, new Response(bytes, { headers })).catch(() => {});  // a full quota: fetched again next time
    return new Response(bytes, { headers });
  };
  return (input, init) => {
    const file = entries.get(new URL(input instanceof Request ? input.url : String(input), location.href).href);
    return file ? load(file) : plainFetch(input, init);
  };
}
