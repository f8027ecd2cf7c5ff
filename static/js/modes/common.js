// Shared by the learning-mode pages (/lessons/SLUG/MODE, /review): small helpers on top of
// ../runnable.js, and the per-element feedback for a typed .grad value.
//
//   lessonUrl(slug, ...parts)                -> "/api/lessons/SLUG/part/part" (parts encoded)
//   setServerHtml(node, html)                -> node (only for *_html fields from the server)
//   plural(n, word)                          -> "1 item", "3 items"
//   focusTarget(node)                        -> focus a heading or region without a visible jump
//   renderValueFeedback(box, result, opts)   -> fill a live region with a graded value
//
// Importing this module also brings Alt+Shift+Arrow navigation between lessons (lesson.js
// binds it; it follows the page's rel=prev/next links).

import {el} from "../runnable.js";
import {formatTensorValue} from "../inspector.js";
import "../lesson.js";

export {apiFetch, el, networkMessage, withInlineCode} from "../runnable.js";

export function lessonUrl(slug, ...parts) {
  return ["/api/lessons", slug, ...parts].map((part, i) => (i === 0 ? part : encodeURIComponent(part))).join("/");
}

export function setServerHtml(node, html) {
  node.innerHTML = typeof html === "string" ? html : "";
  return node;
}

export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

export function focusTarget(node) {
  if (!node) return;
  if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "-1");
  node.focus({preventScroll: true});
  node.scrollIntoView({block: "nearest", behavior: "smooth"});
}

function ensureStop(text) {
  const trimmed = String(text).trim();
  return /[.!?…)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function describeShape(shape) {
  if (!Array.isArray(shape)) return "an unknown shape";
  if (shape.length === 0) return "a single number";
  const count = shape.reduce((a, b) => a * b, 1);
  return `shape [${shape.join(", ")}] (${plural(count, "number")})`;
}

/**
 * A typed .grad value, graded by the server ({correct, parsed, problem, shape_ok,
 * expected_shape, your_shape, elements, expected}): right/wrong, why, one mark per element,
 * and the answer when the server sent it.
 */
export function renderValueFeedback(box, result, {tensor = "", revealed = false, typed = true, extra = null} = {}) {
  box.replaceChildren();
  const correct = Boolean(result.correct);
  box.dataset.result = correct ? "right" : (revealed ? "revealed" : "wrong");
  let title = correct ? "Right." : "Not yet.";
  if (revealed && !correct) title = typed ? "Not quite. Here is the answer." : "Here is the answer.";
  box.append(el("p", {class: "feedback-title"}, title));
  const elements = Array.isArray(result.elements) ? result.elements : [];
  if (typed && result.parsed === false) {
    box.append(el("p", {class: "value-problem"},
      `That could not be read: ${ensureStop(result.problem || "type a number or a list of numbers")}`));
  } else if (typed && result.shape_ok === false && result.your_shape) {
    box.append(el("p", {class: "value-problem"},
      `The shape does not match: you typed ${describeShape(result.your_shape)}, `
      + `the gradient has ${describeShape(result.expected_shape)}.`));
  } else if (typed && !correct && result.problem && elements.length === 0) {
    box.append(el("p", {class: "value-problem"}, ensureStop(result.problem)));
  } else if (typed && !correct && elements.length > 0) {
    const right = elements.filter(Boolean).length;
    const summary = el("p", {class: "value-summary"}, elements.length === 1
      ? "That number is not right."
      : `The shape is right; ${right} of ${elements.length} numbers are right:`);
    box.append(summary);
    if (elements.length > 1) {
      summary.id = `vs-${Math.random().toString(36).slice(2)}`;
      const list = el("ol", {class: "value-elements", "aria-labelledby": summary.id});
      elements.slice(0, 64).forEach((ok, i) => {
        list.append(el("li", {class: ok ? "value-el value-el--ok" : "value-el value-el--bad"},
          el("span", {class: "value-el-index"}, `#${i + 1}`),
          el("span", {class: "value-el-mark", "aria-hidden": "true"}, ok ? "✓" : "✗"),
          el("span", {class: "visually-hidden"}, ok ? "right" : "wrong")));
      });
      box.append(list);
    }
  }
  if (result.expected !== null && result.expected !== undefined) {
    box.append(el("p", {class: "feedback-answer"}, el("strong", {}, "Answer: "),
      el("code", {}, `${tensor ? `${tensor}.grad = ` : ""}${formatTensorValue(result.expected)}`)));
  }
  if (extra) box.append(extra);
}
