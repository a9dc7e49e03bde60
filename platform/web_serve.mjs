// A static file server for the web page (make web-serve, make test-web, make bench-web): serves one
// folder on localhost with the types a browser needs (application/wasm, so that it compiles the
// engine while it downloads), nothing outside the folder (a path with '..' or a symbolic link that
// leads out of it, as build/web/include's links to Debian's headers do, is not found; a path whose
// percent-encoding is broken is a bad request), and no caching of stale builds (the exercise's
// compiler, a pinned package, is kept by the browser and checked each time with an ETag).
//   node platform/web_serve.mjs FOLDER [PORT]   (PORT 0 or none: a free port; prints the URL)
// Also imported: serve(folder, port) resolves to {server, url, served}, served a Map of each path
// served to the bytes sent for it, all requests together (the tests hold the page to its size).
// Leaves out HTTPS and compression: the page needs neither (it uses no threads, so no
// cross-origin-isolation headers either).
import { createServer } from 'node:http';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.cpp': 'text/plain; charset=utf-8', '.hpp': 'text/plain; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png', '.svg': 'image/svg+xml',
};

const cached = /^\/(compiler|wasi_shim)\//;

export function serve(folder, port = 0) {
  const root = resolve(folder);
  const realRoot = realpath(root);
  const served = new Map();
  const notFound = () => Object.assign(new Error('outside'), { code: 'ENOENT' });
  // The file opened, once it is known to be inside the folder: the check is made on what was opened
  // (its path as the kernel holds it, /proc/self/fd), so a link put in a file's place between a check
  // and the read cannot lead out. Where there is no /proc, the path with every link followed.
  const openInside = async (file) => {
    const base = await realRoot, handle = await open(file, 'r');
    try {
      const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => realpath(file));
      if (real !== base && !real.startsWith(base + sep)) throw notFound();
      return { handle, real };
    } catch (error) {
      await handle.close();
      throw error;
    }
  };
  const server = createServer(async (request, response) => {
    let path;
    try {
      path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    } catch {
      response.writeHead(400, { 'Content-Type': 'text/plain' });
      response.end('bad request: the path\'s percent-encoding is not valid\n');
      return;
    }
    try {
      const file = resolve(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw notFound();
      let opened = await openInside(file), body, real, tag = null;
      try {
        if ((await opened.handle.stat()).isDirectory()) {
          const folder = opened;
          opened = null;
          await folder.handle.close();
          opened = await openInside(join(folder.real, 'index.html'));
        }
        real = opened.real;
        // The exercise's compiler (about 105 MB, a pinned npm package) is kept by the browser and asked
        // again each time: unchanged, it answers 304 and sends nothing.
        if (cached.test(path)) {
          const { size, mtimeMs } = await opened.handle.stat();
          tag = `"${size}-${Math.floor(mtimeMs)}"`;
          if (request.headers['if-none-match'] === tag) {
            response.writeHead(304, { ETag: tag, 'Cache-Control': 'no-cache' });
            response.end();
            return;
          }
        }
        body = await opened.handle.readFile();
      } finally {
        if (opened) await opened.handle.close();
      }
      response.writeHead(200, { 'Content-Type': types[extname(real)] || 'application/octet-stream',
                                ...(tag ? { ETag: tag, 'Cache-Control': 'no-cache' } : { 'Cache-Control': 'no-store' }) });
      response.end(body);
      served.set(path, (served.get(path) || 0) + body.length);
    } catch (error) {
      response.writeHead(error.code === 'ENOENT' || error.code === 'EISDIR' ? 404 : 500, { 'Content-Type': 'text/plain' });
      response.end(error.code === 'ENOENT' ? 'not found\n' : 'could not read it\n');
    }
  });
  return new Promise((done, failed) => {
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => done({ server, url: `http://127.0.0.1:${server.address().port}/`, served }));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [folder, port = '0'] = process.argv.slice(2);
  if (!folder) {
    console.error('usage: node platform/web_serve.mjs FOLDER [PORT]   (PORT: 0 to 65535; 0 picks a free one)');
    process.exit(2);
  }
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) {
    console.error(`web-serve: the port (make's WEB_PORT) must be a whole number from 0 to 65535 (0: a free one), got '${port}'`);
    process.exit(2);
  }
  try {
    if (!(await stat(join(folder, 'index.html'))).isFile()) throw new Error();
  } catch {
    console.error(`web-serve: ${folder}/index.html is missing; run make web first`);
    process.exit(2);
  }
  try {
    const { url } = await serve(folder, Number(port));
    console.log(`whereami's page: ${url}  (serving ${folder}; Ctrl-C stops)`);
  } catch (error) {
    console.error(`web-serve: cannot listen on port ${port}: ${error.code || error.message}`);
    process.exit(1);
  }
}
