// The myth widget (static/js/widgets/yes-no.js) in a document (tests/js/dom.mjs): the markup of
// templates/lesson.html's myth (templates/_widgets.html's yes_no macro), the server's answer of
// POST /api/lessons/{slug}/myths/{n}/answer (docs/http-contract.md).

import assert from "node:assert/strict";
import {beforeEach, test} from "node:test";

import {mountYesNo} from "../../static/js/widgets/yes-no.js";
import {WIDGETS, click, fixture, installDom, settle, stubFetch} from "./dom.mjs";

const ANSWER_URL = "/api/lessons/demo/myths/1/answer";

const MYTH = `<li class="myth" id="myth-1" data-myth="1">
  <p class="myth-question"><strong>Is <code>.grad</code> filled when the tensor is created?</strong></p>
  ${WIDGETS.yes_no}
  <div class="myth-feedback" role="status" aria-live="polite"></div>
</li>`;

const REVEAL = {
  correct: true, answer: "no", belief_html: "It starts at <em>zero</em>.", reality_html: "<p>It is None until backward.</p>",
  why_it_matters_html: "<p>Checks for None.</p>", demo: {code: "print(x.grad)", output: "None\n"},
};

let root;
let yes;
let no;
let feedback;

beforeEach(() => {
  installDom();
  root = fixture(MYTH);
  [yes, no] = root.querySelectorAll(".myth-answer");
  feedback = root.querySelector(".myth-feedback");
});

test("mounting labels the button group by its question", () => {
  mountYesNo(root, {url: ANSWER_URL});
  const question = root.querySelector(".myth-question");
  assert.match(question.id, /^myth-q-\d+$/);
  assert.ok(feedback.classList.contains("verdict"));
  // The template's aria-label stays: a group that has a role keeps its own name.
  assert.equal(root.querySelector(".myth-buttons").getAttribute("aria-labelledby"), null);
});

test("an answer sends yes or no and shows the full reveal", async () => {
  const calls = stubFetch(() => ({body: REVEAL}));
  const answers = [];
  mountYesNo(root, {url: ANSWER_URL, onAnswer: (reveal, how) => answers.push(how.mine)});
  click(no);
  await settle();
  assert.deepEqual(calls, [{url: ANSWER_URL, method: "POST", body: {answer: "no"}}]);
  assert.equal(feedback.dataset.result, "right");
  assert.equal(feedback.querySelector(".feedback-title").textContent, "Right.");
  assert.equal(feedback.querySelector(".feedback-meta").textContent, "You said No. The answer is No.");
  assert.equal(feedback.querySelector(".feedback-belief em + span em").textContent, "zero");
  assert.equal(feedback.querySelector(".feedback-demo code").textContent, "print(x.grad)");
  assert.deepEqual([yes.disabled, no.disabled, no.getAttribute("aria-pressed")], [true, true, "true"]);
  assert.ok(no.classList.contains("myth-answer--chosen"));
  assert.equal(root.dataset.answered, "true");
  assert.deepEqual(answers, ["no"]);
});

test("the brief verdict gives only right or wrong and the answer", async () => {
  stubFetch(() => ({body: {...REVEAL, correct: false}}));
  mountYesNo(root, {url: ANSWER_URL, verdict: "brief"});
  click(yes);
  await settle();
  assert.equal(feedback.dataset.result, "wrong");
  assert.equal(feedback.textContent, "Not quite. The answer is No.Why comes with your score.");
  assert.equal(feedback.querySelector(".feedback-belief"), null);
});

test("with a confidence fieldset, how sure is asked first", async () => {
  root.querySelector(".myth-buttons").insertAdjacentHTML("beforebegin", `<fieldset class="confidence">
    <label><input type="radio" name="c" value="guess"> Guess</label><label><input type="radio" name="c" value="certain"> Certain</label></fieldset>`);
  const calls = stubFetch(() => ({body: REVEAL}));
  mountYesNo(root, {url: ANSWER_URL});
  click(yes);
  await settle();
  assert.equal(calls.length, 0);
  root.querySelector("input[value='certain']").checked = true;
  click(yes);
  await settle();
  assert.deepEqual(calls.map((c) => c.body), [{answer: "yes", confidence: "certain"}]);
  assert.equal(root.querySelector("fieldset.confidence").disabled, true);
});

test("reset opens the question again", async () => {
  stubFetch(() => ({body: REVEAL}));
  const widget = mountYesNo(root, {url: ANSWER_URL, tryAgain: true});
  click(no);
  await settle();
  assert.equal(root.querySelector(".try-again").hidden, false);
  widget.reset();
  assert.equal(feedback.textContent, "");
  assert.deepEqual([yes.disabled, no.disabled, no.hasAttribute("aria-pressed")], [false, false, false]);
  assert.equal(root.dataset.answered, undefined);
  assert.equal(root.querySelector(".try-again").hidden, true);
});

test("restore shows the stored answer as answered before, and sends nothing", () => {
  const calls = stubFetch(() => ({body: REVEAL}));
  const widget = mountYesNo(root, {url: ANSWER_URL});
  widget.restore({answer: "yes", correct: false, reveal: REVEAL});
  assert.equal(calls.length, 0);
  assert.equal(feedback.dataset.result, "wrong", "the stored verdict, not the reveal's");
  assert.equal(feedback.querySelector(".feedback-meta").textContent, "You answered Yes. The answer is No.");
  assert.ok(yes.classList.contains("myth-answer--chosen"));
  assert.ok(no.disabled);
});

test("a server error is said, and the buttons stay open", async () => {
  stubFetch(() => ({status: 500, body: null}));
  mountYesNo(root, {url: ANSWER_URL});
  click(yes);
  await settle();
  assert.equal(feedback.dataset.result, "error");
  assert.equal(feedback.textContent, "Checking your answer failed: the server had a problem (HTTP 500).");
  assert.equal(yes.disabled, false);
});

test("an unreachable server is said, not thrown", async () => {
  stubFetch(() => new TypeError("Failed to fetch"));
  mountYesNo(root, {url: ANSWER_URL});
  click(no);
  await settle();
  assert.equal(feedback.textContent, "Could not reach the server. Check your connection and try again.");
});

test("a 429 with Retry-After is waited out with a countdown, then sent again", async () => {
  let refusals = 1;
  const calls = stubFetch(() => (refusals-- > 0
    ? {status: 429, body: {type: "/problems/too-many-runs", title: "Too many", status: 429}, headers: {"Retry-After": "1"}}
    : {body: REVEAL}));
  mountYesNo(root, {url: ANSWER_URL});
  click(no);
  await settle();
  assert.equal(root.querySelector(".retry-wait .retry-text").textContent, "The server is busy: trying again in 1 second.");
  assert.equal(root.getAttribute("aria-busy"), "true");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await settle();
  assert.equal(calls.length, 2);
  assert.equal(root.querySelector(".retry-wait"), null);
  assert.equal(feedback.dataset.result, "right");
});

test("a countdown cancelled says so, and sends nothing more", async () => {
  const calls = stubFetch(() => ({status: 503, body: null, headers: {"Retry-After": "20"}}));
  mountYesNo(root, {url: ANSWER_URL});
  click(yes);
  await settle();
  click(root.querySelector(".retry-cancel"));
  await settle();
  assert.equal(calls.length, 1);
  assert.equal(feedback.textContent, "Checking your answer was cancelled.");
  assert.equal(yes.disabled, false);
});
