// Runnable code cells: an editor, Run/Reset, and the output of POST /api/run
// (stdout, stderr, the error with its hint, the .grad inspector, the graph).
// Shared by the lesson page (lesson.js) and the playground (playground.js).
//
//   mountRunnable(section, {lesson, step, save, label})  -> controller
//   controllerOf(section)                               -> the cell's controller, or null
//   whenEditorReady()                                   -> Promise<GradlabEditor|null>
//
// A section with data-readonly="true" (a shared snippet) keeps the server's highlighted copy
// of its code: it runs, it is never edited.
//
// The pieces: the editor (here), the run request (run-request.js), the output renderers
// (run-output.js) and the saving of edits (code-saver.js).
//
// Markup (rendered by the server) and the API: see docs/http-contract.md.
// Everything that is not an explicit *_html field from the server goes in
// with textContent.

import {createSaver} from "./code-saver.js";
import {createOutput} from "./run-output.js";
import {requestRun, runFailureText} from "./run-request.js";
import {icon} from "./icons.js";
import {startUp} from "./ready.js";
import {el, networkMessage, uid} from "./util.js";

const EDITOR_WAIT_MS = 4000;
const controllers = new WeakMap();

/** The controller mountRunnable made for this section (null before it is mounted). */
export function controllerOf(section) {
  return controllers.get(section) ?? null;
}

const isMac = () => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");

/**
 * Resolves with window.GradlabEditor once the deferred vendor script ran
 * (it normally has: module scripts run after it), or null if it never
 * arrives; callers then fall back to a plain textarea.
 */
export function whenEditorReady(timeoutMs = EDITOR_WAIT_MS) {
  if (window.GradlabEditor) return Promise.resolve(window.GradlabEditor);
  return new Promise((resolve) => {
    const started = performance.now();
    const check = () => {
      if (window.GradlabEditor) {
        resolve(window.GradlabEditor);
      } else if (performance.now() - started > timeoutMs) {
        resolve(null);
      } else {
        setTimeout(check, 50);
      }
    };
    if (document.readyState === "complete") check();
    else window.addEventListener("load", check, {once: true});
    setTimeout(check, 50);
  });
}

// A minimal editor with the GradlabEditor interface, for when the bundle
// failed to load: a plain, labelled textarea. Ctrl/Cmd+Enter still runs.
function createFallbackEditor(parent, {doc, label, onRun, onChange}) {
  const area = el("textarea", {
    class: "editor-fallback",
    "aria-label": label,
    spellcheck: "false",
    autocapitalize: "off",
    autocomplete: "off",
    rows: String(Math.min(24, Math.max(4, doc.split("\n").length + 1))),
    wrap: "off",
  });
  area.value = doc;
  area.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (onRun) onRun(area.value);
    }
  });
  area.addEventListener("input", () => onChange && onChange(area.value));
  parent.append(area);
  return {
    getCode: () => area.value,
    setCode(text) {
      area.value = String(text);
      if (onChange) onChange(area.value);
    },
    highlightLine: () => false,
    focus: () => area.focus(),
    destroy: () => area.remove(),
  };
}

// ---- The runnable cell ----------------------------------------------------

