// The run output renderers (static/js/run-output.js) in a document (tests/js/dom.mjs): a
// runnable cell's output panes (templates/_partials.html) filled from POST /api/run answers
// (docs/http-contract.md). What the learner's code printed or raised is text, never markup.

import assert from "node:assert/strict";
import {beforeEach, test} from "node:test";

import {createOutput, resultStatus, withInlineCode} from "../../static/js/run-output.js";
import {fixture, installDom} from "./dom.mjs";

const CELL = `<section class="runnable">
  <div class="run-output" hidden>
    <pre class="run-stdout" tabindex="0" aria-label="Output"></pre>
    <pre class="run-stderr" tabindex="0" aria-label="Error"></pre>
    <p class="run-truncated"></p>
    <div class="error-hint" role="alert"><p class="error-hint-title"></p><p class="error-hint-message"></p><p class="error-hint-text"></p></div>
    <div class="inspector"></div>
    <div class="graph"></div>
    <div class="backward-walk" hidden></div>
  </div>
</section>`;

const TENSORS = [
  {name: "x", shape: [2], dtype: "torch.float32", requires_grad: true, is_leaf: true, grad_fn: null, value: [2.0, 3.0], grad: [4.0, 6.0]},
  {name: "y", shape: [], dtype: "torch.float32", requires_grad: true, is_leaf: false, grad_fn: "SumBackward0", value: 13.0, grad: null},
];

const OK = {status: "ok", stdout: "tensor([4., 6.])\n", stderr: "", truncated: false, error: null, tensors: TENSORS,
  graph: {nodes: [{id: "1", kind: "leaf", label: "x"}, {id: "2", kind: "function", label: "SumBackward0"}], edges: [{source: "2", target: "1"}]},
  duration_ms: 3.1};

let section;
let q;
let editor;

beforeEach(() => {
  installDom();
  section = fixture(CELL);
  q = (selector) => section.querySelector(selector);
  const lines = [];
  editor = {lines, highlightLine: (line) => { lines.push(line); return line !== null; }};
});

test("an ok run shows stdout and stderr as text, the inspector and the graph", () => {
  const output = createOutput(section);
  const status = output.render({...OK, stderr: "UserWarning: <b>careful</b>\n"}, editor);
  assert.deepEqual(status, ["Ran in 3 ms; 2 tensors to inspect below.", "ok"]);
  assert.equal(q(".run-output").hidden, false);
  assert.equal(q(".run-stdout").textContent, "tensor([4., 6.])\n");
  assert.equal(q(".run-stderr").textContent, "UserWarning: <b>careful</b>\n");
  assert.equal(q(".run-stderr b"), null);
  assert.equal(q(".run-stdout").getAttribute("aria-label"), "Output");
  assert.equal(q(".run-stderr").getAttribute("aria-label"), "Errors (stderr)");
  assert.equal(q(".error-hint").hidden, true);
  const names = [...q(".inspector").querySelectorAll("tbody th")].map((th) => th.textContent);
  assert.deepEqual(names, ["x", "y"]);
  assert.ok(q(".graph svg"), "the graph is drawn");
  assert.equal(q(".backward-walk").hidden, true, "no backward call: no walk");
  assert.deepEqual(editor.lines, [null]);
});

test("a learner's <script> in stdout stays text", () => {
  const output = createOutput(section);
  const printed = "<script>alert(1)</script><img src=x onerror=alert(2)>";
  output.render({...OK, stdout: printed, tensors: [{...TENSORS[0], name: "<i>x</i>"}]}, editor);
  assert.equal(q(".run-stdout").textContent, printed);
  assert.equal(q(".run-stdout").children.length, 0);
  assert.equal(section.querySelector("script, img, i"), null);
  assert.equal(q(".inspector tbody th").textContent, "<i>x</i>");
});

test("an error names its type and line, highlights the line, and its hint's code and lesson", () => {
  const output = createOutput(section);
  const result = {status: "error", stdout: "", stderr: "Traceback…", tensors: [], graph: null, duration_ms: 12,
    error: {type: "RuntimeError", message: "element 0 of tensors does not require grad <x>", line: 4,
      hint: "Call `requires_grad_()` on <the leaf>.", lesson: "leaf tensors"}};
  assert.deepEqual(output.render(result, editor), ["Raised RuntimeError on line 4.", "error"]);
  assert.deepEqual(editor.lines, [4]);
  assert.equal(q(".error-hint").hidden, false);
  assert.equal(q(".error-hint-title").textContent, "RuntimeError on line 4");
  assert.equal(q(".error-hint-message").textContent, "element 0 of tensors does not require grad <x>");
  assert.equal(q(".error-hint-text code").textContent, "requires_grad_()");
  assert.equal(q(".error-hint-text").textContent, "Call requires_grad_() on <the leaf>. Read the lesson that explains it.");
  assert.equal(q(".error-hint-text a").getAttribute("href"), "/lessons/leaf%20tensors");
  assert.equal(q(".inspector").children.length, 0, "a failed run without tensors draws no inspector");
});

test("a stopped run says why, in the learner's words", () => {
  const output = createOutput(section);
  assert.deepEqual(output.render({status: "timeout", stdout: "", stderr: "", error: null, tensors: []}, editor),
    ["Stopped: it ran out of time.", "timeout"]);
  assert.equal(q(".error-hint-title").textContent, "Stopped: the time limit ran out");
  assert.match(q(".error-hint-text").textContent, /loop that never ends/);
  output.render({status: "memory", stdout: "", stderr: "", error: {message: "over 512 MB"}, tensors: []}, editor);
  assert.equal(q(".error-hint-message").textContent, "over 512 MB");
});

test("truncated output says so; clear empties every pane; markStale marks a shown output", () => {
  const output = createOutput(section);
  assert.equal(output.markStale(), false, "nothing shown yet");
  output.render({...OK, truncated: true}, editor);
  assert.match(q(".run-truncated").textContent, /cut short/);
  assert.equal(output.markStale(), true);
  assert.equal(q(".run-output").dataset.stale, "true");
  output.clear();
  assert.equal(q(".run-output").dataset.stale, undefined);
  for (const pane of [".run-stdout", ".run-stderr", ".run-truncated", ".error-hint-title"]) assert.equal(q(pane).textContent, "", pane);
  assert.equal(q(".inspector").children.length, 0);
  assert.equal(q(".graph").children.length, 0);
});

test("the status line and the inline code of hints", () => {
  assert.deepEqual(resultStatus({status: "ok", tensors: [], duration_ms: 2500}), ["Ran in 2.5 s.", "ok"]);
  assert.deepEqual(resultStatus({status: "error", error: {type: "SyntaxError"}}), ["Raised SyntaxError.", "error"]);
  assert.deepEqual(resultStatus({status: "killed"}), ["Stopped: the run ended abnormally.", "killed"]);
  assert.deepEqual(resultStatus({status: "weird", duration_ms: 0.2}), ["Finished in 1 ms.", ""]);
  const nodes = withInlineCode("a `b` c `<d>`");
  assert.deepEqual(nodes.map((n) => (typeof n === "string" ? n : `[${n.tagName}:${n.textContent}]`)), ["a ", "[CODE:b]", " c ", "[CODE:<d>]"]);
});
