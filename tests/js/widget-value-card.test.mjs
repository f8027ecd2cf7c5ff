// The typed-value widget (static/js/widgets/value.js) and the flashcard widget
// (static/js/widgets/card.js) in a document (tests/js/dom.mjs): the markup of
// templates/_widgets.html (value; card_item with modes/_macros.html's grade buttons; in
// tests/js/fixtures/widgets.json), the
// server's answers of docs/http-contract.md (POST .../value; GET and POST .../flashcards/{id}).

import assert from "node:assert/strict";
import {beforeEach, test} from "node:test";

import {mountCard} from "../../static/js/widgets/card.js";
import {mountValue} from "../../static/js/widgets/value.js";
import {WIDGETS, click, fixture, installDom, settle, stubFetch} from "./dom.mjs";

const VALUE_URL = "/api/lessons/demo/steps/1/value";

const VALUE_FORM = WIDGETS.value;

const CARD = `<div class="review-item">${WIDGETS.card}</div>`;

beforeEach(() => installDom());

const valueForm = () => {
  const form = fixture(VALUE_FORM);
  return {form, input: form.querySelector("input"), check: form.querySelector("button[type=submit]"),
    show: form.querySelector(".show-answer"), box: form.querySelector(".value-feedback")};
};

test("the value widget ties its input and buttons to the verdict and the question", () => {
  const {input, check, box, form} = valueForm();
  mountValue(form, {url: VALUE_URL});
  assert.ok(box.id);
  assert.equal(input.getAttribute("aria-describedby"), box.id);
  assert.equal(check.getAttribute("aria-describedby"), form.querySelector("label").id);
});

test("an empty value is not sent: the learner is asked to type one", async () => {
  const calls = stubFetch(() => ({body: {}}));
  const {form, input, check, box} = valueForm();
  mountValue(form, {url: VALUE_URL});
  check.click();
  await settle();
  assert.equal(calls.length, 0);
  assert.match(box.textContent, /^Type a value first/);
  assert.equal(input.getAttribute("aria-invalid"), "true");
});

test("a wrong value says which elements are wrong; a right one shows the answer", async () => {
  const answers = [];
  let reply = {correct: false, parsed: true, shape_ok: true, elements: [true, false], expected_shape: [2], your_shape: [2]};
  const calls = stubFetch(() => ({body: reply}));
  const {form, input, check, box} = valueForm();
  mountValue(form, {url: VALUE_URL, onAnswer: (result, how) => answers.push(how.value)});
  input.value = " [2, 5] ";
  check.click();
  await settle();
  assert.deepEqual(calls.map((c) => c.body), [{value: "[2, 5]", reveal: false}]);
  assert.equal(box.dataset.result, "wrong");
  assert.equal(box.querySelector(".value-summary").textContent, "The shape is right; 1 of 2 numbers are right:");
  assert.equal(input.getAttribute("aria-invalid"), "true");
  assert.equal(form.dataset.correct, "false");
  reply = {correct: true, parsed: true, shape_ok: true, elements: [true, true], expected: [2, 4], explanation_html: "<p>2x</p>"};
  input.value = "[2, 4]";
  check.click();
  await settle();
  assert.equal(box.dataset.result, "right");
  assert.equal(box.querySelector(".feedback-answer").textContent, "Answer: x.grad = [2., 4.]");
  assert.equal(input.hasAttribute("aria-invalid"), false);
  assert.equal(form.dataset.correct, "true");
  assert.deepEqual(answers, ["[2, 5]", "[2, 4]"]);
});

test("an unreadable value counts for nothing and leaves the question open", async () => {
  stubFetch(() => ({body: {correct: false, graded: false, parsed: false, problem: "not a number"}}));
  const answers = [];
  const {form, input, check, box} = valueForm();
  mountValue(form, {url: VALUE_URL, once: true, onAnswer: () => answers.push(1)});
  input.value = "banana";
  check.click();
  await settle();
  assert.equal(box.querySelector(".value-problem").textContent, "That could not be read: not a number.");
  assert.equal(form.dataset.correct, undefined);
  assert.equal(input.disabled, false);
  assert.deepEqual(answers, []);
});

test("Show answer asks for the reveal, even with nothing typed; once closes the form", async () => {
  const calls = stubFetch(() => ({body: {correct: false, expected: 2, explanation_html: "<p>why</p>"}}));
  const {form, input, check, show, box} = valueForm();
  mountValue(form, {url: VALUE_URL, once: true});
  show.click();
  await settle();
  assert.deepEqual(calls.map((c) => c.body), [{value: "", reveal: true}]);
  assert.equal(box.dataset.result, "revealed");
  assert.equal(box.querySelector(".feedback-title").textContent, "Here is the answer.");
  assert.deepEqual([input.disabled, check.disabled, show.disabled], [true, true, true]);
});

