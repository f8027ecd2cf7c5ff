// Runnable code cells: an editor, Run/Reset, and the output of POST /api/run
// (stdout, stderr, the error with its hint, the .grad inspector, the graph).
// Shared by the lesson page (lesson.js) and the playground (playground.js).
//
//   mountRunnable(section, {lesson, step, save, label})  -> controller
//   whenEditorReady()                                   -> Promise<GradlabEditor|null>
//   apiFetch(url, {method, body})                       -> Promise<{ok, status, data, detail, headers}>
//   networkMessage(response)                            -> text for a failed apiFetch
//
// Markup (rendered by the server): see helper-notes/frontend-contract.md.
// Everything that is not an explicit *_html field from the server goes in
// with textContent.

import {renderInspector} from "./inspector.js";
import {renderGraph} from "./graph.js";
import {renderBackwardWalk} from "./backward-walk.js";

const SAVE_DELAY_MS = 800;
const RUN_CLIENT_TIMEOUT_MS = 90_000; // the sandbox's own limit is far lower
const EDITOR_WAIT_MS = 4000;

let uidCounter = 0;
const uid = (prefix) => `${prefix}-${++uidCounter}`;

// ---- Small helpers --------------------------------------------------------

/** Create an element: el("p", {class: "x"}, "text", child, ...). Text is always text. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

const isMac = () => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");

/**
 * fetch() a JSON endpoint of this site. Never throws: network failures come
 * back as {ok: false, status: 0}. `detail` is the server's {"detail": ...}
 * as text (FastAPI's 422 lists are flattened).
 */
export async function apiFetch(url, {method = "GET", body, timeoutMs = 30_000, keepalive = false} = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const init = {
    method,
    credentials: "same-origin",
    headers: {Accept: "application/json"},
    signal: controller.signal,
    keepalive,
  };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const response = await fetch(url, init);
    let data = null;
    const text = await response.text();
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    return {
      ok: response.ok,
      status: response.status,
      data,
      detail: detailText(data, text),
      headers: response.headers,
    };
  } catch (error) {
    const timedOut = error && error.name === "AbortError";
    return {ok: false, status: 0, data: null, detail: "", headers: null, timedOut};
  } finally {
    clearTimeout(timer);
  }
}

function detailText(data, rawText) {
  const detail = data && typeof data === "object" ? data.detail : null;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((item) => (item && item.msg ? String(item.msg) : JSON.stringify(item))).join("; ");
  }
  if (detail) return JSON.stringify(detail);
  // A proxy's HTML error page is no use to a learner; a short text body may be.
  if (rawText && rawText.length < 300 && !/^\s*</.test(rawText)) return rawText.trim();
  return "";
}

/** A sentence for an apiFetch answer that is not ok, for a live region. */
export function networkMessage(response, what = "The request") {
  if (response.status === 0) {
    return response.timedOut
      ? `${what} took too long: the server did not answer. Try again.`
      : "Could not reach the server. Check your connection and try again.";
  }
  const detail = response.detail ? ` ${ensureStop(response.detail)}` : "";
  if (response.status === 503) return `The server is busy right now.${detail} Try again in a moment.`;
  if (response.status === 404) return `${what} failed: not found.${detail}`;
  if (response.status >= 500) return `${what} failed: the server had a problem (HTTP ${response.status}).${detail}`;
  return `${what} failed (HTTP ${response.status}).${detail}`;
}

