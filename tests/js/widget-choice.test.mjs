// The prediction widget (static/js/widgets/choice.js) in a document (tests/js/dom.mjs): the
// markup of templates/_partials.html's step (templates/_widgets.html's choice and confidence
// macros, as tests/js/fixtures/widgets.json has them), the server's answers of docs/http-contract.md (POST .../prediction).

import assert from "node:assert/strict";
import {beforeEach, test} from "node:test";

import {mountChoice} from "../../static/js/widgets/choice.js";
import {WIDGETS, click, fire, fixture, installDom, settle, stubFetch} from "./dom.mjs";

const ANSWER_URL = "/api/lessons/demo/steps/1/prediction";

const STEP = `<li class="step" id="step-1" data-step="1">
  <div class="prediction" data-widget="choice" data-step="1">
    <p class="prediction-question"><strong>Predict first:</strong> What is <code>x.grad</code>?</p>
    ${WIDGETS.confidence}
    ${WIDGETS.choice}
    <div class="prediction-feedback" role="status" aria-live="polite"></div>
    <button type="button" class="try-again" hidden>Try again</button>
  </div>
  <div class="step-reveal" hidden></div>
</li>`;

const REVEAL = {
  correct: false, answer: "tensor(2.)", explanation_html: "<p>d(x*x)/dx is <em>2x</em>.</p>",
  why_html: "<code>None</code> is before backward.", output: "tensor(2.)\n", error: null, attempt: 1,
  step: {concept_html: "the chain rule", explanation_html: "<p>why</p>", insight_html: "grads add up"},
};

let root;
let feedback;
let buttons;

beforeEach(() => {
  installDom();
  const step = fixture(STEP);
  root = step.querySelector(".prediction");
  feedback = root.querySelector(".prediction-feedback");
  buttons = [...root.querySelectorAll(".choice")];
});

const choose = (value) => {
  const radio = root.querySelector(`input[value="${value}"]`);
  radio.checked = true;
  fire(radio, "change");
};

test("no answer is sent before the learner says how sure they are", async () => {
  const calls = stubFetch(() => ({body: REVEAL}));
  mountChoice(root, {url: ANSWER_URL});
  click(buttons[1]);
  await settle();
  assert.equal(calls.length, 0);
  assert.equal(feedback.dataset.result, "error");
  assert.match(feedback.textContent, /First say how sure you are/);
  choose("guess");
  assert.equal(feedback.textContent, "", "choosing a confidence takes the request away");
});

test("a pick sends its text and confidence, then shows the verdict, the reveal and the step's text", async () => {
  const calls = stubFetch(() => ({body: REVEAL}));
  const answers = [];
  mountChoice(root, {url: ANSWER_URL, tryAgain: true, onAnswer: (reveal, how) => answers.push([reveal, how])});
  choose("certain");
  click(buttons[1]);
  await settle();
  assert.deepEqual(calls, [{url: ANSWER_URL, method: "POST", body: {choice: "None", confidence: "certain"}}]);
  assert.equal(feedback.dataset.result, "wrong");
  assert.match(feedback.querySelector(".feedback-title").textContent, /^Not quite\. You were certain/);
  assert.equal(feedback.querySelector(".feedback-meta").textContent, "You answered None (certain).");
  assert.equal(feedback.querySelector(".feedback-answer").textContent, "Answer: tensor(2.)");
  assert.equal(feedback.querySelector(".feedback-output").textContent, "tensor(2.)\n");
  assert.equal(feedback.querySelector(".feedback-explanation em").textContent, "2x");
  const stepText = document.querySelector(".step-reveal");
  assert.equal(stepText.hidden, false);
  assert.match(stepText.textContent, /Key insight: grads add up/);
  assert.deepEqual(buttons.map((b) => [b.disabled, b.getAttribute("aria-pressed")]), [[true, "false"], [true, "true"]]);
  assert.ok(buttons[0].classList.contains("choice--answer"), "the right answer is marked");
  assert.ok(buttons[1].classList.contains("choice--chosen"));
  assert.equal(root.querySelector("fieldset.confidence").disabled, true);
  assert.equal(root.dataset.committed, "true");
  assert.equal(root.querySelector(".try-again").hidden, false);
  assert.equal(answers.length, 1);
  assert.equal(answers[0][1].choice, "None");
  assert.equal(answers[0][1].restored, false);
});

