// make web-dist: the folder a static host serves, made from build/web/: the page's files and nothing
// else (no objects, archives of the web build, dependency files or flags), with the large files of
// the exercise gzip-compressed, each folder of them listed in its pack.json (name, size, the
// compressed file's SHA-256) for web/exercise_worker.js, which fetches, checks and decompresses them.
//   node platform/web_dist.mjs WEB_BUILD DIST PACKED_FOLDER... -- FILE...
// FILE and PACKED_FOLDER are relative to WEB_BUILD; a FILE that is a folder is copied whole (but its
// dot-files, the build's markers). Files
// of a PACKED_FOLDER of 1 MB or more are compressed (gzip, level 9). The folder is made beside DIST
// and renamed into its place once whole, so a failed run leaves the last one as it was.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const PACK_FROM = 1 << 20;
const args = process.argv.slice(2);
const split = args.indexOf('--');
if (args.length < 3 || split < 2) {
  console.error('usage: node platform/web_dist.mjs WEB_BUILD DIST PACKED_FOLDER... -- FILE...');
  process.exit(2);
}
const [web, dist] = args;
const packed = args.slice(2, split);
const files = args.slice(split + 1);
const work = `${dist}.tmp-${process.pid}`;

try {
  rmSync(work, { recursive: true, force: true });
  for (const file of files) {
    const from = join(web, file);
    if (!existsSync(from)) throw new Error(`${from} is missing (run make web)`);
    mkdirSync(dirname(join(work, file)), { recursive: true });
    cpSync(from, join(work, file), { recursive: true, dereference: true, filter: (path) => !basename(path).startsWith('.') });
  }
  for (const folder of packed) {
    const where = join(work, folder);
    if (!existsSync(where)) throw new Error(`${folder}/ is not among the files`);
    const pack = { files: {} };
    for (const name of readdirSync(where).sort()) {
      const path = join(where, name);
      const { size } = statSync(path);
      if (!statSync(path).isFile() || size < PACK_FROM) continue;
      const compressed = gzipSync(readFileSync(path), { level: 9 });
      writeFileSync(`${path}.gz`, compressed);
      rmSync(path);
      pack.files[name] = { stored: `${name}.gz`, bytes: size, storedBytes: compressed.length,
                           sha256: createHash('sha256').update(compressed).digest('hex') };
    }
    writeFileSync(join(where, 'pack.json'), `${JSON.stringify(pack, null, 1)}\n`);
  }
  const old = `${dist}.old-${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(work, dist);
  rmSync(old, { recursive: true, force: true });
  let bytes = 0;
  const count = (path) => (statSync(path).isDirectory() ? readdirSync(path).forEach((name) => count(join(path, name))) : (bytes += statSync(path).size));
  count(dist);
  console.log(`web-dist: ${relative('.', dist)}/, ${(bytes / 1e6).toFixed(1)} MB: publish this folder`);
} catch (error) {
  rmSync(work, { recursive: true, force: true });
  console.error(`web-dist: ${error.message}`);
  process.exit(1);
}
