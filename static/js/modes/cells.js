// Quick read and Code lab: every server-rendered <section class="runnable"> becomes a live
// cell (runnable.js). Cells of build-up steps keep the learner's edits, shared with the deep
// dive; the others (myth demos, pitfalls) start from the lesson's code each time. In the code
// lab each cell has the gradient doctor's "Check my gradients" beside Run (doctor.js).

import {mountDoctor} from "../doctor.js";
import {mountRunnable} from "../runnable.js";
import {startUp} from "../ready.js";
import {apiFetch, lessonUrl} from "../util.js";

export async function initCells(article) {
  const slug = article.dataset.lesson;
  const steps = new Map();
  for (const section of article.querySelectorAll("section.runnable")) {
    const step = section.dataset.step ? Number(section.dataset.step) : null;
    const controller = step
      ? mountRunnable(section, {lesson: slug, step})
      : mountRunnable(section, {lesson: null, step: null, save: false});
    if (step) steps.set(step, controller);
    if (article.dataset.mode === "code-lab") mountDoctor(controller, {heading: "h3"});
  }
  if (steps.size === 0) return steps;
  const response = await apiFetch(lessonUrl(slug, "progress"));
  const saved = (response.ok && response.data && response.data.steps) || {};
  await Promise.all([...steps].map(async ([step, controller]) => {
    const code = saved[String(step)]?.code;
    if (typeof code === "string") {
      await controller.ready;
      controller.restoreCode(code);
    }
  }));
  return steps;
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-lesson]");
  return article ? startUp(initCells(article)) : null;
}
