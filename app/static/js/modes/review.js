// The review page: one sitting of due items, one at a time. Each answer is graded by the server
// and the item rescheduled (FSRS): right answers leave today's queue, wrong ones come back
// shortly. An item's code can be run once it is answered.

import {turnOver} from "./flashcards.js";
import {mountRunnable} from "../runnable.js";
import {renderMythReveal, renderPredictionReveal, renderStepReveal} from "../reveals.js";
import {apiFetch, askForConfidence, chosenConfidence, el, focusTarget, networkMessage, plural, postJson, renderValueFeedback} from "./common.js";

function renderOutcome(item, feedback, data, given) {
  const reveal = data.reveal || {};
  const kind = item.dataset.kind;
  feedback.replaceChildren();
  feedback.dataset.result = data.correct ? "right" : "wrong";
  if (kind === "drill") {
    renderValueFeedback(feedback, {...reveal, correct: data.correct}, {tensor: item.dataset.tensor, revealed: !data.correct});
  } else if (kind === "flashcard") {
    feedback.append(el("p", {class: "feedback-title"}, `Rated ${given}.`));
  } else {
    feedback.append(el("p", {class: "feedback-title"}, data.correct ? "Right." : "Not quite."));
    if (kind === "prediction") {
      renderPredictionReveal(feedback, reveal, item);
      const step = el("div", {class: "step-reveal"});
      feedback.append(step);
      renderStepReveal(step, reveal.step);
    } else {
      renderMythReveal(feedback, reveal);
    }
  }
  feedback.append(el("p", {class: "review-when"}, data.correct
    ? `Well done: it comes back ${data.comes_back}.`
    : `It comes back ${data.comes_back}.`));
}

export function initReview(root) {
  const items = [...root.querySelectorAll(".review-item")];
  const count = root.querySelector(".review-count");
  const empty = root.querySelector(".review-empty");
  let dueCount = items.length;

  const show = (i, focus = true) => {
    items.forEach((item, k) => { item.hidden = k !== i; });
    if (focus) focusTarget(items[i].querySelector(".review-heading"));
  };

  const finish = async () => {
    items.forEach((item) => { item.hidden = true; });
    const response = await apiFetch("/api/review");
    const later = empty.querySelector(".review-later");
    empty.querySelector("h2").textContent = "All done for now";
    if (response.ok && response.data) {
      const queue = response.data;
      count.textContent = `${plural(queue.due_count, "item")} due`;
      if (queue.due_count > 0) {
        later.replaceChildren(`${plural(queue.due_count, "more item is", "more items are")} due: `,
          el("a", {href: "/review"}, "start another sitting"), ".");
      } else if (queue.next_due_text) {
        later.textContent = `${plural(queue.scheduled, "item is", "items are")} scheduled; the next one comes back ${queue.next_due_text}.`;
      }
    }
    empty.hidden = false;
    focusTarget(empty.querySelector("h2"));
  };

  items.forEach((item, i) => {
    const feedback = item.querySelector(".review-feedback");
    const next = item.querySelector(".review-next");
    if (i === items.length - 1) next.textContent = "Finish";
    let busy = false;
    let answered = false;

    const fieldset = item.querySelector("fieldset.confidence");
    // The item's code runs once it is answered (its output would answer it before).
    const cell = item.querySelector("section.runnable");
    const code = cell ? mountRunnable(cell, {lesson: null, step: null, save: false,
      lockText: "Answer first, then run this code."}) : null;
    const send = async (body, controls, label) => {
      if (busy || answered) return false;
      if (fieldset) { // every kind but a flashcard asks how sure, with no default
        const confidence = chosenConfidence(item);
        if (!confidence) {
          askForConfidence(item, feedback);
          return false;
        }
        body = {...body, confidence};
      }
      busy = true;
      item.setAttribute("aria-busy", "true");
      const response = await postJson(`/api/review/${item.dataset.id}/answer`, body);
      item.removeAttribute("aria-busy");
      busy = false;
      if (response.status === 409) {
        answered = true;
        code?.setLocked(false);
        feedback.replaceChildren(el("p", {class: "feedback-meta"}, "You answered this one already."));
        next.hidden = false;
        next.focus();
        return;
      }
      if (!response.ok || !response.data) {
        feedback.dataset.result = "error";
        feedback.replaceChildren(el("p", {class: "feedback-error"}, networkMessage(response, "Checking your answer")));
        return;
      }
      const data = response.data;
      if (!data.graded) { // a typed value that could not be read: nothing counted, type again
        renderValueFeedback(feedback, {...data.reveal, correct: false}, {tensor: item.dataset.tensor});
        return;
      }
      answered = true;
      for (const control of controls) control.disabled = true;
      if (fieldset) fieldset.disabled = true;
      code?.setLocked(false);
      renderOutcome(item, feedback, data, label);
      dueCount = data.due_count;
      count.textContent = `${plural(Math.max(0, items.length - i - 1), "item")} left`;
      next.hidden = false;
      next.focus();
    };

    const kind = item.dataset.kind;
    // A choice or a myth's yes/no: one press answers, with what the pressed button says.
    const answerOnPress = (selector, bodyOf) => {
      const buttons = [...item.querySelectorAll(selector)];
      for (const button of buttons) {
        button.addEventListener("click", async () => {
          if (await send(bodyOf(button), buttons) !== false) button.setAttribute("aria-pressed", "true");
        });
      }
    };
    if (kind === "prediction") {
      answerOnPress(".choice", (button) => ({choice: button.dataset.choice}));
    } else if (kind === "myth") {
      answerOnPress(".myth-answer", (button) => ({answer: button.dataset.answer}));
    } else if (kind === "drill") {
      const form = item.querySelector("form");
      const input = form.querySelector("input");
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        if (!input.value.trim()) {
          feedback.replaceChildren(el("p", {class: "value-problem"}, "Type a value first."));
          input.focus();
          return;
        }
        send({value: input.value.trim()}, [input, form.querySelector("button")]);
      });
    } else if (kind === "flashcard") {
      const flip = item.querySelector(".flashcard-flip");
      const back = item.querySelector(".flashcard-back");
      const grading = item.querySelector(".flashcard-grading");
      const grades = [...item.querySelectorAll(".grade")];
      flip.addEventListener("click", async () => {
        if (await turnOver(item.dataset.key, item.dataset.lesson, back)) {
          flip.hidden = true;
          grading.hidden = false;
          focusTarget(back);
        }
      });
      for (const grade of grades) {
        grade.addEventListener("click", () => send({rating: grade.dataset.grade}, grades, grade.dataset.grade));
      }
    }
    next.addEventListener("click", () => (i + 1 < items.length ? show(i + 1) : finish()));
  });
  if (items.length) show(0, false);
  return {get dueCount() { return dueCount; }};
}

export function start() {
  const root = document.querySelector(".review");
  return root ? initReview(root) : null;
}
