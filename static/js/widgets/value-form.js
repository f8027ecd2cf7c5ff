// A build-up step's typed-value question ("type the value of x.grad"): its form (answering it is
// value.js). The server draws the form (the `value_step` macro, templates/_widgets.html) when it
// may be sent; on a step that also asks a choice, that is only once the choice is committed, so
// the choice's reveal carries the question ({question_html, tensor, code}) and placeValueForm
// draws the same markup at once, without a reload: a step question that waits for the choice
// (data-waits), mounted as every step question is (lesson.js). `code` is set on a step with
// variants: the value is then asked on an instance with other numbers, not on the code whose
// answer was just shown.
//
//   valueForm(step, question)                 the form, as the server draws it
//   placeValueForm(stepEl, step, question)    draw it into its step (once); the new form or null
//   goToValueButton(stepEl, question)         "Type x.grad now": focus the form's field

import {el, setServerHtml} from "../util.js";

/** The form for `question` ({question_html, tensor}), the same markup as the `value` macro. */
export function valueForm(step, question) {
  const label = el("label", {}, el("strong", {}, "Your turn:"), " ");
  label.append(...setServerHtml(el("span"), question.question_html).childNodes);
  label.append(" ", el("input", {
    name: "value", autocomplete: "off", spellcheck: "false", autocapitalize: "off",
    placeholder: "a number or a list of numbers",
  }));
  // On a step with variants, the value is asked on other numbers than the step's own.
  const variant = question.code ? [el("div", {class: "value-variant"},
    el("p", {class: "value-variant-lead"}, "The same idea with other numbers:"),
    el("pre", {class: "value-code", tabindex: "0", "aria-label": "The code this value is asked on"},
      el("code", {}, question.code)))] : [];
  return el("form", {
    class: "value-prediction step-question", "data-widget": "value", "data-question": "value",
    "data-kind": "value", "data-step": String(step), "data-saved": "value", "data-waits": "true",
    "data-tensor": question.tensor, novalidate: true,
  },
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
