// Writes build/web/exercise/files.json, what the page's exercise needs to compile and link the
// learner's file as make web compiled the rest (platform/exercise_web.mk):
//   node platform/exercise_files.mjs OUTPUT LEARNER_FILE 'COMPILE FLAGS' 'LINK FLAGS' HEADERS...
// {"file": path, "source": the learner's file as shipped, "compile": [flags], "link": [flags],
//  "headers": {path: text}}. Written beside its place and renamed into it.
// Leaves out the objects: engine.a is fetched as it is.
import { readFileSync, writeFileSync, renameSync } from 'node:fs';

const [output, file, compile, link, ...headers] = process.argv.slice(2);
if (!output || !file || compile === undefined || link === undefined) {
    console.error("usage: node platform/exercise_files.mjs OUTPUT LEARNER_FILE 'COMPILE FLAGS' 'LINK FLAGS' HEADERS...");
    process.exit(2);
}
const words = (text) => text.split(/\s+/).filter(Boolean);
const files = {
    file,
    source: readFileSync(file, 'utf8'),
    compile: words(compile),
    link: words(link),
    headers: Object.fromEntries(headers.map((h) => [h, readFileSync(h, 'utf8')])),
};
writeFileSync(`${output}.tmp${process.pid}`, JSON.stringify(files));
renameSync(`${output}.tmp${process.pid}`, output);
