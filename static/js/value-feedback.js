// Feedback on a typed .grad value, graded by the server, drawn by the value widget
// (widgets/value.js) on the lesson page, the drills and the review queue.
//
//   renderValueFeedback(box, result, {tensor, revealed, typed, extra})
//     result: {correct, parsed, problem, shape_ok, expected_shape, your_shape, elements,
//              expected, explanation_html, why_html}
//   setServerHtml(node, html)   trusted HTML from the server (rendered lesson Markdown)
//   ensureStop(text), describeShape(shape)

import {icon} from "./icons.js";
import {el, ensureStop, setServerHtml} from "./util.js";
import {formatTensorValue} from "./inspector.js";
import {showVerdict} from "./widgets/answer.js";

export {ensureStop, setServerHtml};

/** An empty value answer: say what to type and put the learner back in the field. */
export function askForValue(feedback, input) {
  showVerdict(feedback, "wrong");
  feedback.append(el("p", {class: "value-problem"}, "Type a value first, for example ",
    el("code", {}, "4.0"), " or ", el("code", {}, "[4, 6]"), "."));
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}

export function describeShape(shape) {
  if (!Array.isArray(shape)) return "an unknown shape";
  if (shape.length === 0) return "a single number (shape [])";
  const count = shape.reduce((a, b) => a * b, 1);
  return `shape [${shape.join(", ")}] (${count} number${count === 1 ? "" : "s"})`;
}

let summaries = 0;

/**
 * Right or wrong, why (unreadable, wrong shape, which elements), and the answer and its
 * explanation when the server sent them (after a right answer or "Show answer").
 */
export function renderValueFeedback(box, result, {tensor = "", revealed = false, typed = true, extra = null} = {}) {
  const correct = Boolean(result.correct);
  let title = correct ? "Right." : "Not yet.";
  if (revealed && !correct) title = typed ? "Not yet. Here is the answer." : "Here is the answer.";
  showVerdict(box, correct ? "right" : (revealed ? "revealed" : "wrong"), title);

  const elements = Array.isArray(result.elements) ? result.elements : [];
  if (typed && result.parsed === false) {
    box.append(result.problem
      ? el("p", {class: "value-problem"}, `That could not be read: ${ensureStop(result.problem)}`)
      : el("p", {class: "value-problem"},
        "That could not be read as a number or a list of numbers. Type for example ",
        el("code", {}, "4.0"), ", ", el("code", {}, "[4, 6]"), " or ", el("code", {}, "tensor([4., 6.])"), "."));
  } else if (typed && result.shape_ok === false && result.your_shape) {
    box.append(el("p", {class: "value-problem"},
      `The shape does not match: you typed ${describeShape(result.your_shape)}, `
      + `but the answer has ${describeShape(result.expected_shape)}.`));
  } else if (typed && !correct && elements.length === 0 && result.problem) {
    box.append(el("p", {class: "value-problem"}, ensureStop(result.problem)));
  } else if (typed && !correct && elements.length > 0) {
    const right = elements.filter(Boolean).length;
    summaries += 1;
    const summaryId = `value-summary-${summaries}`;
    box.append(el("p", {class: "value-summary", id: summaryId},
      elements.length === 1
        ? "That number is not right."
        : `The shape is right; ${right} of ${elements.length} numbers are right:`));
    if (elements.length > 1) {
      const shown = elements.slice(0, 64);
      const list = el("ol", {class: "value-elements", "aria-labelledby": summaryId});
      shown.forEach((ok, i) => {
        list.append(el("li", {class: ok ? "value-el value-el--ok" : "value-el value-el--bad"},
          el("span", {class: "value-el-index"}, `#${i + 1}`),
          el("span", {class: "value-el-mark", "aria-hidden": "true"}, icon(ok ? "check" : "cross")),
          el("span", {class: "visually-hidden"}, ok ? "right" : "wrong")));
      });
      box.append(list);
      if (elements.length > shown.length) {
        box.append(el("p", {class: "value-more"}, `…and ${elements.length - shown.length} more.`));
      }
    }
  }

  if (typed && !correct && result.why_html) { // the named misconception this value comes from
    const why = el("p", {class: "feedback-why-wrong"}, el("strong", {}, "Why not that value: "));
    why.append(setServerHtml(el("span"), result.why_html));
    box.append(why);
  }

  if (result.expected !== null && result.expected !== undefined) {
    const name = tensor ? `${tensor}.grad = ` : "";
    box.append(el("p", {class: "feedback-answer"}, el("strong", {}, "Answer: "),
      el("code", {}, `${name}${formatTensorValue(result.expected)}`)));
  }
  if (result.explanation_html) {
    box.append(setServerHtml(el("div", {class: "feedback-explanation"}), result.explanation_html));
  }
  if (extra) box.append(extra);
}
