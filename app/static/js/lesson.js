// The interactive lesson page: runnable cells, committed predictions, typed
// value predictions (their form: value-form.js), myth busters, saved progress and keyboard
// navigation.
//
//   initLesson(article)          wire up one <article class="lesson">; returns {runnables, refreshProgress}
//   progressText(progress)       "3/7 steps done · myths 2/4"
//   scoreText(score)             "Score: 2 / 4 answered, 2 correct"
//   handleLessonNavigation(e)    the Alt+Shift+Arrow keydown handler
//
// Contract: docs/http-contract.md. HTML from the server goes in with innerHTML only for
// fields named *_html; everything else is text. What explains an answer arrives only with
// the answer (the reveal), and is drawn by reveals.js.

import {mountRunnable} from "./runnable.js";
import {renderMythReveal, renderPredictionReveal, renderStepReveal} from "./reveals.js";
import {apiFetch, askForConfidence, chosenConfidence, choiceContent, el, lessonUrl, networkMessage, sendAnswer, uid} from "./util.js";
import {goToValueButton, placeValueForm, setupValuePrediction} from "./value-form.js";

const CONFIDENCE_WORDS = {guess: "a guess", fairly_sure: "fairly sure", certain: "certain"};

// ---- Text helpers -----------------------------------------------------------

export function progressText(progress) {
  if (!progress || typeof progress !== "object") return "";
  const parts = [];
  if (Number.isInteger(progress.steps_total)) {
    parts.push(`${progress.steps_done ?? 0}/${progress.steps_total} steps done`);
  }
  // Myths count when answered correctly, as the server renders this line.
  const score = progress.score;
  if (score && score.total) parts.push(`myths ${score.correct ?? 0}/${score.total}`);
  return parts.join(" · ");
}

export function scoreText(score) {
  if (!score || !score.total || !score.answered) return "";
  return `Score: ${score.answered ?? 0} / ${score.total} answered, ${score.correct ?? 0} correct`;
}

/** Silence live regions while `fill` restores saved state on load. */
function quietly(regions, fill) {
  const saved = regions.map((r) => [r, r.getAttribute("aria-live")]);
  for (const [r] of saved) r.setAttribute("aria-live", "off");
  try {
    fill();
  } finally {
    setTimeout(() => {
      for (const [r, value] of saved) {
        if (value === null) r.removeAttribute("aria-live");
        else r.setAttribute("aria-live", value);
      }
    }, 700);
  }
}

/** Move focus to `target` only if the action left it nowhere useful. */
function rescueFocus(previous, target) {
  const active = document.activeElement;
  const lost = !active || active === document.body || active === previous
    || (active instanceof HTMLButtonElement && active.disabled);
  if (lost && target) target.focus({preventScroll: false});
}

function feedbackTitle(text) {
  // A focus target for after a committed answer disables the buttons.
  return el("p", {class: "feedback-title", tabindex: "-1"}, text);
}

// ---- Predictions (choice) -----------------------------------------------------

function calibration(correct, confidence) {
  if (correct && confidence === "certain") return "You were certain, and rightly so.";
  if (correct && confidence === "guess") return "You were only guessing: read why, so next time you know.";
  if (!correct && confidence === "certain") return "You were certain: this is exactly the kind of surprise worth understanding. Read why below.";
  if (!correct && confidence === "guess") return "You were guessing, so this is new ground.";
  return "";
}

/** What the reveal of a saved answer said (an old record may have none). */
function savedReveal(saved) {
  return saved.reveal && typeof saved.reveal === "object" ? saved.reveal : {};
}

/** "Try again": an answer's buttons can be pressed again and its feedback goes. */
function reopenAnswer(buttons, chosenClasses, feedback) {
  for (const button of buttons) {
    button.disabled = false;
    button.removeAttribute("aria-pressed");
    button.classList.remove(...chosenClasses);
  }
  feedback.replaceChildren();
  delete feedback.dataset.result;
}