test("restore puts the stored value back; only a right one gets a verdict", () => {
  const {form, input, box} = valueForm();
  const widget = mountValue(form, {url: VALUE_URL});
  widget.restore({value: "[9]", correct: false});
  assert.equal(input.value, "[9]");
  assert.equal(box.textContent, "");
  widget.restore({value: "<b>4</b>", correct: true});
  assert.equal(box.dataset.result, "right");
  assert.equal(box.textContent, "Correct.You answered <b>4</b> earlier.");
  assert.equal(box.querySelector("b"), null, "the stored value is text");
});

test("a value settles its question when right or shown, not on a wrong try; a settled restore says so", async () => {
  const settled = [];
  let reply = {correct: false, parsed: true, shape_ok: true, elements: [false], expected_shape: [1], your_shape: [1]};
  stubFetch(() => ({body: reply}));
  const {form, input, check, show} = valueForm();
  mountValue(form, {url: VALUE_URL, onAnswer: (_, how) => settled.push([how.settled, Boolean(how.restored)])});
  input.value = "[1]";
  check.click();
  await settle();
  assert.equal(form.dataset.committed, undefined, "a wrong try leaves the question open");
  reply = {correct: false, expected: [2], explanation_html: "<p>why</p>"};
  show.click();
  await settle();
  assert.equal(form.dataset.committed, "true", "the answer shown: done with, as a commit is");
  assert.deepEqual(settled, [[false, false], [true, false]]);
  const again = valueForm();
  const restored = [];
  const other = mountValue(again.form, {url: VALUE_URL, onAnswer: (_, how) => restored.push([how.settled, how.restored])});
  other.restore({value: "[9]", correct: false, revealed: false});
  assert.deepEqual(restored, [], "a wrong saved try settles nothing");
  other.restore({value: "[2]", correct: false, revealed: true});
  assert.deepEqual(restored, [[true, true]]);
  assert.equal(again.form.dataset.committed, "true");
});

test("the card turns over from the server, then a grade is sent and shown", async () => {
  const calls = stubFetch((url) => (url === "/api/review/7/answer"
    ? {body: {correct: true, graded: true, reveal: null, next_due: null, comes_back: "in 3 days", due_count: 3}}
    : {body: {back_html: "<p>every <em>term</em></p>", answer_html: "<code>each term</code>"}}));
  const root = fixture(CARD);
  const answers = [];
  mountCard(root, {lesson: "demo lesson", card: "c/1", url: "/api/review/7/answer", onAnswer: (result, how) => answers.push(how.rating)});
  const flip = root.querySelector(".flashcard-flip");
  const grading = root.querySelector(".flashcard-grading");
  click(flip);
  await settle();
  assert.equal(calls[0].url, "/api/lessons/demo%20lesson/flashcards/c%2F1");
  assert.equal(flip.hidden, true);
  assert.equal(grading.hidden, false);
  assert.equal(root.querySelector(".flashcard-text em").textContent, "term");
  assert.equal(root.querySelector(".flashcard-answer code").textContent, "each term");
  click(root.querySelector(".grade[data-grade='good']"));
  await settle();
  assert.deepEqual(calls[1], {url: "/api/review/7/answer", method: "POST", body: {rating: "good"}});
  const box = root.querySelector(".card-feedback");
  assert.equal(box.dataset.result, "right");
  assert.equal(box.textContent, "Rated good.");
  assert.ok([...root.querySelectorAll(".grade")].every((b) => b.disabled));
  assert.deepEqual(answers, ["good"]);
});

test("a card that cannot be turned over says so and stays face down", async () => {
  stubFetch(() => ({status: 404, body: {type: "/problems/unknown-card", title: "No such card", status: 404, detail: "No such card"}}));
  const root = fixture(CARD);
  mountCard(root, {lesson: "demo", card: "9", url: "/x"});
  click(root.querySelector(".flashcard-flip"));
  await settle();
  assert.equal(root.querySelector(".flashcard-back").textContent, "Turning the card over failed: not found. No such card.");
  assert.equal(root.querySelector(".flashcard-flip").hidden, false);
  assert.equal(root.querySelector(".flashcard-grading").hidden, true);
});

test("a refused rating opens the grades again; reset turns the card face down", async () => {
  stubFetch((url) => (url === "/x"
    ? {status: 422, body: {type: "/problems/not-an-answer", title: "Not an answer", status: 422, detail: "No rating"}}
    : {body: {back_html: "back", answer_html: null}}));
  const root = fixture(CARD);
  const widget = mountCard(root, {lesson: "demo", card: "1", url: "/x"});
  click(root.querySelector(".flashcard-flip"));
  await settle();
  click(root.querySelector(".grade"));
  await settle();
  const box = root.querySelector(".card-feedback");
  assert.equal(box.textContent, "Saving your rating was refused. No rating.");
  assert.ok([...root.querySelectorAll(".grade")].every((b) => !b.disabled));
  widget.reset();
  assert.equal(root.querySelector(".flashcard-back").textContent, "");
  assert.equal(box.dataset.result, undefined);
  assert.equal(root.querySelector(".flashcard-flip").hidden, false);
  assert.equal(root.querySelector(".flashcard-grading").hidden, true);
});
