// The prediction widget: pick one of a question's choices, after saying how sure you are. The
// verdict says right or wrong, how that fits the confidence, and the reveal (the answer, why a
// wrong pick is wrong, the explanation, the output, the step's own text). Used by the deep dive,
// step by step and review.
//
//   mountChoice(root, options) -> {restore(saved), reopen()}
//     root       holds the .choice buttons (data-choice) and a confidence fieldset
//     feedback   the live region for the verdict (default: root's .prediction-feedback, made
//                when missing)
//     url        where {choice, confidence} is sent
//     read(data) the reveal in the server's answer (default: the answer itself)
//     tryAgain   offer "Try again" after the verdict (a review item is answered once)
//     extra(reveal)                 a node to end the verdict with, or null
//     onAnswer(reveal, {restored, choice, data})   after the verdict (reveal null: answered
//                                   already, elsewhere)

import {renderPredictionReveal, renderStepReveal} from "../reveals.js";
import {choiceContent, el, uid} from "../util.js";
import {pressOne, reopenQuestion, rescueFocus, sendAnswer, showVerdict, tryAgainButton} from "./answer.js";

const CONFIDENCE_WORDS = {guess: "a guess", fairly_sure: "fairly sure", certain: "certain"};
const CHOSEN = ["choice--chosen", "choice--answer"];

/** What the verdict says of how sure the learner was (every widget that asks it). */
export function calibration(correct, confidence) {
  if (correct && confidence === "certain") return "You were certain, and rightly so.";
  if (correct && confidence === "guess") return "You were only guessing: read why, so next time you know.";
  if (!correct && confidence === "certain") return "You were certain: this is exactly the kind of surprise worth understanding. Read why below.";
  if (!correct && confidence === "guess") return "You were guessing, so this is new ground.";
  return "";
}

/** Where the step's own text goes: its .step-reveal on a lesson page, else under the verdict. */
function stepRevealBox(root, feedback) {
  return root.closest(".step")?.querySelector(".step-reveal")
    ?? feedback.appendChild(el("div", {class: "step-reveal"}));
}

function renderVerdict(root, feedback, reveal, {choice, confidence, restored, extra}) {
  const correct = Boolean(reveal.correct);
  const title = showVerdict(feedback, correct ? "right" : "wrong", correct ? "Right." : "Not quite.");
  const calibrationText = calibration(correct, confidence);
  if (calibrationText) title.append(" ", el("span", {class: "feedback-calibration"}, calibrationText));
  const meta = el("p", {class: "feedback-meta"},
    restored ? "Your committed answer: " : "You answered ", choiceContent(root, choice));
  if (confidence && CONFIDENCE_WORDS[confidence]) meta.append(` (${CONFIDENCE_WORDS[confidence]})`);
  if (Number.isInteger(reveal.attempt) && reveal.attempt > 1) meta.append(`, attempt ${reveal.attempt}`);
  meta.append(".");
  feedback.append(meta);
  renderPredictionReveal(feedback, reveal, root);
  renderStepReveal(stepRevealBox(root, feedback), reveal.step);
  const more = extra ? extra(reveal) : null;
  if (more) feedback.append(more);
  return title;
}

export function mountChoice(root, {feedback = null, url, read = (data) => data, tryAgain = false, extra = null, onAnswer = () => {}}) {
  const buttons = [...root.querySelectorAll(".choice")];
  const box = feedback ?? root.querySelector(".prediction-feedback")
    ?? root.appendChild(el("div", {class: "prediction-feedback", role: "status", "aria-live": "polite"}));
  box.classList.add("verdict"); // the one look of a verdict (interactive.css)
  const fieldset = root.querySelector("fieldset.confidence");
  const question = root.querySelector(".prediction-question");
  if (question) question.id ||= uid("prediction-q");
  const again = tryAgain ? tryAgainButton(root, box, question) : null;
  let busy = false;

  const markCommitted = (choice, answer) => {
    pressOne(buttons, buttons.find((b) => b.dataset.choice === choice), "choice--chosen");
    for (const button of buttons) button.classList.toggle("choice--answer", answer !== undefined && button.dataset.choice === answer);
    if (fieldset) fieldset.disabled = true;
    root.dataset.committed = "true";
    if (again) again.hidden = false;
  };

  // Asked again, the question shows nothing of its reveal: the step's concept and insight
  // (drawn outside the verdict box on a lesson page) go with the verdict.
  const reopen = () => {
    reopenQuestion(root, {buttons, classes: CHOSEN, box, fieldset, again, flag: "committed"});
    const stepText = root.closest(".step")?.querySelector(".step-reveal");
    if (stepText) renderStepReveal(stepText, null);
  };

  const commit = async (button) => {
    if (busy || button.disabled) return;
    busy = true;
    const choice = button.dataset.choice ?? button.textContent.trim();
    const sent = await sendAnswer({holder: root, feedback: box, what: "Checking your prediction", url, body: {choice}});
    busy = false;
    if (!sent) return;
    if (sent.already) {
      pressOne(buttons, null, "choice--chosen");
      if (fieldset) fieldset.disabled = true;
      onAnswer(null, {restored: false, choice, data: null});
      return;
    }
    const reveal = read(sent.data);
    const title = renderVerdict(root, box, reveal, {choice, confidence: sent.confidence, restored: false, extra});
    markCommitted(choice, reveal.answer);
    onAnswer(reveal, {restored: false, choice, data: sent.data});
    rescueFocus(button, title);
  };

  for (const button of buttons) button.addEventListener("click", () => commit(button));
  again?.addEventListener("click", () => {
    reopen();
    buttons[0]?.focus();
  });

  return {
    reopen,
    regions: [box],
    /** A committed answer, as a step's saved answer (or a recall item's) keeps it:
     *  {sent: {choice}, confidence, correct, reveal}. */
    restore(saved) {
      const choice = saved?.sent?.choice;
      if (typeof choice !== "string" || !choice) return;
      const stored = saved.reveal && typeof saved.reveal === "object" ? saved.reveal : {};
      const reveal = {...stored, correct: saved.correct ?? stored.correct};
      const radio = fieldset?.querySelector(`input[value="${CSS.escape(String(saved.confidence ?? ""))}"]`);
      if (radio) radio.checked = true;
      renderVerdict(root, box, reveal, {choice, confidence: saved.confidence, restored: true, extra});
      markCommitted(choice, reveal.answer);
      onAnswer(reveal, {restored: true, choice, data: null});
    },
  };
}
