// Predict the gradient: type each .grad before running the code. The server grades the value
// numerically, element by element, and keeps misses for review. The code's Run button unlocks
// once every gradient of that code was answered (right, or shown).

import {icon} from "../icons.js";
import {mountRunnable} from "../runnable.js";
import {el, lessonUrl} from "../util.js";
import {mountValue} from "../widgets/value.js";

function initGroup(group, slug, score) {
  const controller = mountRunnable(group.querySelector("section.runnable"),
    {lesson: null, step: null, save: false});
  const lockNote = group.querySelector(".run-lock-note");
  if (lockNote) lockNote.replaceChildren(icon("lock"), " Type the gradients below first, then run the code.");
  const drills = [...group.querySelectorAll(".drill")];
  const unlockIfDone = () => {
    if (drills.every((drill) => drill.dataset.done === "true")) controller.setLocked(false);
  };

  for (const drill of drills) {
    mountValue(drill.querySelector("form"), {
      // On a step with variants, the instance the page asked: graded as that one, or refused.
      url: lessonUrl(slug, "drills", drill.dataset.drill, "answer")
        + (drill.dataset.form === undefined ? "" : `?form=${drill.dataset.form}`),
      tensor: drill.dataset.tensor,
      extra: (result) => (result.queued
        ? el("p", {class: "feedback-meta"}, "It is in your ", el("a", {href: "/review"}, "review queue"), " for later.")
        : null),
      onAnswer: (result, {reveal}) => {
        if (result?.correct) {
          if (drill.dataset.correct !== "true") score.add(drill.dataset.drill);
          drill.dataset.correct = "true";
        }
        if (result?.correct || reveal) {
          drill.dataset.done = "true";
          unlockIfDone();
        }
      },
    });
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
