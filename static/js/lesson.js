// The interactive lesson page (the deep dive; step by step pages through the same markup): its
// questions (each step question mounted through widgets/registry.js, and the myths),
// its runnable cells, saved progress and the reference that opens once the build-up is answered.
//
//   initLesson(article)          wire up one <article class="lesson">; returns {runnables, refreshProgress, restored}
//   progressText(progress)       "3/7 steps done · myths 2/4"
//   scoreText(score)             "Score: 2 / 4 answered, 2 correct"
//   startLessonPage()            the deep dive's entry point
//
// Where the learning is, the run is: once a step's predictions are committed (its choice, and
// its typed value when it asks one), the step's code runs by itself, so its output, the .grad
// inspector and the graph appear with the reveal. Not on a reload: restoring runs nothing.
//
// Contract: docs/http-contract.md. What explains an answer arrives only with the answer.

import {bindLessonNavigation} from "./lesson-nav.js";
import {mountRunnable} from "./runnable.js";
import {startUp} from "./ready.js";
import {apiFetch, el, lessonUrl, networkMessage} from "./util.js";
import {settles, widgetFor} from "./widgets/registry.js";
import {goToValueButton, placeValueForm} from "./widgets/value-form.js";
import {mountYesNo} from "./widgets/yes-no.js";

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

// ---- The reference ----------------------------------------------------------------

/** Has the learner committed every question of the build-up, as the server counts it? */
export function buildUpAnswered(article, progress) {
  const steps = progress.steps || {};
  // A question that waits for the step's other one (a typed value after a choice) is not
  // counted: the server counts the other one.
  const questions = [...article.querySelectorAll(".step-question[data-widget]:not([data-waits])")];
  return questions.every((q) => settles(q, steps[q.dataset.step]?.[q.dataset.saved]));
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

const stepNumber = (node) => Number(node.dataset.step || node.closest(".step")?.dataset.step);

export function initLesson(article) {
  const slug = article.dataset.lesson;
  const progressLine = article.querySelector(".lesson-progress");
  const scoreLine = article.querySelector(".myth-score");
  const runnables = new Map(); // step -> controller
  const settled = new WeakSet(); // the step questions answered (a typed value: right or shown)
  let progressSeq = 0;
  let refreshTimer = null;

  const setScore = (score) => {
    if (scoreLine && score && score.answered) scoreLine.textContent = scoreText(score);
  };

  const stepOf = (step) => article.querySelector(`.step[data-step="${CSS.escape(String(step))}"]`);

  const applyProgress = (progress) => {
    offerReference(article, progress);
    const text = progressText(progress);
    if (progressLine && text) progressLine.textContent = text;
    if (progress.score) setScore(progress.score);
    for (const [n, info] of Object.entries(progress.steps || {})) {
      const stepEl = stepOf(n);
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

  /** The step's questions are all answered: run its code, so the run shows with the reveal.
   *  A typed value still to answer waits: the run's .grad inspector would answer it. */
  const runWhenAnswered = (step) => {
    const open = [...(stepOf(step)?.querySelectorAll(".step-question") ?? [])]
      .some((root) => !settled.has(root));
    const controller = runnables.get(step);
    if (open || !controller || controller.isLocked()) return;
    controller.ready.then(() => controller.run());
  };

  for (const section of article.querySelectorAll("section.runnable")) {
    if (section.closest("section.recall")) continue; // the recall's own (recall.js)
    const step = Number(section.dataset.step);
    runnables.set(step, mountRunnable(section, {
      lesson: slug,
      step,
      onRun: (result) => {
        if (result) refreshProgress();
      },
    }));
  }

  // Every step question (a choice, a select-all, an ordering, a typed value), by its widget
  // (widgets/registry.js) and its route's last segment; restored from the field of the step's
  // saved progress its root names (data-saved).
  const questions = [];
  const mountQuestion = (root) => {
    const step = stepNumber(root);
    const waits = Boolean(root.dataset.waits); // comes after the step's other question
    const widget = widgetFor(root)?.(root, {
      url: lessonUrl(slug, "steps", step, root.dataset.question),
      tryAgain: true,
      // The step's typed-value question came with this reveal: its form opens under the code.
      extra: (reveal) => (reveal?.value ? goToValueButton(stepOf(step), reveal.value) : null),
      onAnswer: (reveal, {restored = false, settled: done = true} = {}) => {
        if (!done) {
          if (!restored) refreshProgress(); // a try, not right yet: the question stays open
          return;
        }
        settled.add(root);
        if (!waits) unlockStep(step, reveal?.value);
        if (restored) return;
        refreshProgress();
        runWhenAnswered(step);
        // What opens with this commit (code to write after the step) is the page's to fetch.
        if (!waits) article.dispatchEvent(new CustomEvent("step-committed", {detail: {step}}));
      },
    });
    questions.push({step, root, widget: widget ?? {regions: [], restore() {}}});
  };

  /** The step's question is committed: its code may run, and the question that waits for it
   *  (`value`, a typed value, from the reveal; the server did not send it before) is drawn and
   *  mounted without a reload. */
  const unlockStep = (step, value) => {
    runnables.get(step)?.setLocked(false);
    const form = placeValueForm(stepOf(step), step, value);
    if (form) mountQuestion(form);
  };

  for (const root of article.querySelectorAll(".step-question[data-widget]")) mountQuestion(root);
  const myths = [...article.querySelectorAll(".myth[data-myth]")].map((root) => {
    const number = Number(root.dataset.myth);
    const widget = mountYesNo(root, {
      url: lessonUrl(slug, "myths", number, "answer"),
      tryAgain: true,
      onAnswer: (reveal) => {
        if (reveal?.score) setScore(reveal.score);
        refreshProgress();
      },
    });
    return {number, widget};
  });

  // Restore saved progress: committed predictions, answers, edited code.
  const restored = startUp((async () => {
    const answer = await fetchProgress();
    if (!answer) return;
    if (answer.error) {
      if (progressLine) progressLine.textContent = answer.error; // "Loading your progress failed: …"
      return;
    }
    const progress = answer.progress;
    const steps = progress.steps || {};
    const mythsSaved = progress.myths || {};
    const regions = [...questions, ...myths].flatMap((x) => x.widget.regions);
    if (progressLine) regions.push(progressLine);
    if (scoreLine) regions.push(scoreLine);
    quietly(regions, () => {
      applyProgress(progress);
      // (A question a restored one opens is mounted into `questions` as this goes, and restored.)
      for (const q of questions) q.widget.restore(steps[String(q.step)]?.[q.root.dataset.saved]);
      for (const m of myths) m.widget.restore(mythsSaved[String(m.number)]);
    });
    await Promise.all([...runnables.entries()].map(async ([step, controller]) => {
      const code = steps[String(step)]?.code;
      if (typeof code === "string") {
        await controller.ready;
        controller.restoreCode(code);
      }
    }));
  })());

  return {runnables, questions, myths, refreshProgress, restored};
}

/** The deep dive's entry point (pages/deep-dive.js). */
export function startLessonPage() {
  bindLessonNavigation();
  const article = document.querySelector("article.lesson[data-lesson]");
  return article ? initLesson(article) : null;
}
