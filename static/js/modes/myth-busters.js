// Myth busters: the lesson's myths as a quiz round. One myth at a time, a short verdict after
// each answer, then the score and the reasons behind the ones missed. Answers go to the same
// endpoint through the same widget as the deep dive's myths (widgets/yes-no.js: they are
// stored, and misses enter the review queue).

import {el, focusTarget, lessonUrl} from "../util.js";
import {mountYesNo, mythExplanation} from "../widgets/yes-no.js";

const explanation = (entry, myth) => mythExplanation(myth, entry.reveal, entry.mine);

export function initQuiz(quiz, slug) {
  const myths = [...quiz.querySelectorAll(".quiz-myth")];
  const result = quiz.querySelector(".quiz-result");
  let answers = [];
  let index = 0;

  const show = (i, focus = true) => {
    index = i;
    myths.forEach((myth, k) => { myth.hidden = k !== i; });
    result.hidden = true;
    if (focus) focusTarget(myths[i].querySelector(".quiz-heading"));
  };

  const finish = () => {
    myths.forEach((myth) => { myth.hidden = true; });
    const right = answers.filter((entry) => entry.correct).length;
    quiz.querySelector(".quiz-score").textContent =
      `You got ${right} of ${myths.length} right.${right === myths.length ? " Every myth busted." : ""}`;
    const box = quiz.querySelector(".quiz-explanations");
    box.replaceChildren();
    const missed = answers.filter((entry) => !entry.correct);
    if (missed.length) {
      box.append(el("h3", {}, missed.length === 1 ? "The one you missed" : "The ones you missed"));
      for (const entry of missed) box.append(explanation(entry, myths[entry.number - 1]));
    }
    const kept = answers.filter((entry) => entry.correct);
    if (kept.length) {
      const details = el("details", {class: "quiz-right"}, el("summary", {}, "Why the others hold (you got these right)"));
      for (const entry of kept) details.append(explanation(entry, myths[entry.number - 1]));
      box.append(details);
    }
    result.hidden = false;
    focusTarget(result.querySelector("h2"));
  };

  const widgets = [];
  const start = () => {
    answers = [];
    for (const widget of widgets) widget.reset();
    for (const myth of myths) myth.querySelector(".quiz-next").hidden = true;
    show(0, false);
  };

  myths.forEach((myth, i) => {
    const number = Number(myth.dataset.myth);
    const nextButton = myth.querySelector(".quiz-next");
    widgets.push(mountYesNo(myth, {
      feedback: myth.querySelector(".quiz-feedback"),
      // A fresh round asks a myth as another form of it: the answer says which.
      url: lessonUrl(slug, "myths", String(number), "answer")
        + (myth.dataset.form === undefined ? "" : `?form=${myth.dataset.form}`),
      verdict: "brief",
      onAnswer: (reveal, {mine}) => {
        if (!reveal) return;
        answers = answers.filter((entry) => entry.number !== number);
        answers.push({number, mine, correct: reveal.correct, reveal});
        answers.sort((a, b) => a.number - b.number);
        nextButton.hidden = false;
        nextButton.focus();
      },
    }));
    nextButton.addEventListener("click", () => (i + 1 < myths.length ? show(i + 1) : finish()));
  });
  quiz.querySelector(".quiz-again").addEventListener("click", () => {
    start();
    focusTarget(myths[0].querySelector(".quiz-heading"));
  });
  start();
  return {show, finish, get index() { return index; }};
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-lesson]");
  const quiz = article && article.querySelector(".quiz");
  return quiz ? initQuiz(quiz, article.dataset.lesson) : null;
}