/** The cell's toolbar, status line, lock note and keyboard help (made when missing). */
function cellParts(section, readOnly) {
  const q = (selector) => section.querySelector(selector);
  const source = q(".runnable-source");
  const staticCopy = q("pre.highlight, pre.code");
  let host = q(".editor-host");
  if (!host) {
    host = el("div", {class: "editor-host"});
    const anchor = staticCopy ?? source;
    if (anchor) anchor.after(host);
    else section.prepend(host);
  }
  const toolbar = q(".run-toolbar") ?? section.appendChild(el("div", {class: "run-toolbar"}));
  const parts = {
    // The lesson's code, without the final newline (the editor would show it as an empty line).
    original: (source ? source.value : (q("pre.code")?.textContent ?? "")).replace(/\n$/, ""),
    staticCopy,
    host,
    toolbar,
    runButton: q(".btn-run") ?? toolbar.appendChild(el("button", {type: "button", class: "btn btn-run"}, "Run")),
    resetButton: q(".btn-reset") ?? (readOnly ? null : toolbar.appendChild(el("button", {type: "button", class: "btn btn-reset"}, "Reset"))),
    status: q(".run-status") ?? toolbar.appendChild(el("span", {class: "run-status", role: "status"})),
    // The note shown while the step's prediction is not committed yet.
    lockNote: el("p", {class: "run-lock-note", id: uid("run-lock"), hidden: true}),
    // Where saving reports itself; not live: saving is routine, only failures are announced.
    saveStatus: el("span", {class: "save-status"}),
    help: el("p", {class: "editor-help", id: uid("editor-help")},
      el("kbd", {}, isMac() ? "⌘" : "Ctrl"), "+", el("kbd", {}, "Enter"), " runs the code. ",
      el("kbd", {}, "Esc"), " then ", el("kbd", {}, "Tab"), " leaves the editor."),
  };
  toolbar.after(parts.lockNote);
  toolbar.append(parts.saveStatus);
  if (!readOnly) host.after(parts.help);
  return parts;
}

/** The "editor" of a read-only cell: the server's highlighted copy, as it is. */
function shownCode(parts) {
  return {
    getCode: () => parts.original,
    setCode() {},
    highlightLine: () => false,
    focus: () => parts.staticCopy && parts.staticCopy.focus(),
    destroy() {},
  };
}

/** Start the editor (CodeMirror, or a plain textarea when its bundle is missing). */
function startEditor(parts, editorOptions) {
  return whenEditorReady().then((factory) => {
    let editor = null;
    if (factory) {
      try {
        editor = factory.create(parts.host, editorOptions);
      } catch (error) {
        console.error("gradlab: the code editor failed to start", error);
        editor = null;
      }
    }
    if (!editor) {
      editor = createFallbackEditor(parts.host, editorOptions);
      parts.help.replaceChildren(el("kbd", {}, isMac() ? "⌘" : "Ctrl"), "+", el("kbd", {}, "Enter"), " runs the code.");
    }
    // The editor replaces the static, highlighted copy of the code.
    if (parts.staticCopy) parts.staticCopy.hidden = true;
    return editor;
  });
}

/**
 * Turn a server-rendered <section class="runnable"> into a live cell.
 *
 * options:
 *   lesson   the lesson slug (null on the playground: nothing is saved)
 *   step     the 1-based step number (from data-step when omitted)
 *   save     save edits to the progress store (default: when lesson is set)
 *   label    the editor's accessible name
 *   onRun(result, response)  called after every finished run
 *   onSaved(code|null)       called after edits were saved (null: deleted)
 *
 * Returns a controller: {ready (Promise), run(), reset(), getCode(), show(result),
 * restoreCode(code), setLocked(bool), isLocked(), focus(), section}.
 */
