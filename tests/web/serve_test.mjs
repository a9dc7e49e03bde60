// platform/web_serve.mjs against paths that reach for what is outside the served folder: '..', an
// encoded '..', a symbolic link to a file or a folder outside it, a broken percent-encoding, and a
// file swapped for a link to the outside while it is being requested (the check and the read must
// be of the same file); and that what is inside, a link within the folder included, is served; and
// that the exercise's compiler, alone, is kept by the browser and asked again (304 when unchanged).
// Needs node alone.
//   node tests/web/serve_test.mjs    (make test-web runs it); exit code 1 if a check failed
// Leaves out the page itself (tests/web/page_test.mjs).
import { mkdtemp, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../platform/web_serve.mjs';

const top = await mkdtemp(join(tmpdir(), 'whereami-serve-'));
const folder = join(top, 'web'), outside = join(top, 'secret');
await mkdir(folder);
await mkdir(outside);
await writeFile(join(folder, 'index.html'), 'the page\n');
await writeFile(join(outside, 'key.txt'), 'secret\n');
await symlink(join(outside, 'key.txt'), join(folder, 'link.txt'));
await symlink(outside, join(folder, 'linked'));
await symlink(join(folder, 'index.html'), join(folder, 'inner.html'));
const { server, url } = await serve(folder);
// The raw path is sent as written (no URL normalisation by the client).
const get = (path) => new Promise((done, failed) => {
  const r = request(url, { path, method: 'GET' }, (response) => {
    let body = '';
    response.on('data', (chunk) => { body += chunk; });
    response.on('end', () => done({ status: response.statusCode, body }));
  });
  r.on('error', failed);
  r.end();
});
let failed = 0;
const expect = async (path, status, body) => {
  const got = await get(path);
  const ok = got.status === status && (body === undefined || got.body === body) && !got.body.includes('secret');
  console.log(`  [${ok ? 'ok' : 'FAILED'}] GET ${path}: ${got.status}${ok ? '' : `, expected ${status}: ${JSON.stringify(got.body)}`}`);
  if (!ok) failed = 1;
};
await expect('/', 200, 'the page\n');
await expect('/inner.html', 200, 'the page\n');
await expect('/link.txt', 404);
await expect('/linked/key.txt', 404);
await expect('/linked/', 404);
await expect('/../secret/key.txt', 404);
await expect('/%2e%2e/secret/key.txt', 404);
await expect('/%E0%A4%A', 400);
// The swap: for 3 s, swapped.txt is by turns a file inside and a link to the secret, each put in place
// by a rename (as an editor or a build saves), while 20 requests at a time ask for it.
await writeFile(join(folder, 'swapped.txt'), 'inside\n');
let swapping = true, swaps = 0;
const swapper = (async () => {
  while (swapping) {
    await writeFile(join(folder, 'swap.tmp'), 'inside\n');
    await rename(join(folder, 'swap.tmp'), join(folder, 'swapped.txt'));
    await symlink(join(outside, 'key.txt'), join(folder, 'swap.lnk'));
    await rename(join(folder, 'swap.lnk'), join(folder, 'swapped.txt'));
    swaps += 1;
  }
})();
const counts = { inside: 0, secret: 0, notFound: 0, other: 0 };
const until = Date.now() + 3000;
await Promise.all(Array.from({ length: 20 }, async () => {
  while (Date.now() < until) {
    const got = await get('/swapped.txt');
    if (got.body.includes('secret')) counts.secret += 1;
    else if (got.status === 200 && got.body === 'inside\n') counts.inside += 1;
    else if (got.status === 404) counts.notFound += 1;
    else counts.other += 1;
  }
}));
swapping = false;
await swapper;
{
  const ok = counts.secret === 0 && counts.other === 0 && counts.inside > 0 && counts.notFound > 0;
  console.log(`  [${ok ? 'ok' : 'FAILED'}] GET /swapped.txt while it is swapped with a link to the outside (${swaps} swaps): ` +
              `${counts.inside} served from inside, ${counts.notFound} not found, ${counts.secret} served the outside file, ${counts.other} else`);
  if (!ok) failed = 1;
}
// The exercise's compiler is kept by the browser and asked again: an ETag, and 304 with no body when
// it has not changed; a changed file is sent whole; the page's own files are never kept (no-store).
{
  await mkdir(join(folder, 'compiler'));
  await writeFile(join(folder, 'compiler', 'llvm.wasm'), 'the compiler\n');
  const ask = (path, headers = {}) => new Promise((done, failed) => {
    const r = request(url, { path, method: 'GET', headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => done({ status: response.statusCode, body, headers: response.headers }));
    });
    r.on('error', failed);
    r.end();
  });
  const first = await ask('/compiler/llvm.wasm');
  const again = await ask('/compiler/llvm.wasm', { 'If-None-Match': first.headers.etag });
  await writeFile(join(folder, 'compiler', 'llvm.wasm'), 'the compiler, rebuilt\n');
  const changed = await ask('/compiler/llvm.wasm', { 'If-None-Match': first.headers.etag });
  const page = await ask('/index.html', { 'If-None-Match': first.headers.etag });
  const ok = first.status === 200 && first.headers.etag && first.headers['cache-control'] === 'no-cache' &&
             again.status === 304 && again.body === '' && changed.status === 200 && changed.body === 'the compiler, rebuilt\n' &&
             page.status === 200 && page.headers['cache-control'] === 'no-store';
  console.log(`  [${ok ? 'ok' : 'FAILED'}] GET /compiler/llvm.wasm: ${first.status} with ETag ${first.headers.etag}; ` +
              `asked again ${again.status}; changed ${changed.status}; /index.html ${page.status} ${page.headers['cache-control']}`);
  if (!ok) failed = 1;
}
server.close();
await rm(top, { recursive: true, force: true });
console.log(failed ? 'web_serve: a path was served that must not be, or refused wrongly (above)' : 'web_serve: nothing outside the folder is served');
process.exit(failed);
