// Code to write: an exercise's code with its blanks, an editor in each blank, and "Check my
// code", which posts the lines to POST /api/lessons/{slug}/exercises/{n}. The server runs the
// filled code in the sandbox and grades what it does; a miss comes back with what differs and
// the next hint. An exercise that asks a diagnosis first shows its buggy code and its choices;
// the code to fix (where its blanks are) arrives with the diagnosis's reveal. A diagnosis asks
// how sure the learner is first (its confidence fieldset), as a prediction does.
//
//   mountExercises(root, slug)   wire every .exercise[data-exercise] under root
//   mountCodeExercise(item, {lesson, onAnswer})   a review item's exercise (widgets/registry.js)
//
// Everything that is not an explicit *_html field from the server goes in with textContent.

import {whenEditorReady} from "../runnable.js";
import {sendAnswer, showVerdict} from "./answer.js";
import {startUp} from "../ready.js";
import {el, lessonUrl, setServerHtml, thisPageAgain} from "../util.js";

const CHECK_TIMEOUT_MS = 90_000;

/** A plain, labelled textarea with the editor's interface, for when CodeMirror is missing. */
function plainEditor(host, {label, onRun}) {
  const area = el("textarea", {class: "editor-fallback", "aria-label": label, rows: "2",
    spellcheck: "false", autocapitalize: "off", autocomplete: "off", wrap: "off"});
  area.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun();
    }
  });
  host.append(area);
  return {getCode: () => area.value, focus: () => area.focus()};
}

/** Draw the code and its blanks; resolves with one editor per blank, in order. */
async function drawParts(work, parts, number, onRun) {
  const code = work.querySelector(".exercise-code");
  const hosts = [];
  const blanks = parts.filter((part) => part.kind === "blank").length;
  for (const part of parts) {
    if (part.kind === "code") {
      code.append(el("pre", {class: "exercise-given", tabindex: "0"}, el("code", {}, part.text.replace(/\n$/, ""))));
      continue;
    }
    const host = el("div", {class: "exercise-blank"});
    // The blank's indentation (the CSSOM, not a style attribute: the page's CSP allows no inline style).
    host.style.setProperty("--indent", `${part.indent.length}ch`);
    hosts.push(host);
    code.append(host);
  }
  const factory = await whenEditorReady();
  return hosts.map((host, index) => {
    const label = blanks > 1 ? `Exercise ${number}, blank ${index + 1} of ${blanks}` : `Exercise ${number}, your code`;
    const options = {doc: "", label, onRun};
    if (factory) {
      try {
        return factory.create(host, options);
      } catch (error) {
        console.error("gradlab: the code editor failed to start", error);
      }
    }
    return plainEditor(host, options);
  });
}

/** What a check found: right, or what differs and the next hint. */
function showCheck(verdict, hints, result) {
  if (result.passed) {
    showVerdict(verdict, "right", "Right!");
    verdict.append(el("p", {class: "feedback-meta"}, "It runs and does exactly what the goal says."));
    return;
  }
  const list = el("ul", {class: "fixer-reasons"});
  for (const html of result.reasons_html || []) list.append(setServerHtml(el("li"), html));
  showVerdict(verdict, "wrong", "Not yet.");
  verdict.append(list);
  const hint = result.hint;
  if (!hint || hints.querySelector(`[data-level="${hint.level}"]`)) return;
  const item = el("li", {class: "fixer-hint-item", "data-level": String(hint.level)},
    el("p", {class: "feedback-label"}, `Hint ${hint.level}: ${hint.title}`));
  item.append(setServerHtml(el("div", {class: "fixer-hint-text"}), hint.text_html));
  hints.hidden = false;
  hints.append(item);
}