function renderPredictionFeedback(prediction, feedback, result, {choice, confidence, restored}) {
  const correct = Boolean(result.correct);
  feedback.replaceChildren();
  feedback.dataset.result = correct ? "right" : "wrong";
  const title = feedbackTitle(correct ? "Right." : "Not quite.");
  const calibrationText = calibration(correct, confidence);
  if (calibrationText) title.append(" ", el("span", {class: "feedback-calibration"}, calibrationText));
  feedback.append(title);

  const meta = el("p", {class: "feedback-meta"},
    restored ? "Your committed answer: " : "You answered ", choiceContent(prediction, choice));
  if (confidence && CONFIDENCE_WORDS[confidence]) meta.append(` (${CONFIDENCE_WORDS[confidence]})`);
  if (Number.isInteger(result.attempt) && result.attempt > 1) meta.append(`, attempt ${result.attempt}`);
  meta.append(".");
  feedback.append(meta);

  renderPredictionReveal(feedback, result, prediction);
  const stepEl = prediction.closest(".step");
  renderStepReveal(stepEl?.querySelector(".step-reveal"), result.step);
  // The step's typed-value question came with this reveal: its form opens under the code.
  if (result.value) feedback.append(goToValueButton(stepEl, result.value));
  return title;
}

function setupPrediction(prediction, context) {
  const step = Number(prediction.dataset.step || prediction.closest(".step")?.dataset.step);
  const choices = [...prediction.querySelectorAll(".choice")];
  const feedback = prediction.querySelector(".prediction-feedback")
    ?? prediction.appendChild(el("div", {class: "prediction-feedback", role: "status", "aria-live": "polite"}));
  let tryAgain = prediction.querySelector(".try-again");
  if (!tryAgain) {
    tryAgain = el("button", {type: "button", class: "try-again", hidden: true}, "Try again");
    feedback.after(tryAgain);
  }
  const fieldset = prediction.querySelector("fieldset.confidence");
  const question = prediction.querySelector(".prediction-question");
  if (question) {
    question.id ||= uid("prediction-q");
    tryAgain.setAttribute("aria-describedby", question.id);
  }
  tryAgain.classList.add("btn");
  let busy = false;


  const markCommitted = (choice, answer, value) => {
    for (const button of choices) {
      button.disabled = true;
      button.setAttribute("aria-pressed", String(button.dataset.choice === choice));
      button.classList.toggle("choice--chosen", button.dataset.choice === choice);
      button.classList.toggle("choice--answer", answer !== undefined && button.dataset.choice === answer);
    }
    if (fieldset) fieldset.disabled = true;
    prediction.dataset.committed = "true";
    tryAgain.hidden = false;
    context.unlockStep(step, value);
  };

  const reopen = () => {
    reopenAnswer(choices, ["choice--chosen", "choice--answer"], feedback);
    if (fieldset) fieldset.disabled = false;
    delete prediction.dataset.committed;
    tryAgain.hidden = true;
  };

  const commit = async (button) => {
    if (busy || button.disabled) return;
    // No default: calibration counts only what the learner chose, so the commit waits for it.
    const level = chosenConfidence(prediction);
    if (!level) {
      askForConfidence(prediction, feedback);
      return;
    }
    busy = true;
    const choice = button.dataset.choice ?? button.textContent.trim();
    feedback.dataset.result = "pending";
    const data = await sendAnswer({
      holder: prediction, feedback, what: "Checking your prediction",
      url: lessonUrl(context.slug, "steps", step, "prediction"),
      body: {choice, confidence: level},
    });
    busy = false;
    if (!data) return;
    const title = renderPredictionFeedback(prediction, feedback, data, {choice, confidence: level});
    markCommitted(choice, data.answer, data.value);
    rescueFocus(button, title);
    context.refreshProgress();
  };

  for (const button of choices) {
    button.addEventListener("click", () => commit(button));
  }
  tryAgain.addEventListener("click", () => {
    reopen();
    const chosen = choices.find((b) => !b.disabled) ?? choices[0];
    if (chosen) chosen.focus();
  });

  return {
    step,
    regions: [feedback],
    restore(saved) {
      if (!saved || !saved.choice) return;
      const reveal = savedReveal(saved);
      const result = {...reveal, correct: saved.correct ?? reveal.correct};
      const radio = fieldset?.querySelector(`input[value="${CSS.escape(String(saved.confidence ?? ""))}"]`);
      if (radio) radio.checked = true;
      renderPredictionFeedback(prediction, feedback, result,
        {choice: saved.choice, confidence: saved.confidence, restored: true});
      markCommitted(saved.choice, result.answer, result.value);
    },
  };
}

// ---- Myths ----------------------------------------------------------------------

