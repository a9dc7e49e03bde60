// What the page's browser tests share: Debian's Chromium, headless, launched through playwright-core
// so that nothing but the page's own server can be reached (every other host fails to resolve, so
// anything the page or a worker of it asked of the network would be a load error; as root, as in
// CI and containers, without Chromium's sandbox, which it refuses to run there), and the checks'
// "[ok]" and "[FAILED]" lines with their count.
// Leaves out the pages themselves: tests/web/page_test.mjs, exercise_test.mjs, page_experiment.mjs.
import { chromium } from 'playwright-core';

export function launchBrowser(executablePath) {
  return chromium.launch({
    executablePath,
    args: [...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []), '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
}

// check(holds, claim, detail) prints the claim as [ok] or [FAILED] (with the detail); failures() counts.
export function checks() {
  let failed = 0;
  const check = (holds, claim, detail = '') => {
    console.log(holds ? `  [ok] ${claim}` : `  [FAILED] ${claim}${detail ? `: ${detail}` : ''}`);
    if (!holds) ++failed;
  };
  return { check, failures: () => failed };
}
