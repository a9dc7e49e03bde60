// Runs the WebAssembly build of Clang/LLD (the npm package @yowasp/clang, platform/exercise_web.mk)
// under node, for the page's exercise: the engine and the checker compiled at make web time by the
// very compiler the page runs on the learner's file, so that their objects link.
//   node platform/wasi_cc.mjs PACKAGE_DIR OUTPUT (clang++|clang|ar) ARGS...
// The compiler sees a virtual tree: the source-like files (.hpp, .h, .cpp, .c, .s, .o, .a) of each
// -I or -isystem folder (-I. is the checkout's source folders) and of each input file's folder, but
// never OUTPUT's copy from the last build (with it in the tree the compiler handed the old file back). OUTPUT is the one file it writes, copied out whole:
// written beside its place and renamed into it, so a failed or stopped build leaves none.
// Leaves out dependency files: platform/exercise_web.mk lists the headers itself.
import { readdirSync, readFileSync, statSync, writeFileSync, renameSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';

const [packageDir, outputGiven, tool, ...args] = process.argv.slice(2);
const output = outputGiven && normalize(outputGiven);
if (!packageDir || !output || !tool) {
    console.error('usage: node platform/wasi_cc.mjs PACKAGE_DIR OUTPUT (clang++|clang|ar) ARGS...');
    process.exit(2);
}
const { runClang, runLLVM } = await import(resolve(packageDir, 'gen/bundle.js'));

// Every source-like file under `dir` (relative to the current folder), as the tree the compiler sees.
const sourceLike = /\.(hpp|h|cpp|c|s|o|a|inc|def)$/;
function add(tree, dir) {
    const parts = dir.split('/').filter((p) => p && p !== '.');
    let node = tree;
    for (const p of parts) node = node[p] ??= {};
    for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) add(tree, path);
        else if (sourceLike.test(name) && path !== output) node[name] = readFileSync(path);  // never the last build's output
    }
}
const tree = {};
const sourceFolders = ['tensor', 'autograd', 'nn', 'positional', 'tasks', 'lessons', 'startup', 'fast', 'files', 'experiment'];
for (const arg of args) {
    const dir = arg.startsWith('-I') ? arg.slice(2) : arg.startsWith('-isystem') ? arg.slice(8) : null;
    if (dir === '.') for (const folder of sourceFolders) add(tree, folder);
    else if (dir !== null && !dir.startsWith('/') && existsSync(dir)) add(tree, dir);
    else if (!arg.startsWith('-') && !arg.startsWith('/') && arg !== output && existsSync(arg) && statSync(arg).isFile()) {
        add(tree, dirname(arg));  // its own folder: the headers it includes by "name"
    }
}

await runLLVM(null, {}, { fetchProgress: () => {} });  // the compiler's own files, read without a progress line
const say = { stdout: (b) => b && process.stdout.write(b), stderr: (b) => b && process.stderr.write(b) };
let files;
try {
    files = tool === 'ar' ? await runLLVM(['ar', ...args], tree, say) : await runClang([tool, ...args], tree, say);
} catch (error) {
    if (error.code === undefined) console.error(`wasi_cc: ${tool} did not run: ${error.message}`);
    process.exit(error.code || 1);
}
let made = files;
for (const part of output.split('/')) made = made?.[part];
if (!(made instanceof Uint8Array)) {
    console.error(`wasi_cc: ${tool} ran but wrote no ${output}`);
    process.exit(1);
}
mkdirSync(dirname(output), { recursive: true });
writeFileSync(`${output}.tmp${process.pid}`, made);
renameSync(`${output}.tmp${process.pid}`, output);
