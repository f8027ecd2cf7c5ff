// Predict the gradient: type each .grad before running the code. The server grades the value
// numerically, element by element, and keeps misses for review. The code's Run button unlocks
// once every gradient of that code was answered (right, or shown).

import {mountRunnable} from "../runnable.js";
import {askForValue} from "../value-feedback.js";
import {el, lessonUrl, renderValueFeedback, sendAnswer} from "./common.js";

function initGroup(group, slug, score) {
  const controller = mountRunnable(group.querySelector("section.runnable"),
    {lesson: null, step: null, save: false});
  const lockNote = group.querySelector(".run-lock-note");
  if (lockNote) lockNote.textContent = "Type the gradients below first, then run the code.";
  const drills = [...group.querySelectorAll(".drill")];
  const unlockIfDone = () => {
    if (drills.every((drill) => drill.dataset.done === "true")) controller.setLocked(false);
  };

  for (const drill of drills) {
    const form = drill.querySelector("form");
    const input = form.querySelector("input[name='value']");
    const feedback = form.querySelector(".value-feedback");
    const showAnswer = form.querySelector(".show-answer");
    feedback.id ||= `drill-feedback-${drill.dataset.drill}`;
    input.setAttribute("aria-describedby", feedback.id);
    let busy = false;

    const send = async (reveal) => {
      if (busy) return;
      const value = input.value.trim();
      if (!reveal && !value) {
        askForValue(feedback, input);
        return;
      }
      busy = true;
      const result = await sendAnswer({
        holder: form, feedback, what: reveal ? "Fetching the answer" : "Checking your value",
        url: lessonUrl(slug, "drills", drill.dataset.drill, "answer"), body: {value, reveal},
      });
      busy = false;
      if (!result) return;
      const queued = result.queued
        ? el("p", {class: "feedback-meta"}, "It is in your ", el("a", {href: "/review"}, "review queue"), " for later.")
        : null;
      renderValueFeedback(feedback, result, {tensor: drill.dataset.tensor, revealed: reveal, typed: value !== "", extra: queued});
      if (result.correct) {
        input.removeAttribute("aria-invalid");
        if (drill.dataset.correct !== "true") score.add(drill.dataset.drill);
        drill.dataset.correct = "true";
      } else if (result.parsed !== false || reveal) {
        input.setAttribute("aria-invalid", String(!reveal));
      }
      if (result.correct || reveal) {
        drill.dataset.done = "true";
        unlockIfDone();
      }
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      send(false);
    });
    showAnswer.addEventListener("click", () => send(true));
    input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  }
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-lesson]");
  const scoreLine = article && article.querySelector(".drill-score");
  if (!scoreLine) return;
  const total = Number(scoreLine.dataset.total);
  const right = new Set([...article.querySelectorAll(".drill[data-correct='true']")].map((d) => d.dataset.drill));
  const score = {
    add(id) {
      right.add(id);
      scoreLine.textContent = `${right.size} of ${total} right`;
    },
  };
  for (const group of article.querySelectorAll(".drill-group")) initGroup(group, article.dataset.lesson, score);
}