async function startWork(exercise, slug, parts, onCheck) {
  const number = exercise.dataset.exercise;
  const work = exercise.querySelector(".exercise-work");
  const check = work.querySelector(".exercise-check");
  const verdict = work.querySelector(".exercise-verdict");
  const hints = work.querySelector(".exercise-hints");
  let checking = false;
  let editors = [];
  const run = async () => {
    if (checking) return;
    checking = true;
    verdict.dataset.result = "pending";
    verdict.replaceChildren(el("p", {class: "feedback-meta"}, "Running your code…"));
    const sent = await sendAnswer({
      holder: check, feedback: verdict, what: "Checking your code", waitHost: verdict,
      url: lessonUrl(slug, "exercises", number), body: {lines: editors.map((editor) => editor.getCode())},
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    checking = false;
    const result = sent?.data;
    if (!result) return;
    if (result.passed) exercise.dataset.solved = "true";
    showCheck(verdict, hints, result);
    onCheck?.(result);
  };
  work.hidden = false;
  editors = await drawParts(work, parts, number, run);
  check.addEventListener("click", run);
  return editors;
}

function startDiagnosis(exercise, slug) {
  const box = exercise.querySelector(".exercise-diagnosis");
  const reveal = exercise.querySelector(".exercise-reveal");
  const buttons = [...box.querySelectorAll("button.choice")];
  for (const button of buttons) {
    button.addEventListener("click", async () => {
      // The box holds the confidence fieldset: how sure is asked first, as for a prediction.
      const sent = await sendAnswer({
        holder: box, feedback: reveal, what: "Sending your diagnosis",
        url: lessonUrl(slug, "exercises", exercise.dataset.exercise, "diagnosis"),
        body: {choice: button.dataset.choice},
      });
      const answer = sent?.data;
      if (!answer) return;
      for (const other of buttons) {
        other.disabled = true;
        other.setAttribute("aria-pressed", String(other === button));
      }
      const fieldset = box.querySelector("fieldset.confidence");
      if (fieldset) fieldset.disabled = true;
      const link = el("a", {href: answer.source.url}, answer.source.title);
      showVerdict(reveal, answer.correct ? "right" : "wrong");
      const told = [el("p", {class: "feedback-title"}, answer.correct ? "Right diagnosis." : "Not that one.")];
      if (answer.why_html) told.push(setServerHtml(el("p", {class: "feedback-why"}), answer.why_html));
      if (!answer.correct) told.push(el("p", {class: "feedback-meta"}, `The answer: ${answer.answer}`));
      told.push(setServerHtml(el("div", {class: "feedback-explanation"}), answer.explanation_html));
      told.push(el("p", {class: "feedback-meta"}, "The bug comes from ", link, ". Now fix it below."));
      reveal.replaceChildren(...told);
      const editors = await startWork(exercise, slug, answer.parts);
      editors[0]?.focus();
    });
  }
}

function mountExercise(exercise, slug, onCheck) {
  const parts = JSON.parse(exercise.querySelector(".exercise-work").dataset.parts || "[]");
  if (parts.length) startUp(startWork(exercise, slug, parts, onCheck));
  else startDiagnosis(exercise, slug);
}

/** A review item of code to write (data-widget="code"): its card, checked by running it; the
 *  check of a due item answers it (the server reschedules it), told once through onAnswer. */
export function mountCodeExercise(item, {lesson, onAnswer} = {}) {
  const exercise = item.querySelector(".exercise[data-exercise]");
  if (!exercise) return null;
  let told = false;
  mountExercise(exercise, lesson, (result) => {
    if (told || !result.comes_back) return;
    told = true;
    onAnswer?.(result, {data: {correct: result.passed, comes_back: result.comes_back, due_count: result.due_count}});
  });
  return exercise;
}

export function mountExercises(root, slug) {
  for (const exercise of root.querySelectorAll(".exercise[data-exercise]")) mountExercise(exercise, slug);
}

/** Code to write that waits for a step: once a commit may have opened it, the page is read
 *  again (a GET: the server decides what is open) and each card that now follows a waiting
 *  step takes the place of its note. */
async function openWaiting(article, slug) {
  const waiting = [...article.querySelectorAll(".exercise-waiting[data-after-step]")];
  if (!waiting.length) return;
  const page = await thisPageAgain();
  if (!page) return; // the note stays; a reload shows the cards
  for (const note of waiting) {
    const step = note.dataset.afterStep;
    const cards = [...page.querySelectorAll(`.exercise[data-exercise][data-after-step="${step}"]`)]
      .filter((card) => !article.querySelector(`#${card.id}`))
      .map((card) => document.importNode(card, true));
    if (!cards.length) continue;
    note.replaceWith(...cards);
    for (const card of cards) mountExercise(card, slug);
  }
}

/** Wire the exercises of the page's lesson (the deep dive and the pitfall fixer). */
export function startExercises() {
  const article = document.querySelector("article[data-lesson]");
  if (!article) return;
  const slug = article.dataset.lesson;
  mountExercises(article, slug);
  article.addEventListener("step-committed", () => openWaiting(article, slug));
}
