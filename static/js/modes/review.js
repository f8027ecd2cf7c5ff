// The review page: one sitting of due items, one at a time. Each item is answered through its
// question widget (widgets/registry.js picks it by the item's data-widget), graded by the
// server and rescheduled (FSRS): right answers leave today's queue, wrong ones come back
// shortly. An item's code can be run once it is answered.

import {mountRunnable} from "../runnable.js";
import {apiFetch, el, focusTarget, plural} from "../util.js";
import {widgetFor} from "../widgets/registry.js";

/** A review answer ({graded, correct, reveal, comes_back, due_count}) as a widget reads it. */
const readReview = (data) => ({...(data.reveal || {}), correct: data.correct, graded: data.graded});

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
    // The item's code runs once it is answered (its output would answer it before).
    const cell = item.querySelector("section.runnable");
    const code = cell ? mountRunnable(cell, {lesson: null, step: null, save: false,
      lockText: "Answer first, then run this code."}) : null;

    /** Answered (data null: answered already, from another tab): the code runs, next is offered. */
    const settle = (data) => {
      code?.setLocked(false);
      if (data) {
        feedback.append(el("p", {class: "review-when"}, data.left
          ? "Well done: it has no other version to ask, so it leaves your review."
          : data.correct
          ? `Well done: it comes back ${data.comes_back}.`
          : `It comes back ${data.comes_back}.`));
        dueCount = data.due_count;
        count.textContent = `${plural(Math.max(0, items.length - i - 1), "item")} left`;
      }
      next.hidden = false;
      next.focus();
    };

    // The form of the question shown (a variant instance, a myth's form): graded against it.
    const form = item.dataset.form === undefined ? "" : `?form=${encodeURIComponent(item.dataset.form)}`;
    const mount = widgetFor(item);
    mount?.(item, {
      feedback,
      url: `/api/review/${encodeURIComponent(item.dataset.id)}/answer${form}`,
      read: readReview,
      once: true,
      lesson: item.dataset.lesson,
      card: item.dataset.key,
      form: item.dataset.form,
      onAnswer: (_result, {data}) => settle(data),
    });
    next.addEventListener("click", () => (i + 1 < items.length ? show(i + 1) : finish()));
  });
  if (items.length) show(0, false);
  return {get dueCount() { return dueCount; }};
}

export function start() {
  const root = document.querySelector(".review");
  return root ? initReview(root) : null;
}