test("a committed question does not send twice", async () => {
  const calls = stubFetch(() => ({body: {...REVEAL, correct: true}}));
  mountChoice(root, {url: ANSWER_URL});
  choose("guess");
  click(buttons[0]);
  click(buttons[0]);
  await settle();
  click(buttons[1]);
  await settle();
  assert.equal(calls.length, 1);
  assert.match(feedback.textContent, /^Right\. You were only guessing/);
});

test("Try again opens the question: buttons, confidence and verdict as before, the step's text hidden", async () => {
  stubFetch(() => ({body: REVEAL}));
  const widget = mountChoice(root, {url: ANSWER_URL, tryAgain: true});
  choose("guess");
  click(buttons[1]);
  await settle();
  click(root.querySelector(".try-again"));
  assert.equal(feedback.textContent, "");
  assert.equal(feedback.dataset.result, undefined);
  assert.ok(buttons.every((b) => !b.disabled && !b.hasAttribute("aria-pressed") && !b.classList.contains("choice--chosen")));
  assert.equal(root.querySelector("fieldset.confidence").disabled, false);
  assert.equal(root.dataset.committed, undefined);
  assert.equal(root.querySelector(".try-again").hidden, true);
  assert.equal(document.querySelector(".step-reveal").hidden, true);
  assert.equal(typeof widget.reopen, "function");
});

test("a refusal is said in the verdict box and leaves the question open", async () => {
  stubFetch(() => ({status: 422, body: {type: "/problems/not-a-choice", title: "That is not one of the choices", status: 422, detail: "That is not one of the choices"}}));
  mountChoice(root, {url: ANSWER_URL});
  choose("guess");
  click(buttons[0]);
  await settle();
  assert.equal(feedback.dataset.result, "error");
  assert.equal(feedback.textContent, "Checking your prediction was refused. That is not one of the choices.");
  assert.ok(buttons.every((b) => !b.disabled));
  assert.equal(root.getAttribute("aria-busy"), null);
});

test("409 not-due settles the question without a reveal", async () => {
  stubFetch(() => ({status: 409, body: {type: "/problems/not-due", title: "Not due", status: 409, detail: "answered"}}));
  const answers = [];
  mountChoice(root, {url: ANSWER_URL, onAnswer: (reveal) => answers.push(reveal)});
  choose("guess");
  click(buttons[0]);
  await settle();
  assert.equal(feedback.dataset.result, "settled");
  assert.equal(feedback.textContent, "You answered this one already.");
  assert.deepEqual(answers, [null]);
  assert.ok(buttons.every((b) => b.disabled));
});

test("restore draws the committed answer, its confidence and the reveal, and sends nothing", () => {
  const calls = stubFetch(() => ({body: REVEAL}));
  const answers = [];
  const widget = mountChoice(root, {url: ANSWER_URL, onAnswer: (reveal, how) => answers.push(how.restored)});
  widget.restore({sent: {choice: "tensor(2.)"}, confidence: "fairly_sure", correct: true, reveal: {...REVEAL, correct: false}});
  assert.equal(calls.length, 0);
  assert.equal(root.querySelector("input[value='fairly_sure']").checked, true);
  assert.equal(feedback.dataset.result, "right", "the stored verdict wins over the reveal's");
  assert.equal(feedback.querySelector(".feedback-meta").textContent, "Your committed answer: tensor(2.) (fairly sure).");
  assert.ok(buttons[0].classList.contains("choice--chosen"));
  assert.deepEqual(answers, [true]);
  widget.restore(null);
  widget.restore({});
  assert.deepEqual(answers, [true], "nothing to restore: nothing happens");
});

test("the reveal's output and the choice's text stay text", async () => {
  stubFetch(() => ({body: {...REVEAL, output: "<img src=x onerror=alert(1)>", answer: "<b>no such choice</b>"}}));
  mountChoice(root, {url: ANSWER_URL});
  choose("guess");
  click(buttons[0]);
  await settle();
  assert.equal(feedback.querySelector(".feedback-output").textContent, "<img src=x onerror=alert(1)>");
  assert.equal(feedback.querySelector("img"), null);
  assert.equal(feedback.querySelector("b"), null);
  assert.equal(feedback.querySelector(".feedback-answer code").textContent, "<b>no such choice</b>");
});
