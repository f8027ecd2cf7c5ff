// The ordering widget (static/js/widgets/ordering.js) and the code-to-write widget
// (static/js/widgets/code-exercise.js) in a document (tests/js/dom.mjs): the markup of
// templates/_widgets.html's ordering macro (tests/js/fixtures/widgets.json) and templates/_exercise.html's exercise card, the
// server's answers of docs/http-contract.md (POST .../ordering, POST .../exercises/{n} and its
// diagnosis).

import assert from "node:assert/strict";
import {beforeEach, test} from "node:test";

import {mountCodeExercise} from "../../static/js/widgets/code-exercise.js";
import {mountOrdering} from "../../static/js/widgets/ordering.js";
import {WIDGETS, click, fixture, installDom, settle, stubFetch} from "./dom.mjs";

const LINES = ["y = x * x", "y.backward()", "print(x.grad)"]; // tests/js_fixtures.py ORDERING_LINES
const SHUFFLED = [LINES[1], LINES[0], LINES[2]];

const ORDERING = WIDGETS.ordering;

const parts = [
  {kind: "code", text: "x = torch.tensor(1.0, requires_grad=True)\n", indent: ""},
  {kind: "blank", text: "", indent: "    "},
];

const EXERCISE = (attrs) => `<div class="review-item"><div class="exercise" id="exercise-2" data-exercise="2" aria-labelledby="exercise-2-title">
  <h3 class="exercise-heading" id="exercise-2-title"><span class="exercise-kind">Fill in the line</span> Make x.grad 2</h3>
  <div class="exercise-task"><p>Write the line.</p></div>
  <div class="exercise-work" ${attrs}>
    <div class="exercise-code" aria-label="Exercise 2: the code, with 1 blank to write"></div>
    <div class="fixer-actions"><button type="button" class="btn btn-check exercise-check">Check my code</button></div>
    <div class="fixer-verdict exercise-verdict" role="status" aria-live="polite"></div>
    <ol class="fixer-hints exercise-hints" aria-label="Hints for exercise 2" hidden></ol>
  </div>
</div></div>`;

const escapeAttr = (text) => text.replaceAll("&", "&amp;").replaceAll("\"", "&quot;");

let root;
const q = (selector) => root.querySelector(selector);
const order = () => [...root.querySelectorAll(".ordering-line")].map((li) => li.dataset.line);

beforeEach(() => {
  installDom();
  // The editor factory the page's CodeMirror bundle provides: here a textarea per blank.
  window.GradlabEditor = {
    create(host, {label}) {
      const area = document.createElement("textarea");
      area.setAttribute("aria-label", label);
      host.append(area);
      return {getCode: () => area.value, focus: () => area.focus()};
    },
  };
});

test("Move up and Move down reorder the lines and say where the line went", () => {
  root = fixture(ORDERING);
  const widget = mountOrdering(root, {url: "/o"});
  assert.deepEqual(widget.order(), LINES);
  click(root.querySelectorAll(".ordering-line")[1].querySelector(".ordering-up"));
  assert.deepEqual(order(), SHUFFLED);
  assert.equal(q(".ordering-moved").textContent, "Moved to line 1 of 3.");
  click(root.querySelectorAll(".ordering-line")[0].querySelector(".ordering-up"));
  assert.equal(q(".ordering-moved").textContent, "Already the first line.");
  click(root.querySelectorAll(".ordering-line")[2].querySelector(".ordering-down"));
  assert.equal(q(".ordering-moved").textContent, "Already the last line.");
  assert.deepEqual(order(), SHUFFLED);
});

test("Check sends the order with the confidence; the verdict shows what it printed, the controls close", async () => {
  const calls = stubFetch(() => ({body: {correct: false, output: "<b>None</b>\n", error: null, answer: LINES, explanation_html: "<p>backward first</p>"}}));
  root = fixture(ORDERING);
  mountOrdering(root, {url: "/api/lessons/demo/steps/3/ordering", tryAgain: true});
  click(q(".ordering-check"));
  await settle();
  assert.equal(calls.length, 0, "how sure comes first");
  q("input[value='guess']").checked = true;
  click(q(".ordering-check"));
  await settle();
  assert.deepEqual(calls, [{url: "/api/lessons/demo/steps/3/ordering", method: "POST", body: {order: LINES, confidence: "guess"}}]);
  const box = q(".prediction-feedback");
  assert.equal(box.dataset.result, "wrong");
  const printed = [...box.querySelectorAll(".feedback-code")].map((pre) => pre.textContent);
  assert.deepEqual(printed, ["<b>None</b>\n", LINES.join("\n")]);
  assert.equal(box.querySelector("b"), null);
  assert.equal(box.querySelector(".feedback-explanation p").textContent, "backward first");
  assert.ok([...root.querySelectorAll(".ordering-moves button")].every((b) => b.disabled));
  assert.equal(q(".ordering-check").disabled, true);
  assert.equal(root.dataset.committed, "true");
  click(q(".try-again"));
  assert.equal(q(".ordering-check").disabled, false);
  assert.equal(box.textContent, "");
});

