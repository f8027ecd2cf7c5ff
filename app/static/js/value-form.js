// A build-up step's typed-value question ("type the value of x.grad"): its form, and how it is
// checked. The server draws the form (value_form in templates/_partials.html) when it may be
// sent; on a step that also asks a choice, that is only once the choice is committed, so the
// choice's reveal carries the question ({question_html, tensor, code}) and placeValueForm draws
// the same markup at once, without a reload. `code` is set on a step with variants: the value
// is then asked on an instance with other numbers, not on the code whose answer was just shown.
//
//   valueForm(step, question)                 the form, as the server draws it
//   placeValueForm(stepEl, step, question)    draw it into its step (once); the new form or null
//   setupValuePrediction(form, context)       wire a form: check, show the answer, restore
//   goToValueButton(stepEl, question)         "Type x.grad now": focus the form's field

import {renderStepReveal} from "./reveals.js";
import {el, lessonUrl, sendAnswer, setServerHtml, uid} from "./util.js";
import {askForValue, renderValueFeedback} from "./value-feedback.js";

/** The form for `question` ({question_html, tensor}), the same markup as value_form. */
export function valueForm(step, question) {
  const label = el("label", {}, el("strong", {}, "Your turn:"), " ");
  label.append(...setServerHtml(el("span"), question.question_html).childNodes);
  label.append(" ", el("input", {
    name: "value", autocomplete: "off", spellcheck: "false", placeholder: "a number or a list of numbers",
  }));
  // On a step with variants, the value is asked on other numbers than the step's own.
  const variant = question.code ? [el("div", {class: "value-variant"},
    el("p", {class: "value-variant-lead"}, "The same idea with other numbers:"),
    el("pre", {class: "value-code", tabindex: "0", "aria-label": "The code this value is asked on"},
      el("code", {}, question.code)))] : [];
  return el("form", {class: "value-prediction", "data-step": String(step), "data-tensor": question.tensor},
    ...variant,
    label,
    el("div", {class: "value-actions"},
      el("button", {type: "submit", class: "btn"}, "Check"), " ",
      el("button", {type: "button", class: "btn show-answer"}, "Show answer")),
    el("div", {class: "value-feedback", role: "status", "aria-live": "polite"}));
}

/** Draw the form into its step, under the step's code, unless it is there already. */
export function placeValueForm(stepEl, step, question) {
  if (!stepEl || !question || stepEl.querySelector("form.value-prediction")) return null;
  const form = valueForm(step, question);
  const code = stepEl.querySelector("section.runnable");
  const insight = stepEl.querySelector(":scope > .insight");
  if (code) code.after(form);
  else if (insight) insight.before(form);
  else stepEl.append(form);
  return form;
}

/** A button for the choice's feedback: the value form just appeared further down the step. */
export function goToValueButton(stepEl, question) {
  const button = el("button", {type: "button", class: "btn go-to-value"},
    `Type ${question.tensor}.grad now`);
  button.addEventListener("click", () => {
    const input = stepEl?.querySelector('form.value-prediction input[name="value"]');
    if (input) input.focus();
  });
  return el("p", {class: "value-next"}, button);
}

export function setupValuePrediction(form, context) {
  const step = Number(form.dataset.step || form.closest(".step")?.dataset.step);
  const input = form.querySelector('input[name="value"]') ?? form.querySelector("input");
  const check = form.querySelector('button[type="submit"]');
  const show = form.querySelector(".show-answer");
  const feedback = form.querySelector(".value-feedback")
    ?? form.appendChild(el("div", {class: "value-feedback", role: "status", "aria-live": "polite"}));
  feedback.id ||= uid("value-feedback");
  if (input) {
    const described = new Set((input.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean));
    described.add(feedback.id);
    input.setAttribute("aria-describedby", [...described].join(" "));
  }
  const labelText = form.querySelector("label")?.textContent.trim();
  if (show && labelText && !show.getAttribute("aria-describedby")) {
    const label = form.querySelector("label");
    label.id ||= uid("value-label");
    show.setAttribute("aria-describedby", label.id);
    if (check) check.setAttribute("aria-describedby", label.id);
  }
  let busy = false;

  const send = async (reveal, trigger) => {
    if (busy) return;
    const value = input ? input.value.trim() : "";
    if (!reveal && value === "") {
      askForValue(feedback, input);
      return;
    }
    busy = true;
    const result = await sendAnswer({
      holder: form, feedback, what: reveal ? "Fetching the answer" : "Checking your value",
      url: lessonUrl(context.slug, "steps", step, "value"),
      body: {value, reveal},
    });
    busy = false;
    if (!result) return;
    renderValueFeedback(feedback, result, {tensor: form.dataset.tensor, revealed: reveal && !result.correct, typed: value !== ""});
    if (result.step) renderStepReveal(form.closest(".step")?.querySelector(".step-reveal"), result.step);
    if (input) {
      if (result.correct || reveal) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
    }
    form.dataset.correct = result.correct ? "true" : "false";
    // Focus stays where it was (the input after Enter, or the clicked button).
    if (trigger && document.activeElement === document.body) trigger.focus();
    context.refreshProgress();
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(false, event.submitter ?? check);
  });
  if (show) show.addEventListener("click", () => send(true, show));
  if (input) input.addEventListener("input", () => input.removeAttribute("aria-invalid"));

  return {
    step,
    regions: [feedback],
    restore(saved) {
      if (!saved || typeof saved.value !== "string") return;
      if (input) input.value = saved.value;
      if (saved.step) renderStepReveal(form.closest(".step")?.querySelector(".step-reveal"), saved.step);
      if (saved.correct) {
        form.dataset.correct = "true";
        feedback.dataset.result = "right";
        feedback.replaceChildren(el("p", {class: "feedback-title"}, "Correct."),
          el("p", {class: "feedback-meta"}, "You answered ", el("code", {}, saved.value), " earlier."));
      }
    },
  };
}
