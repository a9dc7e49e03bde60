// The web build's start-up on the JavaScript side, run by node before main (em++ --pre-js,
// platform/web.mk): standard input, output and error count as terminals only when they are.
// Emscripten's NODERAWFS marks all three as terminals whatever they are, so isatty(2) would say yes
// for a pipe or a file and train_position would write its progress line into it; here each is asked
// of node's tty module once the file system is set up, before main.
// Leaves out the browser (no process, no tty module: the glue is built for node only).
Module['onRuntimeInitialized'] = function () {
  if (typeof FS == 'undefined') return;  // a program built without a file system (-sFORCE_FILESYSTEM=1 gives one)
  var tty = require('tty');
  for (var fd = 0; fd < 3; ++fd)
    if (FS.streams[fd]) FS.streams[fd].tty = tty.isatty(fd);
};
