// The one way a question widget sends an answer and shows its verdict: every question kind on
// every page (choice, yes/no, typed value, flashcard rating; the pitfall fixer's check) goes
// through here, so a refusal reads the same everywhere.
//
//   sendAnswer({holder, feedback, what, url, body, waitHost, timeoutMs})
//       -> {data, confidence} | {already: true} | null
//     A holder with a confidence fieldset asks how sure first (no default: nothing is sent until
//     one is chosen). A 429 or 503 with Retry-After is waited out with a countdown in waitHost
//     (the holder unless given; postJson);
//     a 409 not-due (answered already, from another tab) settles the question; any other
//     refusal (422 Problem Details, a network failure, a 5xx) is shown in `feedback`.
//   showVerdict(box, result, title)     the verdict box: data-result right|wrong|revealed|error|
//                                       settled and its title; returns the title (a focus target)
//   showProblem(box, text)              a verdict box saying what went wrong
//   chosenConfidence(root), askForConfidence(root, feedback)
//   pressOne(buttons, chosen, chosenClass), releaseAll(buttons, classes)
//   reopenQuestion(root, {buttons, classes, box, fieldset, again, flag})
//                                       "Try again": buttons, confidence and verdict as before
//   rescueFocus(previous, target)       move focus only if the answer left it nowhere useful
//
// The verdict box's look is one rule set in interactive.css (.verdict).

import {el, networkMessage, postJson} from "../util.js";

/** Make `box` a verdict box saying `result`, emptied, with `title` (if any); returns the title. */
export function showVerdict(box, result, title = "") {
  box.classList.add("verdict");
  box.dataset.result = result;
  box.replaceChildren();
  if (!title) return null;
  // A focus target: a committed answer disables the buttons that had focus.
  const heading = el("p", {class: "feedback-title", tabindex: "-1"}, title);
  box.append(heading);
  return heading;
}

export function showProblem(box, text) {
  showVerdict(box, "error");
  box.append(el("p", {class: "feedback-error"}, text));
}

// ---- Confidence: the learner chooses, there is no default -------------------------------------

export function chosenConfidence(root) {
  return root.querySelector("fieldset.confidence input[type='radio']:checked")?.value ?? null;
}

/** A commit waits for a chosen confidence: say so in `feedback`, and put focus on the radios.
 *  The message goes as soon as one is chosen. */
export function askForConfidence(root, feedback) {
  const fieldset = root.querySelector("fieldset.confidence");
  showProblem(feedback, "First say how sure you are: Guess, Fairly sure or Certain. Then answer.");
  fieldset?.addEventListener("change", () => {
    if (feedback.dataset.result !== "error") return;
    feedback.replaceChildren();
    delete feedback.dataset.result;
  }, {once: true});
  fieldset?.querySelector("input[type='radio']")?.focus();
}

// ---- Sending ----------------------------------------------------------------------------------

function problemSlug(response) {
  const type = response.data && typeof response.data === "object" ? String(response.data.type ?? "") : "";
  return type.replace(/^.*\//, "");
}

export async function sendAnswer({holder, feedback, what = "Checking your answer", url, body, waitHost = holder, timeoutMs}) {
  let sent = body;
  let confidence = null;
  if (holder.querySelector("fieldset.confidence")) {
    confidence = chosenConfidence(holder);
    if (!confidence) {
      askForConfidence(holder, feedback);
      return null;
    }
    sent = {...body, confidence};
  }
  holder.setAttribute("aria-busy", "true");
  const response = await postJson(url, sent, {waitHost, timeoutMs});
  holder.removeAttribute("aria-busy");
  if (response.ok && response.data) return {data: response.data, confidence};
  if (response.status === 409 && problemSlug(response) === "not-due") {
    showVerdict(feedback, "settled");
    feedback.append(el("p", {class: "feedback-meta"}, "You answered this one already."));
    return {already: true};
  }
  showProblem(feedback, networkMessage(response, what));
  return null;
}

// ---- Buttons ----------------------------------------------------------------------------------

/** One button of a group was pressed: all are disabled, `chosen` marked as pressed. */
export function pressOne(buttons, chosen, chosenClass) {
  for (const button of buttons) {
    button.disabled = true;
    button.setAttribute("aria-pressed", String(button === chosen));
    button.classList.toggle(chosenClass, button === chosen);
  }
}

/** "Try again" or a fresh round: the group can be pressed again. */
export function releaseAll(buttons, classes) {
  for (const button of buttons) {
    button.disabled = false;
    button.removeAttribute("aria-pressed");
    button.classList.remove(...classes);
  }
}

/** A committed question asked again ("Try again"): its buttons released, its verdict box
 *  emptied, its confidence open, `root.dataset[flag]` gone, the Try again button hidden. */
export function reopenQuestion(root, {buttons, classes, box, fieldset, again, flag}) {
  releaseAll(buttons, classes);
  box.replaceChildren();
  delete box.dataset.result;
  if (fieldset) fieldset.disabled = false;
  delete root.dataset[flag];
  if (again) again.hidden = true;
}

/** Move focus to `target` only if the action left it nowhere useful. */
export function rescueFocus(previous, target) {
  const active = document.activeElement;
  const lost = !active || active === document.body || active === previous
    || (active instanceof HTMLButtonElement && active.disabled);
  if (lost && target) target.focus({preventScroll: false});
}

/** A "Try again" button after `feedback` (the server's, or a new one). */
export function tryAgainButton(root, feedback, question) {
  let button = root.querySelector(".try-again");
  if (!button) {
    button = el("button", {type: "button", class: "btn try-again", hidden: true}, "Try again");
    feedback.after(button);
  }
  button.classList.add("btn");
  if (question) button.setAttribute("aria-describedby", question.id);
  return button;
}
