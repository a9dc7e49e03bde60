// Section 7's editor: CodeMirror 5 (pinned in web/packages, copied by make web into codemirror/),
// loaded only when the section is opened, over the text area #exercise-code: line numbers, C++
// highlighting, and the compiler's errors and warnings marked at their line ("your code:LINE:COL"),
// each with its message under the line. The text area stays the editor's value: setting its value and
// sending it an input event puts that text in the editor, and every edit is written back to it.
// If CodeMirror does not load, the text area is the editor, as it is before the section is opened.
// Leaves out the rest of section 7 (web/exercise.js).
'use strict';

const exerciseEditor = { view: null, marks: [] };

function loadEditorFile(path) {
  return new Promise((resolve, reject) => {
    const element = path.endsWith('.css') ? document.createElement('link') : document.createElement('script');
    if (path.endsWith('.css')) Object.assign(element, { rel: 'stylesheet', href: path });
    else element.src = path;
    element.onload = resolve;
    element.onerror = () => reject(new Error(`${path} did not load`));
    document.head.appendChild(element);
  });
}

async function openEditor() {
  await loadEditorFile('codemirror/codemirror.css');
  await loadEditorFile('codemirror/codemirror.js');
  await loadEditorFile('codemirror/clike.js');
  const area = $('exercise-code');
  const view = CodeMirror.fromTextArea(area, {
    mode: 'text/x-c++src', lineNumbers: true, indentUnit: 4, tabSize: 4, matchBrackets: true,
    // Long lines wrap on a phone-sized screen; elsewhere they scroll, as in a code editor.
    gutters: ['exercise-marks', 'CodeMirror-linenumbers'], lineWrapping: window.matchMedia('(max-width: 600px)').matches,
    screenReaderLabel: area.getAttribute('aria-label'),
  });
  view.on('change', () => view.save());
  area.addEventListener('input', () => {
    if (view.getValue() !== area.value) view.setValue(area.value);
  });
  exerciseEditor.view = view;
}

// The editor's text, and setting it (as Start again does).
function editorText() {
  return exerciseEditor.view ? exerciseEditor.view.getValue() : $('exercise-code').value;
}
function setEditorText(text) {
  $('exercise-code').value = text;
  if (exerciseEditor.view) exerciseEditor.view.setValue(text);
}

// Marks each "your code:LINE:COL: error|warning: message" of the compiler's messages at its line.
function markCompilerMessages(messages) {
  clearCompilerMarks();
  const view = exerciseEditor.view;
  if (!view) return 0;
  const found = [...messages.matchAll(/^your code:([0-9]+):([0-9]+): (error|warning): (.*)$/gm)];
  for (const [, line, column, kind, text] of found) {
    const at = Math.min(Number(line), view.lineCount()) - 1;
    view.addLineClass(at, 'background', `exercise-${kind}-line`);
    const marker = document.createElement('span');
    marker.className = `exercise-${kind}-marker`;
    marker.textContent = kind === 'error' ? '✖' : '!';
    marker.title = `${kind}: ${text}`;
    view.setGutterMarker(at, 'exercise-marks', marker);
    const note = document.createElement('div');
    note.className = `exercise-${kind}-note`;
    note.textContent = `${kind} at column ${column}: ${text}`;
    exerciseEditor.marks.push({ at, kind, widget: view.addLineWidget(at, note, { noHScroll: true }) });
  }
  if (found.length) view.scrollIntoView({ line: Math.min(Number(found[0][1]), view.lineCount()) - 1, ch: 0 }, 80);
  return found.length;
}

function clearCompilerMarks() {
  const view = exerciseEditor.view;
  if (!view) return;
  for (const { at, kind, widget } of exerciseEditor.marks) {
    view.removeLineClass(at, 'background', `exercise-${kind}-line`);
    widget.clear();
  }
  view.clearGutter('exercise-marks');
  exerciseEditor.marks = [];
}
