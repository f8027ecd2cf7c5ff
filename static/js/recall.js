// The recall that ends a lesson's build-up (templates/_recall.html, app/learning/practice/recall.py):
// a few of the lesson's questions, each on other numbers than its step's. Each item is answered
// with its kind's widget (widgets/registry.js, as review does), sent to
// /api/lessons/{slug}/recall/{step}?form=N, graded like review and scheduled in it; an item
// answered before is drawn from its saved answer. An item's code runs once it is answered.
//
//   startRecall(root)      mount the recall in `root` (a page, or the step by step's end), if
//                          it was sent
//   openRecall(section)    a waiting recall (sent before every step was committed): read this
//                          page again (a GET: the server decides) and, if it is open now, put
//                          it in the waiting one's place and mount it; returns the recall shown
//   watchBuildUp(article)  on the whole lesson: once every step's question is committed, open
//                          the waiting recall without a reload

import {mountRunnable} from "./runnable.js";
import {startUp} from "./ready.js";
import {el, thisPageAgain} from "./util.js";
import {widgetFor} from "./widgets/registry.js";

/** A recall answer ({correct, reveal, comes_back}) as a widget reads it. */
const readRecall = (data) => ({...(data.reveal || {}), correct: data.correct, graded: true});

function whenBack(data) {
  if (data.comes_back) return `It comes back in your review ${data.comes_back}.`;
  return "Well done: you know this one.";
}

function mountItem(item, slug) {
  const feedback = item.querySelector(".recall-feedback");
  const cell = item.querySelector("section.runnable");
  const code = cell ? mountRunnable(cell, {lesson: null, step: null, save: false,
    lockText: "Answer first, then run this code."}) : null;
  const step = encodeURIComponent(item.dataset.step);
  const form = encodeURIComponent(item.dataset.form);
  const widget = widgetFor(item)?.(item, {
    feedback,
    url: `/api/lessons/${encodeURIComponent(slug)}/recall/${step}?form=${form}`,
    read: readRecall,
    once: true,
    onAnswer: (_reveal, {data}) => {
      code?.setLocked(false);
      if (data) feedback.append(el("p", {class: "review-when"}, whenBack(data)));
    },
  });
  if (item.dataset.saved && widget?.restore) widget.restore(readSaved(item.dataset.saved));
}

/** The saved answer the server drew (null if unreadable: the item stays open, and the server
 *  refuses a second answer, saying so). */
function readSaved(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function mount(section) {
  if (!section || section.dataset.waiting === "true" || section.dataset.mounted) return section;
  section.dataset.mounted = "true";
  for (const item of section.querySelectorAll(".recall-item")) mountItem(item, section.dataset.lesson);
  return section;
}

export function startRecall(root = document) {
  return mount(root.querySelector("section.recall"));
}

export async function openRecall(section) {
  if (!section || section.dataset.waiting !== "true") return mount(section);
  const fresh = (await thisPageAgain())?.querySelector("section.recall");
  if (!fresh || fresh.dataset.waiting === "true") return section; // still waiting: the note stays
  const shown = document.importNode(fresh, true);
  section.replaceWith(shown);
  return mount(shown);
}

export function watchBuildUp(article) {
  const section = article.querySelector("section.recall[data-waiting='true']");
  if (!section) return;
  const questions = () => [...article.querySelectorAll(".steps > .step")]
    .map((step) => step.querySelector(".step-question"))
    .filter(Boolean);
  let opening = false;
  const observer = new MutationObserver(async () => {
    if (opening || !questions().every((question) => question.dataset.committed === "true")) return;
    opening = true;
    // Saved progress that commits every step opens it while the page starts: start-up work.
    const shown = await startUp(openRecall(article.querySelector("section.recall")));
    opening = false;
    if (shown && shown.dataset.waiting !== "true") observer.disconnect();
  });
  observer.observe(article, {subtree: true, attributes: true, attributeFilter: ["data-committed"]});
}
