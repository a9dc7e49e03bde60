// One lesson, run in its own Web Worker (web/lessons_page.cpp's module): message in {lesson:
// "05_rope"}; messages out "line" (each line the lesson prints, stream "out" or "err") and "exit"
// with its exit code. The page ends the worker after "exit", so each run starts from a fresh module.
// Leaves out lesson arguments (lesson 06's --try): the page runs each lesson as `make lessons-run` does.
importScripts('whereami_lessons.js');

onmessage = (event) => {
  const name = event.data.lesson;
  let exited = false;
  const exit = (code) => {
    if (exited) return;
    exited = true;
    postMessage({ type: 'exit', code });
  };
  createLessons({
    print: (text) => postMessage({ type: 'line', stream: 'out', text }),
    printErr: (text) => postMessage({ type: 'line', stream: 'err', text }),
    onExit: exit,
    onAbort: (what) => {
      postMessage({ type: 'line', stream: 'err', text: `lesson stopped: ${what}` });
      exit(1);
    },
  }).then((lessons) => {
    try {
      const code = lessons.callMain([name]);
      if (typeof code === 'number') exit(code);
    } catch (error) {
      if (error && error.name === 'ExitStatus') exit(error.status);
      else {
        postMessage({ type: 'line', stream: 'err', text: `lesson stopped: ${error}` });
        exit(1);
      }
    }
  });
};
