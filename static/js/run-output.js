// The output renderers of a runnable cell: stdout, stderr, the error with its hint, the
// .grad inspector, the autograd graph and the backward walk of one POST /api/run result. Text is always text.
//
//   createOutput(section)            -> {clear(), render(result, editor) -> status, markStale()}
//   resultStatus(result)             -> [text, kind] for the cell's status line
//   withInlineCode(text)             -> nodes: `backtick` spans as <code>

import {renderBackwardWalk} from "./backward-walk.js";
import {renderGraph} from "./graph.js";
import {renderInspector} from "./inspector.js";
import {el, plural} from "./util.js";

export function withInlineCode(text) {
  const parts = String(text).split(/`([^`\n]+)`/);
  return parts.map((part, i) => (i % 2 === 1 ? el("code", {}, part) : part)).filter((part) => part !== "");
}

function formatDuration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

function labelPane(pane, name) {
  pane.setAttribute("role", "region");
  pane.setAttribute("aria-label", name);
  pane.setAttribute("tabindex", "0");
}

const STOPPED = {
  timeout: ["Stopped: the time limit ran out", "The snippet ran longer than a run may take and was stopped.",
    "Look for a loop that never ends, or make the work smaller."],
  memory: ["Stopped: the memory limit was reached", "The snippet asked for more memory than a run may use.",
    "Work with smaller tensors."],
  killed: ["Stopped: the run ended abnormally", "The Python process was stopped before it finished.",
    "The next run starts afresh."],
};

const STOPPED_STATUS = {
  timeout: "Stopped: it ran out of time.",
  memory: "Stopped: it ran out of memory.",
  killed: "Stopped: the run ended abnormally.",
};

function errorLine(result) {
  const error = result.error || null;
  return error && Number.isInteger(error.line) ? error.line : null;
}

/** The status line after a finished run: [text, kind]. */
export function resultStatus(result) {
  const name = String(result.status || "");
  const took = formatDuration(result.duration_ms);
  const tookText = took ? ` in ${took}` : "";
  const tensors = Array.isArray(result.tensors) ? result.tensors : [];
  if (name === "ok") {
    const count = tensors.length ? `; ${plural(tensors.length, "tensor")} to inspect below` : "";
    return [`Ran${tookText}${count}.`, "ok"];
  }
  if (name === "error") {
    const line = errorLine(result);
    return [`Raised ${result.error?.type || "an error"}${line !== null ? ` on line ${line}` : ""}.`, "error"];
  }
  if (STOPPED_STATUS[name]) return [STOPPED_STATUS[name], name];
  return [`Finished${tookText}.`, ""];
}

export function createOutput(section) {
  const q = (selector) => section.querySelector(selector);
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
  // Names for the panes, so a screen reader can tell them apart, and a tab stop for each
  // scrollable one (a keyboard can only scroll what it focuses).
  if (panes.stdout) labelPane(panes.stdout, "Output");
  if (panes.stderr) labelPane(panes.stderr, "Errors (stderr)");

  const clear = () => {
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

  const renderError = (result) => {
    const name = String(result.status || "");
    const error = result.error || null;
    const line = errorLine(result);
    if (name === "error" && error) {
      const where = line !== null ? ` on line ${line}` : "";
      showHint(`${error.type || "Error"}${where}`, error.message, error.hint, error.lesson);
    } else if (STOPPED[name]) {
      const [title, message, hint] = STOPPED[name];
      showHint(title, error?.message || message, error?.hint || hint, error?.lesson);
    } else if (error) {
      showHint(error.type || "Error", error.message, error.hint, error.lesson);
    }
  };

  const renderTensors = (result) => {
    const tensors = Array.isArray(result.tensors) ? result.tensors : [];
    if (result.status !== "ok" && tensors.length === 0) return;
    if (panes.inspector) renderInspector(panes.inspector, tensors, result.backward);
    if (panes.graph) {
      renderGraph(panes.graph, result.graph);
      if (result.graph && result.graph.truncated) {
        panes.graph.append(el("p", {class: "graph-truncated"},
          "The graph is too large to draw in full: only part of it is shown."));
      }
    }
  };

  const render = (result, editor) => {
    clear();
    if (output) output.hidden = false; // before drawing: the graph needs a layout
    if (panes.stdout) panes.stdout.textContent = result.stdout || "";
    if (panes.stderr) panes.stderr.textContent = result.stderr || "";
    if (panes.truncated) {
      panes.truncated.textContent = result.truncated
        ? "The output was cut short: the snippet printed more than a run may keep."
        : "";
    }
    const line = errorLine(result);
    const highlighted = line !== null && editor ? editor.highlightLine(line) : false;
    if (!highlighted && editor) editor.highlightLine(null);
    renderError(result);
    renderTensors(result);
    if (panes.walk) renderBackwardWalk(panes.walk, result.backward);
    return resultStatus(result);
  };

  /** The code did not run: mark what is shown as from an earlier run; true if anything is. */
  const markStale = () => {
    const stale = Boolean(output && !output.hidden);
    if (stale) output.dataset.stale = "true";
    return stale;
  };

  return {clear, render, markStale};
}