function renderMythFeedback(feedback, result, {mine, restored}) {
  feedback.replaceChildren();
  const correct = Boolean(result.correct);
  feedback.dataset.result = correct ? "right" : "wrong";
  const title = feedbackTitle(correct ? "Right." : "Not quite.");
  feedback.append(title);
  renderMythReveal(feedback, result, {mine, restored});
  return title;
}

function setupMyth(myth, context) {
  const number = Number(myth.dataset.myth);
  const buttons = [...myth.querySelectorAll(".myth-answer")];
  const group = myth.querySelector(".myth-buttons");
  const question = myth.querySelector(".myth-question");
  if (question) question.id ||= uid("myth-q");
  if (group && question && !group.getAttribute("role")) {
    group.setAttribute("role", "group");
    group.setAttribute("aria-labelledby", question.id);
  }
  const feedback = myth.querySelector(".myth-feedback")
    ?? myth.appendChild(el("div", {class: "myth-feedback", role: "status", "aria-live": "polite"}));
  let tryAgain = myth.querySelector(".try-again");
  if (!tryAgain) {
    tryAgain = el("button", {type: "button", class: "btn try-again", hidden: true}, "Try again");
    if (question) tryAgain.setAttribute("aria-describedby", question.id);
    feedback.after(tryAgain);
  }
  let busy = false;

  const markAnswered = (mine) => {
    for (const button of buttons) {
      button.disabled = true;
      button.setAttribute("aria-pressed", String(button.dataset.answer === mine));
      button.classList.toggle("myth-answer--chosen", button.dataset.answer === mine);
    }
    myth.dataset.answered = "true";
    tryAgain.hidden = false;
  };

  const reopen = () => {
    reopenAnswer(buttons, ["myth-answer--chosen"], feedback);
    delete myth.dataset.answered;
    tryAgain.hidden = true;
  };

  const answer = async (button) => {
    if (busy || button.disabled) return;
    busy = true;
    const mine = button.dataset.answer;
    const data = await sendAnswer({
      holder: myth, feedback, what: "Checking your answer",
      url: lessonUrl(context.slug, "myths", number, "answer"),
      body: {answer: mine},
    });
    busy = false;
    if (!data) return;
    const title = renderMythFeedback(feedback, data, {mine});
    markAnswered(mine);
    rescueFocus(button, title);
    if (data.score) context.setScore(data.score);
    context.refreshProgress();
  };

  for (const button of buttons) button.addEventListener("click", () => answer(button));
  tryAgain.addEventListener("click", () => {
    reopen();
    if (buttons[0]) buttons[0].focus();
  });

  return {
    number,
    regions: [feedback],
    restore(saved) {
      if (!saved || !saved.answer) return;
      renderMythFeedback(feedback, {...savedReveal(saved), correct: saved.correct}, {mine: saved.answer, restored: true});
      markAnswered(saved.answer);
    },
  };
}

// ---- Keyboard navigation ----------------------------------------------------------

const EDITABLE = "input, textarea, select, [contenteditable], .cm-editor";

export function handleLessonNavigation(event) {
  if (event.defaultPrevented || event.isComposing) return;
  if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey) return;
  const rel = event.key === "ArrowRight" ? "next" : event.key === "ArrowLeft" ? "prev" : null;
  if (!rel) return;
  const target = event.target;
  if (target instanceof Element && target.closest(EDITABLE)) return;
  const link = document.querySelector(`a[rel~="${rel}"][href]`);
  if (!link) return;
  event.preventDefault();
  link.click();
}

// ---- The reference ----------------------------------------------------------------

/** Has the learner committed every question of the build-up, as the server counts it? */
export function buildUpAnswered(article, progress) {
  const steps = progress.steps || {};
  const choices = [...article.querySelectorAll('.prediction[data-kind="choice"]')];
  const valuesOnly = [...article.querySelectorAll("form.value-prediction")]
    .filter((form) => !form.closest(".step")?.querySelector(".prediction"));
  return choices.every((p) => steps[p.dataset.step]?.prediction)
    && valuesOnly.every((form) => {
      const value = steps[form.dataset.step]?.value;
      return Boolean(value && (value.correct || value.revealed));
    });
}

/** The server sends the reference once the build-up is answered: say so, and offer it. */
function offerReference(article, progress) {
  const notice = article.querySelector("#reference .disclosure-notice");
  if (!notice || notice.dataset.open || !buildUpAnswered(article, progress)) return;
  notice.dataset.open = "true";
  const show = el("button", {type: "button", class: "btn"}, "Show the reference");
  show.addEventListener("click", () => window.location.reload());
  notice.replaceChildren(el("p", {}, "You have answered the build-up: the reference is open now. "), show);
}

