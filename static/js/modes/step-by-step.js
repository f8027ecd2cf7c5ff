// Step by step: one build-up step per screen. The next step unlocks once the current step's
// prediction is committed (steps without one are open). The steps are the deep dive's markup,
// driven by lesson.js (its question widgets, runnable cells, saved progress); this module only
// pages through them.

import {initLesson} from "../lesson.js";
import {startUp} from "../ready.js";
import {openRecall, startRecall} from "../recall.js";
import {focusTarget, parts} from "../util.js";

export function initStepByStep(article) {
  const root = article.querySelector(".sbs");
  const steps = [...root.querySelectorAll(".sbs-steps > .step")];
  const total = steps.length;
  const {nav, prev, next, lock, done, bar, current: label} =
    parts(root, "sbs", "nav", "prev", "next", "lock", "done", "bar", "current");
  // A step's question, of whatever kind (lesson.js mounts each through widgets/registry.js).
  const predictions = steps.map((step) => step.querySelector(".step-question"));
  const committed = new Set(); // once committed, a step stays open (even after "Try again")
  let current = 0;
  let finished = false;

  // A learner who chose to read ahead has every step open (the server drew its answer).
  const isOpen = (i) => !predictions[i] || committed.has(i) || steps[i].dataset.readAhead === "true";
  const reachable = (i) => steps.slice(0, i).every((_, k) => isOpen(k));

  const update = () => {
    const position = finished ? total : current + 1;
    bar.value = position;
    bar.textContent = `Step ${position} of ${total}`;
    label.textContent = String(position);
    nav.hidden = finished;
    prev.disabled = current === 0;
    const open = isOpen(current);
    next.disabled = !open;
    lock.hidden = open;
    next.querySelector(".sbs-next-label").textContent = current === total - 1 ? "Finish" : "Next step";
  };

  const show = (i, {focus = true} = {}) => {
    finished = false;
    current = Math.max(0, Math.min(i, total - 1));
    steps.forEach((step, k) => { step.hidden = k !== current; });
    done.hidden = true;
    update();
    if (focus) { // the learner moved: the address names the step (never on load: it would scroll)
      history.replaceState(null, "", `#step-${current + 1}`);
      focusTarget(steps[current].querySelector(".step-heading"));
    }
  };

  const finish = ({focus = true} = {}) => {
    finished = true;
    steps.forEach((step) => { step.hidden = true; });
    done.hidden = false;
    update();
    if (focus) {
      history.replaceState(null, "", "#done");
      focusTarget(done.querySelector("h2"));
    }
    openRecall(done.querySelector("section.recall")); // sent now that every step is committed
  };

  predictions.forEach((prediction, i) => {
    if (!prediction) return;
    const check = () => {
      if (prediction.dataset.committed === "true" && !committed.has(i)) {
        committed.add(i);
        update();
      }
    };
    new MutationObserver(check).observe(prediction, {attributes: true, attributeFilter: ["data-committed"]});
  });

  prev.addEventListener("click", () => show(current - 1));
  next.addEventListener("click", () => {
    if (!isOpen(current)) return;
    if (current === total - 1) finish();
    else show(current + 1);
  });
  root.querySelector(".sbs-restart").addEventListener("click", () => show(0));

  // A link to #step-N opens that step, if the steps before it are open.
  const match = /^#step-(\d+)$/.exec(location.hash);
  const linked = match && Number(match[1]) >= 1 && Number(match[1]) <= total ? Number(match[1]) - 1 : -1;

  // A return to a begun lesson at its own address: the server names the first unanswered step
  // (app/learning/pages/guided.py), and the page opens there, its heading in view.
  const resume = Number(root.dataset.resume || 0);
  const resumed = linked < 0 && resume >= 1 && resume <= total ? resume - 1 : -1;
  // Every step answered (resume is one past the last): the page opens at the path's end.
  const atEnd = linked < 0 && resume === total + 1;

  nav.hidden = false;
  if (atEnd) finish({focus: false});
  else if (resumed >= 0) show(resumed);
  else show(Math.max(linked, 0), {focus: false});
  const lesson = initLesson(article);
  startRecall(done); // a lesson committed before this page was drawn: its recall is here
  // Once saved progress is back: resume where the learner stopped (or at the linked step).
  startUp(lesson.restored.then(() => {
    predictions.forEach((prediction, i) => {
      if (prediction && prediction.dataset.committed === "true") committed.add(i);
    });
    const firstOpen = steps.findIndex((_, i) => !isOpen(i));
    const wanted = linked >= 0 ? linked : resumed;
    if (atEnd && firstOpen < 0) return; // opened at the end, and every step is committed
    if (wanted >= 0 && reachable(wanted)) show(wanted, {focus: false});
    else show(firstOpen >= 0 ? firstOpen : 0, {focus: false});
  }));
  return {show, finish, lesson};
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-mode='step-by-step']");
  return article ? initStepByStep(article) : null;
}