function ensureStop(text) {
  const trimmed = String(text).trim();
  return /[.!?…)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

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

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function formatDuration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

function retryAfterSeconds(headers) {
  const raw = headers && headers.get("Retry-After");
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(1, Math.round(seconds));
  const date = Date.parse(raw);
  if (Number.isFinite(date)) return Math.max(1, Math.round((date - Date.now()) / 1000));
  return null;
}

// ---- The runnable cell ----------------------------------------------------

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
 * Returns a controller: {ready (Promise), run(), reset(), getCode(),
 * restoreCode(code), setLocked(bool), isLocked(), focus(), section}.
 */
export function mountRunnable(section, options = {}) {
  const lesson = options.lesson ?? null;
  const stepAttr = section.dataset.step;
  const step = options.step ?? (stepAttr !== undefined && stepAttr !== "" ? Number(stepAttr) : null);
  const save = options.save ?? Boolean(lesson && step);
  // Every editor is named "Code editor"; its section (a labelled region) says which step.
  const label = options.label ?? "Code editor";

  const q = (selector) => section.querySelector(selector);
  const source = q(".runnable-source");
  // The lesson's code, without the final newline (the editor would show it as an empty line).
  const original = (source ? source.value : (q("pre.code")?.textContent ?? "")).replace(/\n$/, "");
  const staticCopy = q("pre.highlight, pre.code");
  let host = q(".editor-host");
  if (!host) {
    host = el("div", {class: "editor-host"});
    const anchor = staticCopy ?? source;
    if (anchor) anchor.after(host);
    else section.prepend(host);
  }
  const toolbar = q(".run-toolbar") ?? section.appendChild(el("div", {class: "run-toolbar"}));
  const runButton = q(".btn-run") ?? toolbar.appendChild(el("button", {type: "button", class: "btn btn-run"}, "Run"));
  const resetButton = q(".btn-reset") ?? toolbar.appendChild(el("button", {type: "button", class: "btn btn-reset"}, "Reset"));
  const status = q(".run-status") ?? toolbar.appendChild(el("span", {class: "run-status", role: "status"}));
  const output = q(".run-output");
  const panes = {
    stdout: q(".run-stdout"),
    stderr: q(".run-stderr"),
    truncated: q(".run-truncated"),
    hint: q(".error-hint"),
    hintTitle: q(".error-hint-title"),
    hintMessage: q(".error-hint-message"),
    hintText: q(".error-hint-text"),
    inspector: q(".inspector"),
    graph: q(".graph"),
    walk: q(".backward-walk"),
  };

  // Names for the panes, so a screen reader can tell them apart, and a tab
  // stop for each scrollable one (a keyboard can only scroll what it focuses).
  if (panes.stdout) labelPane(panes.stdout, "Output");
  if (panes.stderr) labelPane(panes.stderr, "Errors (stderr)");
  // The buttons are named "Run" and "Reset"; the section's label says which step they belong to.

  // The note shown while the step's prediction is not committed yet.
  const lockNote = el("p", {class: "run-lock-note", id: uid("run-lock"), hidden: true},
    "Commit your prediction to run this code.");
  toolbar.after(lockNote);
  // Where saving reports itself; not live: saving is routine, only failures are announced.
  const saveStatus = el("span", {class: "save-status"});
  toolbar.append(saveStatus);

  const help = el("p", {class: "editor-help", id: uid("editor-help")},
    el("kbd", {}, isMac() ? "⌘" : "Ctrl"), "+", el("kbd", {}, "Enter"), " runs the code. ",
    el("kbd", {}, "Esc"), " then ", el("kbd", {}, "Tab"), " leaves the editor.");
  host.after(help);

  let editor = null;
  let locked = false;
  let running = false;
  let saveTimer = null;
  let pendingSave = null;   // code waiting for the debounce
  let lastSaved = null;     // the code the server holds (null: the original)
  let quiet = false;        // true while the code is set by us, not typed

  const state = {section, lesson, step};

  // ---- Status and busy state ----
  const setStatus = (text, kind = "") => {
    status.textContent = text;
    if (kind) status.dataset.status = kind;
    else delete status.dataset.status;
  };

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

  // ---- Saving edits ----
  // Saves and deletes go out one at a time, in order: an older PUT can never land last.
  let saveChain = Promise.resolve();
  const inOrder = (task) => {
    const next = saveChain.then(task, task);
    saveChain = next.catch(() => {});
    return next;
  };

  const putCode = (code) => inOrder(async () => {
    const url = `/api/lessons/${encodeURIComponent(lesson)}/steps/${step}/code`;
    const isOriginal = code === original;
    const response = isOriginal
      ? await apiFetch(url, {method: "DELETE"})
      : await apiFetch(url, {method: "PUT", body: {code}});
    if (response.ok) {
      lastSaved = isOriginal ? null : code;
      if (pendingSave === null) {
        saveStatus.textContent = isOriginal ? "" : "Edits saved";
        saveStatus.dataset.state = "saved";
      }
      if (options.onSaved) options.onSaved(isOriginal ? null : code);
    } else {
      saveStatus.textContent = "Not saved";
      saveStatus.dataset.state = "error";
      const message = response.status === 413
        ? "Your edits are too long to save; they stay in this page only."
        : networkMessage(response, "Saving your edits");
      if (!running) setStatus(message, "error");
    }
    return response.ok;
  });

  const flushSave = (keepalive = false) => {
    clearTimeout(saveTimer);
    saveTimer = null;
    if (pendingSave === null) return null;
    const code = pendingSave;
    pendingSave = null;
    if (keepalive) {
      // The page is going away: fire and forget, the browser finishes it.
      const url = `/api/lessons/${encodeURIComponent(lesson)}/steps/${step}/code`;
      if (code === original) {
        fetch(url, {method: "DELETE", credentials: "same-origin", keepalive: true}).catch(() => {});
      } else if (code.length < 60_000) { // keepalive bodies are capped at 64 KiB
        fetch(url, {
          method: "PUT", credentials: "same-origin", keepalive: true,
          headers: {"Content-Type": "application/json"}, body: JSON.stringify({code}),
        }).catch(() => {});
      }
      return null;
    }
    return putCode(code);
  };

  const onChange = (code) => {
    if (quiet || !save) return;
    if (code === (lastSaved ?? original)) {
      pendingSave = null;
      clearTimeout(saveTimer);
      return;
    }
    pendingSave = code;
    saveStatus.textContent = "Saving…";
    saveStatus.dataset.state = "pending";
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => flushSave(), SAVE_DELAY_MS);
  };

  if (save) {
    window.addEventListener("pagehide", () => flushSave(true));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") flushSave(true);
    });
  }

  const setCodeQuietly = (code) => {
    if (!editor) return;
    quiet = true;
    try {
      editor.setCode(code);
    } finally {
      quiet = false;
    }
  };

  // ---- Output ----
  const clearOutput = () => {
    if (output) delete output.dataset.stale;
    for (const key of ["stdout", "stderr", "truncated", "hintTitle", "hintMessage", "hintText"]) {
      if (panes[key]) panes[key].textContent = "";
    }
    if (panes.hint) panes.hint.hidden = true;
    if (panes.inspector) panes.inspector.replaceChildren();
    if (panes.graph) panes.graph.replaceChildren();
    if (panes.walk) renderBackwardWalk(panes.walk, null);
  };

  const showHint = (title, message, hint, hintLesson) => {
    if (!panes.hint) return;
    if (panes.hintTitle) panes.hintTitle.textContent = title;
    if (panes.hintMessage) panes.hintMessage.textContent = message || "";
    if (panes.hintText) {
      panes.hintText.replaceChildren();
      if (hint) panes.hintText.append(...withInlineCode(hint));
      if (hintLesson) {
        const link = el("a", {href: `/lessons/${encodeURIComponent(hintLesson)}`}, "the lesson that explains it");
        panes.hintText.append(hint ? " " : "", "Read ", link, ".");
      }
    }
    panes.hint.hidden = false;
  };

  const renderResult = (result) => {
    clearOutput();
    if (output) output.hidden = false; // before drawing: the graph needs a layout
    const statusName = String(result.status || "");
    if (panes.stdout) panes.stdout.textContent = result.stdout || "";
    if (panes.stderr) panes.stderr.textContent = result.stderr || "";
    if (panes.truncated) {
      panes.truncated.textContent = result.truncated
        ? "The output was cut short: the snippet printed more than a run may keep."
        : "";
    }

    const error = result.error || null;
    const line = error && Number.isInteger(error.line) ? error.line : null;
    const highlighted = line !== null && editor ? editor.highlightLine(line) : false;
    if (!highlighted && editor) editor.highlightLine(null);

    if (statusName === "error" && error) {
      const where = line !== null ? ` on line ${line}` : "";
      showHint(`${error.type || "Error"}${where}`, error.message, error.hint, error.lesson);
    } else if (statusName === "timeout") {
      showHint("Stopped: the time limit ran out",
        error?.message || "The snippet ran longer than a run may take and was stopped.",
        error?.hint || "Look for a loop that never ends, or make the work smaller.", error?.lesson);
    } else if (statusName === "memory") {
      showHint("Stopped: the memory limit was reached",
        error?.message || "The snippet asked for more memory than a run may use.",
        error?.hint || "Work with smaller tensors.", error?.lesson);
    } else if (statusName === "killed") {
      showHint("Stopped: the run ended abnormally",
        error?.message || "The Python process was stopped before it finished.",
        error?.hint || "The next run starts afresh.", error?.lesson);
    } else if (error) {
      showHint(error.type || "Error", error.message, error.hint, error.lesson);
    }

    const tensors = Array.isArray(result.tensors) ? result.tensors : [];
    if (panes.inspector && (statusName === "ok" || tensors.length > 0)) {
      renderInspector(panes.inspector, tensors);
    }
    if (panes.graph && (statusName === "ok" || tensors.length > 0)) {
      renderGraph(panes.graph, result.graph);
      if (result.graph && result.graph.truncated) {
        panes.graph.append(el("p", {class: "graph-truncated"},
          "The graph is too large to draw in full: only part of it is shown."));
      }
    }
    if (panes.walk) renderBackwardWalk(panes.walk, result.backward);

    const took = formatDuration(result.duration_ms);
    const tookText = took ? ` in ${took}` : "";
    switch (statusName) {
      case "ok": {
        const count = tensors.length ? `; ${plural(tensors.length, "tensor")} to inspect below` : "";
        setStatus(`Ran${tookText}${count}.`, "ok");
        break;
      }
      case "error":
        setStatus(`Raised ${error?.type || "an error"}${line !== null ? ` on line ${line}` : ""}.`, "error");
        break;
      case "timeout":
        setStatus("Stopped: it ran out of time.", "timeout");
        break;
      case "memory":
        setStatus("Stopped: it ran out of memory.", "memory");
        break;
      case "killed":
        setStatus("Stopped: the run ended abnormally.", "killed");
        break;
      default:
        setStatus(`Finished${tookText}.`, "");
    }
  };

  // ---- Run ----
  const run = async () => {
    if (running) return;
    if (locked) {
      setStatus("Commit your prediction above to run this code.", "locked");
      return;
    }
    if (!editor) return;
    const code = editor.getCode();
    setBusy(true);
    editor.highlightLine(null);
    setStatus("Running…", "running");
    const body = {code};
    if (lesson) body.lesson = lesson;
    if (step !== null && Number.isInteger(step)) body.step = step;
    const response = await apiFetch("/api/run", {method: "POST", body, timeoutMs: RUN_CLIENT_TIMEOUT_MS});
    setBusy(false);

    if (response.ok && response.data && typeof response.data === "object") {
      renderResult(response.data);
      if (options.onRun) options.onRun(response.data, response);
      // Running counts as "reading on": save edits now rather than later.
      if (save && pendingSave !== null) flushSave();
      return;
    }
    // The code did not run: what is shown below (if anything) is from an earlier run.
    const stale = output && !output.hidden;
    if (stale) output.dataset.stale = "true";
    const staleNote = stale ? " The output below is from the previous run." : "";
    if (response.status === 413) {
      setStatus(`This code is too long to run. ${response.detail ? `${ensureStop(response.detail)} ` : ""}`
        + `Shorten it and run again.${staleNote}`, "error");
    } else if (response.status === 503) {
      const seconds = retryAfterSeconds(response.headers);
      const wait = seconds ? `Try again in ${plural(seconds, "second")}.` : "Try again in a moment.";
      const detail = response.detail ? `${ensureStop(response.detail)} ` : "";
      setStatus(`The code did not run: the server is busy with other people's code. ${detail}${wait}${staleNote}`, "busy");
    } else if (response.status === 422) {
      setStatus(`The server could not read this request. ${ensureStop(response.detail || "Invalid request")}${staleNote}`, "error");
    } else {
      setStatus(`${networkMessage(response, "Running the code")}${staleNote}`, "error");
    }
    if (options.onRun) options.onRun(null, response);
  };

  // ---- Reset ----
  const reset = async () => {
    if (!editor) return;
    clearTimeout(saveTimer);
    pendingSave = null;
    setCodeQuietly(original);
    editor.highlightLine(null);
    saveStatus.textContent = "";
    delete saveStatus.dataset.state;
    if (!save) {
      setStatus("Code reset to the original.", "");
      return;
    }
    const response = await inOrder(() => apiFetch(
      `/api/lessons/${encodeURIComponent(lesson)}/steps/${step}/code`, {method: "DELETE"}));
    if (response.ok || response.status === 404) {
      lastSaved = null;
      setStatus("Code reset to the lesson's original.", "");
      if (options.onSaved) options.onSaved(null);
    } else {
      setStatus(`The code is reset here, but ${networkMessage(response, "forgetting your saved edits").replace(/^./, (c) => c.toLowerCase())}`, "error");
    }
  };

  runButton.addEventListener("click", (event) => {
    event.preventDefault();
    run();
  });
  resetButton.addEventListener("click", (event) => {
    event.preventDefault();
    reset();
  });

  setLocked(section.dataset.locked === "true");

  // ---- Editor ----
  const ready = whenEditorReady().then((factory) => {
    const editorOptions = {doc: original, label, onRun: () => run(), onChange};
    if (factory) {
      try {
        editor = factory.create(host, editorOptions);
      } catch (error) {
        console.error("gradlab: the code editor failed to start", error);
        editor = null;
      }
    }
    if (!editor) {
      editor = createFallbackEditor(host, editorOptions);
      help.replaceChildren(el("kbd", {}, isMac() ? "⌘" : "Ctrl"), "+", el("kbd", {}, "Enter"), " runs the code.");
    }
    // The editor replaces the static, highlighted copy of the code.
    if (staticCopy) staticCopy.hidden = true;
    section.classList.add("runnable--live");
    return controller;
  });

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
      lastSaved = code === original ? null : code;
      setCodeQuietly(code);
      if (code !== original) {
        saveStatus.textContent = "Your edits are restored; Reset brings back the original";
        saveStatus.dataset.state = "restored";
      }
    },
    setLocked,
    isLocked: () => locked,
    focus: () => editor && editor.focus(),
    get editor() {
      return editor;
    },
    state,
  };
  return controller;
}

/** Text with `backtick` spans as <code> elements (built as nodes: never HTML). */
export function withInlineCode(text) {
  const parts = String(text).split(/`([^`\n]+)`/);
  return parts.map((part, i) => (i % 2 === 1 ? el("code", {}, part) : part)).filter((part) => part !== "");
}

function labelPane(pane, name) {
  pane.setAttribute("role", "region");
  pane.setAttribute("aria-label", name);
  pane.setAttribute("tabindex", "0");
}