// ---- The page ----------------------------------------------------------------------

export function initLesson(article) {
  const slug = article.dataset.lesson;
  const progressLine = article.querySelector(".lesson-progress");
  const scoreLine = article.querySelector(".myth-score");
  const runnables = new Map(); // step -> controller
  let progressSeq = 0;
  let refreshTimer = null;

  const setScore = (score) => {
    if (scoreLine && score && score.answered) scoreLine.textContent = scoreText(score);
  };

  const applyProgress = (progress) => {
    offerReference(article, progress);
    const text = progressText(progress);
    if (progressLine && text) progressLine.textContent = text;
    if (progress.score) setScore(progress.score);
    for (const [n, info] of Object.entries(progress.steps || {})) {
      const stepEl = article.querySelector(`.step[data-step="${CSS.escape(n)}"]`);
      if (stepEl) stepEl.dataset.done = info && info.done ? "true" : "false";
    }
  };

  const fetchProgress = async () => {
    const seq = ++progressSeq;
    const response = await apiFetch(lessonUrl(slug, "progress"));
    if (seq !== progressSeq) return null; // a newer request answers instead
    if (!response.ok || !response.data) {
      return {error: networkMessage(response, "Loading your progress")};
    }
    return {progress: response.data};
  };

  const refreshProgress = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(async () => {
      const answer = await fetchProgress();
      if (answer && answer.progress) applyProgress(answer.progress);
      // A failed refresh keeps the last text: the answer itself was reported where it was given.
    }, 150);
  };

  const context = {
    slug,
    refreshProgress,
    setScore,
    /** The step's choice is committed: its code runs, and its typed-value question (`value`,
     *  from the reveal; the server did not send it before) is drawn without a reload. */
    unlockStep(step, value) {
      const controller = runnables.get(step);
      if (controller) controller.setLocked(false);
      const stepEl = article.querySelector(`.step[data-step="${CSS.escape(String(step))}"]`);
      const form = placeValueForm(stepEl, step, value);
      if (form) values.push(setupValuePrediction(form, context));
    },
  };

  for (const section of article.querySelectorAll("section.runnable")) {
    const step = Number(section.dataset.step);
    const controller = mountRunnable(section, {
      lesson: slug,
      step,
      onRun: (result) => {
        if (result) refreshProgress();
      },
    });
    runnables.set(step, controller);
  }
  const predictions = [...article.querySelectorAll('.prediction[data-kind="choice"]')]
    .map((p) => setupPrediction(p, context));
  const values = [...article.querySelectorAll("form.value-prediction")]
    .map((f) => setupValuePrediction(f, context));
  const myths = [...article.querySelectorAll(".myth[data-myth]")].map((m) => setupMyth(m, context));

  // Restore saved progress: committed predictions, answers, edited code.
  const restored = (async () => {
    const answer = await fetchProgress();
    if (!answer) return;
    if (answer.error) {
      if (progressLine) progressLine.textContent = answer.error; // "Loading your progress failed: …"
      return;
    }
    const progress = answer.progress;
    const steps = progress.steps || {};
    const mythsSaved = progress.myths || {};
    const regions = [...predictions, ...values, ...myths].flatMap((x) => x.regions);
    if (progressLine) regions.push(progressLine);
    if (scoreLine) regions.push(scoreLine);
    quietly(regions, () => {
      applyProgress(progress);
      for (const p of predictions) p.restore(steps[String(p.step)]?.prediction);
      for (const v of values) v.restore(steps[String(v.step)]?.value);
      for (const m of myths) m.restore(mythsSaved[String(m.number)]);
    });
    await Promise.all([...runnables.entries()].map(async ([step, controller]) => {
      const code = steps[String(step)]?.code;
      if (typeof code === "string") {
        await controller.ready;
        controller.restoreCode(code);
      }
    }));
  })();

  return {runnables, predictions, values, myths, refreshProgress, restored};
}

/** The deep dive's entry point (see lesson-page.js). */
export function startLessonPage() {
  document.addEventListener("keydown", handleLessonNavigation);
  const article = document.querySelector("article.lesson[data-lesson]");
  return article ? initLesson(article) : null;
}
