// A plain static server for the published folder (make web-dist's build/web-dist/), as a host serves
// it: Python's http.server, not the project's own. plainServe(folder) resolves to {url, served, stop}:
// served maps each path to the bytes sent for it, read from the server's log (a 200 is the file's
// size, a 304 nothing), and stop() ends the server.
// Leaves out HTTPS: browsers keep files and run service workers on localhost without it.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

export function plainServe(folder, python = '/usr/bin/python3') {
  return new Promise((resolve, reject) => {
    const server = spawn(python, ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', folder],
                         { stdio: ['ignore', 'pipe', 'pipe'] });
    const served = new Map();
    let log = '', started = false;
    server.on('error', reject);
    server.on('exit', (code) => started || reject(new Error(`${python} -m http.server ended (${code}): ${log}`)));
    server.stdout.on('data', (chunk) => {
      const found = /port ([0-9]+)/.exec(String(chunk));
      if (found && !started) {
        started = true;
        resolve({ url: `http://127.0.0.1:${found[1]}/`, served,
                  stop: () => new Promise((done) => { server.once('exit', done); server.kill('SIGTERM'); }) });
      }
    });
    server.stderr.on('data', (chunk) => {
      log = (log + chunk).slice(-4000);
      for (const [, path, status] of String(chunk).matchAll(/"GET ([^ ?]+)[^"]* HTTP\/[0-9.]+" ([0-9]{3})/g)) {
        const file = decodeURIComponent(path === '/' ? '/index.html' : path);
        let bytes = 0;
        if (status === '200') {
          try {
            bytes = statSync(join(folder, file)).size;
          } catch {
            bytes = 0;
          }
        }
        served.set(file, (served.get(file) || 0) + bytes);
      }
    });
  });
}
