// The typed-value widget: type the value of a tensor's .grad; the server grades it element by
// element (value-feedback.js draws the verdict). Used by the deep dive and step by step (a
// step's value question), predict the gradient (drills) and review.
//
//   mountValue(root, options) -> {restore(saved)}
//     root       a form (or what holds one) with an input named "value", a submit button and,
//                where the answer may be asked for, a .show-answer button; the form's
//                .value-feedback (made when missing) is the live region, unless `feedback` is
//                given
//     url        where {value, reveal} is sent
//     tensor     the tensor's name (default: root's data-tensor)
//     read(data) the graded value in the server's answer (default: the answer itself); a value
//                that could not be read ({graded: false}) leaves the question open
//     holder     what holds the question: its confidence fieldset (asked first, when there is
//                one) and its busy state (default: root)
//     once       a graded answer closes the form, and a wrong one shows the answer (review)
//     extra(result)                  a node to end the verdict with, or null
//     onAnswer(result, {reveal, value, data, settled, restored})   after a graded verdict
//                                    (result null: answered already, elsewhere), and after a
//                                    restored value that settled the question; `settled`: right,
//                                    or the answer shown (the question is done with)
//
//   settles(saved)   has a saved value settled the question (right, or the answer shown)?

import {renderStepReveal} from "../reveals.js";
import {el, uid} from "../util.js";
import {askForValue, renderValueFeedback} from "../value-feedback.js";
import {sendAnswer, showVerdict} from "./answer.js";

function describeBy(node, id) {
  const ids = new Set((node.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean));
  ids.add(id);
  node.setAttribute("aria-describedby", [...ids].join(" "));
}

export function mountValue(root, {feedback = null, url, holder = root, tensor = root.dataset.tensor, read = (data) => data, once = false, extra = null, onAnswer = () => {}}) {
  const form = root.matches("form") ? root : root.querySelector("form");
  const input = form.querySelector('input[name="value"]') ?? form.querySelector("input");
  const check = form.querySelector('button[type="submit"]');
  const show = form.querySelector(".show-answer");
  const box = feedback ?? form.querySelector(".value-feedback")
    ?? form.appendChild(el("div", {class: "value-feedback", role: "status", "aria-live": "polite"}));
  box.classList.add("verdict"); // the one look of a verdict (interactive.css)
  box.id ||= uid("value-feedback");
  if (input) describeBy(input, box.id);
  const label = form.querySelector("label");
  if (label) {
    label.id ||= uid("value-label");
    for (const button of [check, show]) if (button) describeBy(button, label.id);
  }
  let busy = false;

  const close = () => {
    for (const control of [input, check, show]) if (control) control.disabled = true;
    holder.querySelector("fieldset.confidence")?.setAttribute("disabled", "");
  };

  const send = async (reveal, trigger) => {
    if (busy) return;
    const value = input ? input.value.trim() : "";
    if (!reveal && value === "") {
      askForValue(box, input);
      return;
    }
    busy = true;
    const sent = await sendAnswer({
      holder, feedback: box, what: reveal ? "Fetching the answer" : "Checking your value",
      url, body: {value, reveal},
    });
    busy = false;
    if (!sent) return;
    if (sent.already) {
      close();
      onAnswer(null, {reveal, value, data: null, settled: false});
      return;
    }
    const result = read(sent.data);
    renderValueFeedback(box, result, {tensor, revealed: (reveal || (once && result.graded !== false)) && !result.correct, typed: value !== "", extra: extra ? extra(result) : null});
    if (result.step) renderStepReveal(form.closest(".step")?.querySelector(".step-reveal"), result.step);
    if (input) {
      if (result.correct || reveal) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
    }
    if (result.graded === false) return; // unreadable: nothing counted, type again
    form.dataset.correct = result.correct ? "true" : "false";
    if (result.correct || reveal) form.dataset.committed = "true"; // done with, as a commit is
    if (once) close();
    onAnswer(result, {reveal, value, data: sent.data, settled: Boolean(result.correct || reveal)});
    // Focus stays where it was (the input after Enter, or the clicked button), unless it is gone.
    if (trigger && (document.activeElement === document.body || trigger.disabled)) {
      (trigger.disabled ? box.querySelector(".feedback-title") : trigger)?.focus();
    }
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(false, event.submitter ?? check);
  });
  show?.addEventListener("click", () => send(true, show));
  input?.addEventListener("input", () => input.removeAttribute("aria-invalid"));

  return {
    regions: [box],
    /** A value from the progress store: {value, correct, step}. */
    restore(saved) {
      if (!saved || typeof saved.value !== "string") return;
      if (input) input.value = saved.value;
      if (saved.step) renderStepReveal(form.closest(".step")?.querySelector(".step-reveal"), saved.step);
      if (settles(saved)) {
        form.dataset.committed = "true";
        onAnswer(null, {reveal: saved.revealed, value: saved.value, data: null, settled: true, restored: true});
      }
      if (!saved.correct) return;
      form.dataset.correct = "true";
      showVerdict(box, "right", "Correct.");
      box.append(el("p", {class: "feedback-meta"}, "You answered ", el("code", {}, saved.value), " earlier."));
    },
  };
}

export function settles(saved) {
  return Boolean(saved && (saved.correct || saved.revealed));
}
