// The myth widget: a yes-or-no question ("Is .grad filled when the tensor is created?"). Used by
// the deep dive, myth busters and review; the answer is stored the same way from each.
//
//   mountYesNo(root, options) -> {restore(saved), reset()}
//     root       holds the .myth-answer buttons (data-answer yes|no) and the .myth-question;
//                with a confidence fieldset, how sure is asked first
//     feedback   the live region for the verdict (default: root's .myth-feedback, made when
//                missing)
//     url        where {answer} is sent
//     read(data) the reveal in the server's answer (default: the answer itself)
//     verdict    "full": the belief, the reality, why it matters and the demonstration at once;
//                "brief": only right or wrong and the answer (a quiz gives the reasons at the end)
//     tryAgain   offer "Try again" after the verdict
//     onAnswer(reveal, {mine, data})   after a verdict (reveal null: answered already, elsewhere)
//   mythExplanation(root, reveal, mine)   the question and its full reveal, for a quiz's summary

import {renderMythReveal} from "../reveals.js";
import {capitalise, el, uid} from "../util.js";
import {pressOne, reopenQuestion, rescueFocus, sendAnswer, showVerdict, tryAgainButton} from "./answer.js";

const CHOSEN = ["myth-answer--chosen"];

function renderVerdict(box, reveal, {mine, restored, verdict}) {
  const correct = Boolean(reveal.correct);
  const title = showVerdict(box, correct ? "right" : "wrong", correct ? "Right." : "Not quite.");
  if (verdict === "brief") {
    title.append(" ", el("span", {class: "feedback-calibration"}, `The answer is ${capitalise(reveal.answer)}.`));
    if (!correct) box.append(el("p", {class: "feedback-meta"}, "Why comes with your score."));
  } else {
    renderMythReveal(box, reveal, {mine, restored});
  }
  return title;
}

/** The myth's question and everything its reveal says, in a box of its own. */
export function mythExplanation(root, reveal, mine) {
  const box = el("div", {class: "quiz-explanation"});
  const question = root.querySelector(".myth-question")?.cloneNode(true);
  if (question) {
    question.removeAttribute("id");
    box.append(question);
  }
  return renderMythReveal(box, reveal, {mine});
}

export function mountYesNo(root, {feedback = null, url, read = (data) => data, verdict = "full", tryAgain = false, onAnswer = () => {}}) {
  const buttons = [...root.querySelectorAll(".myth-answer")];
  const group = root.querySelector(".myth-buttons");
  const question = root.querySelector(".myth-question");
  if (question) question.id ||= uid("myth-q");
  if (group && question && !group.getAttribute("role")) {
    group.setAttribute("role", "group");
    group.setAttribute("aria-labelledby", question.id);
  }
  const box = feedback ?? root.querySelector(".myth-feedback")
    ?? root.appendChild(el("div", {class: "myth-feedback", role: "status", "aria-live": "polite"}));
  box.classList.add("verdict"); // the one look of a verdict (interactive.css)
  const fieldset = root.querySelector("fieldset.confidence");
  const again = tryAgain ? tryAgainButton(root, box, question) : null;
  let busy = false;

  const markAnswered = (mine) => {
    pressOne(buttons, buttons.find((b) => b.dataset.answer === mine), CHOSEN[0]);
    if (fieldset) fieldset.disabled = true;
    root.dataset.answered = "true";
    if (again) again.hidden = false;
  };

  const reset = () =>
    reopenQuestion(root, {buttons, classes: CHOSEN, box, fieldset, again, flag: "answered"});

  const answer = async (button) => {
    if (busy || button.disabled) return;
    busy = true;
    const mine = button.dataset.answer;
    const sent = await sendAnswer({holder: root, feedback: box, url, body: {answer: mine}});
    busy = false;
    if (!sent) return;
    markAnswered(mine);
    if (sent.already) {
      onAnswer(null, {mine, data: null});
      return;
    }
    const reveal = read(sent.data);
    const title = renderVerdict(box, reveal, {mine, restored: false, verdict});
    onAnswer(reveal, {mine, data: sent.data});
    rescueFocus(button, title);
  };

  for (const button of buttons) button.addEventListener("click", () => answer(button));
  again?.addEventListener("click", () => {
    reset();
    buttons[0]?.focus();
  });

  return {
    reset,
    regions: [box],
    /** An answer from the progress store: {answer, correct, reveal}. */
    restore(saved) {
      if (!saved || !saved.answer) return;
      const stored = saved.reveal && typeof saved.reveal === "object" ? saved.reveal : {};
      renderVerdict(box, {...stored, correct: saved.correct}, {mine: saved.answer, restored: true, verdict});
      markAnswered(saved.answer);
    },
  };
}