export function mountRunnable(section, options = {}) {
  const lesson = options.lesson ?? null;
  const stepAttr = section.dataset.step;
  const step = options.step ?? (stepAttr !== undefined && stepAttr !== "" ? Number(stepAttr) : null);
  const save = options.save ?? Boolean(lesson && step);
  // Every editor is named "Code editor"; its section (a labelled region) says which step.
  const label = options.label ?? "Code editor";
  const readOnly = section.dataset.readonly === "true";
  const parts = cellParts(section, readOnly);
  const {original, runButton, resetButton, status, lockNote} = parts;
  // What a locked cell waits for: a lesson step's commit, or a review item's answer.
  const lockText = options.lockText ?? "Commit your prediction to run this code.";
  lockNote.replaceChildren(icon("lock"), ` ${lockText}`);
  const output = createOutput(section);

  let editor = null;
  let locked = false;
  let running = false;
  let quiet = false; // true while the code is set by us, not typed

  const setStatus = (text, kind = "") => {
    status.textContent = text;
    if (kind) status.dataset.status = kind;
    else delete status.dataset.status;
  };
  const saver = save
    ? createSaver({lesson, step, original, status: parts.saveStatus, onSaved: options.onSaved,
      report: (message) => { if (!running) setStatus(message, "error"); }})
    : null;
  if (saver) saver.listen();

  const setBusy = (busy) => {
    running = busy;
    if (busy) {
      section.setAttribute("aria-busy", "true");
      // aria-disabled, not disabled: the focused button keeps focus.
      runButton.setAttribute("aria-busy", "true");
      runButton.setAttribute("aria-disabled", "true");
    } else {
      section.removeAttribute("aria-busy");
      runButton.removeAttribute("aria-busy");
      if (!locked) runButton.removeAttribute("aria-disabled");
    }
  };

  const setLocked = (value) => {
    locked = Boolean(value);
    section.dataset.locked = locked ? "true" : "false";
    runButton.disabled = locked;
    lockNote.hidden = !locked;
    if (locked) {
      runButton.setAttribute("aria-describedby", lockNote.id);
    } else {
      runButton.removeAttribute("aria-describedby");
      if (!running) runButton.removeAttribute("aria-disabled");
      if (status.dataset.status === "locked") setStatus("");
    }
  };

  const setCodeQuietly = (code) => {
    if (!editor) return;
    quiet = true;
    try {
      editor.setCode(code);
    } finally {
      quiet = false;
    }
  };

  const run = async () => {
    if (running) return;
    if (locked) {
      setStatus(lockText, "locked");
      return;
    }
    if (!editor) return;
    setBusy(true);
    editor.highlightLine(null);
    setStatus("Running…", "running");
    const response = await requestRun({code: editor.getCode(), lesson, step}, parts.toolbar);
    setBusy(false);
    if (response.ok && response.data && typeof response.data === "object") {
      setStatus(...output.render(response.data, editor));
      if (options.onRun) options.onRun(response.data, response);
      // Running counts as "reading on": save edits now rather than later.
      if (saver && saver.hasPending()) saver.flush();
      return;
    }
    // The code did not run: what is shown below (if anything) is from an earlier run.
    setStatus(...runFailureText(response, output.markStale()));
    if (options.onRun) options.onRun(null, response);
  };

  const reset = async () => {
    if (!editor) return;
    if (saver) saver.cancel();
    setCodeQuietly(original);
    editor.highlightLine(null);
    if (!saver) {
      setStatus("Code reset to the original.", "");
      return;
    }
    const response = await saver.forget();
    if (response.ok || response.status === 404) {
      setStatus("Code reset to the lesson's original.", "");
    } else {
      setStatus(`The code is reset here, but ${networkMessage(response, "forgetting your saved edits").replace(/^./, (c) => c.toLowerCase())}`, "error");
    }
  };

  runButton.addEventListener("click", (event) => {
    event.preventDefault();
    run();
  });
  if (resetButton) {
    resetButton.addEventListener("click", (event) => {
      event.preventDefault();
      reset();
    });
  }
  setLocked(section.dataset.locked === "true");

  const onChange = (code) => {
    if (!quiet && saver) saver.onChange(code);
  };
  const started = readOnly
    ? Promise.resolve(shownCode(parts))
    : startEditor(parts, {doc: original, label, onRun: () => run(), onChange});
  const ready = startUp(started.then((made) => {
    editor = made;
    section.classList.add("runnable--live");
    return controller;
  }));

  const controller = {
    section,
    ready,
    run,
    reset,
    getCode: () => (editor ? editor.getCode() : original),
    /** Put saved edits back (from the progress store) without saving them again. */
    restoreCode(code) {
      if (typeof code !== "string" || !editor) return;
      if (editor.getCode() !== original) return; // typed into before the progress arrived
      setCodeQuietly(code);
      if (saver) saver.restored(code);
    },
    /** Show a run's answer (POST /api/run's shape) as if Run had made it. */
    show(result) {
      if (editor && result && typeof result === "object") setStatus(...output.render(result, editor));
    },
    setLocked,
    isLocked: () => locked,
    focus: () => editor && editor.focus(),
    get editor() {
      return editor;
    },
    state: {section, lesson, step},
  };
  controllers.set(section, controller);
  return controller;
}