test("a review item's order goes to the step's route with its form; restore arranges the stored order", async () => {
  const calls = stubFetch(() => ({body: {correct: true, comes_back: "in 3 days", due_count: 0}}));
  root = fixture(ORDERING);
  const answers = [];
  const widget = mountOrdering(root, {url: "/unused", lesson: "demo", card: "3", form: 2, onAnswer: (reveal, how) => answers.push(how.data)});
  q("input[value='certain']").checked = true;
  click(q(".ordering-check"));
  await settle();
  assert.equal(calls[0].url, "/api/lessons/demo/steps/3/ordering?form=2");
  assert.deepEqual(answers, [{correct: true, comes_back: "in 3 days", due_count: 0}]);
  widget.reopen();
  widget.restore({kind: "ordering", sent: {order: SHUFFLED}, confidence: "certain", correct: true, reveal: {answer: LINES}});
  assert.deepEqual(order(), SHUFFLED);
  assert.equal(q("input[value='certain']").checked, true);
  assert.match(q(".prediction-feedback").textContent, /^Right: your order prints what is asked\.Your committed order is shown above\./);
});

test("a code exercise draws its given code and an editor per blank, and sends the lines", async () => {
  const calls = stubFetch(() => ({body: {passed: false, reasons_html: ["It printed <code>None</code>."],
    hint: {level: 1, title: "Where", text_html: "<p>Call <code>backward</code>.</p>"}, result: {}, comes_back: null, due_count: null}}));
  root = fixture(EXERCISE(`data-parts="${escapeAttr(JSON.stringify(parts))}"`));
  const answers = [];
  const exercise = mountCodeExercise(root, {lesson: "demo", onAnswer: (result) => answers.push(result)});
  assert.equal(exercise, q(".exercise"));
  await settle();
  assert.equal(q(".exercise-given").textContent, "x = torch.tensor(1.0, requires_grad=True)");
  const area = q(".exercise-blank textarea");
  assert.equal(area.getAttribute("aria-label"), "Exercise 2, your code");
  area.value = "x.backward()";
  click(q(".exercise-check"));
  await settle();
  assert.deepEqual(calls, [{url: "/api/lessons/demo/exercises/2", method: "POST", body: {lines: ["x.backward()"]}}]);
  const verdict = q(".exercise-verdict");
  assert.equal(verdict.dataset.result, "wrong");
  assert.equal(verdict.querySelector(".fixer-reasons code").textContent, "None");
  assert.equal(q(".exercise-hints").hidden, false);
  assert.equal(q(".fixer-hint-item .feedback-label").textContent, "Hint 1: Where");
  click(q(".exercise-check"));
  await settle();
  assert.equal(root.querySelectorAll(".fixer-hint-item").length, 1, "the same hint is shown once");
  assert.deepEqual(answers, [], "not a due item: nothing answered");
});

test("a passed check of a due item is told once, and marks the exercise solved", async () => {
  stubFetch(() => ({body: {passed: true, reasons_html: [], hint: null, result: {}, comes_back: "tomorrow", due_count: 4}}));
  root = fixture(EXERCISE(`data-parts="${escapeAttr(JSON.stringify(parts))}"`));
  const answers = [];
  mountCodeExercise(root, {lesson: "demo", onAnswer: (result, how) => answers.push(how.data)});
  await settle();
  click(q(".exercise-check"));
  await settle();
  click(q(".exercise-check"));
  await settle();
  assert.equal(q(".exercise-verdict").dataset.result, "right");
  assert.equal(q(".exercise").dataset.solved, "true");
  assert.deepEqual(answers, [{correct: true, comes_back: "tomorrow", due_count: 4}]);
});

test("an item without an exercise mounts nothing", () => {
  root = fixture(`<div class="review-item"><p>no exercise</p></div>`);
  assert.equal(mountCodeExercise(root, {lesson: "demo"}), null);
});
