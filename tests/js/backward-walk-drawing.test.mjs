// The backward walk drawn into a container (static/js/backward-walk.js renderBackwardWalk) in a
// document (tests/js/dom.mjs), from payloads shaped as docs/backward-payload.md gives: the
// nodes, the step buttons, the keyboard, the .grad table and the live region's text.

import assert from "node:assert/strict";
import {beforeEach, test} from "node:test";

import {renderBackwardWalk} from "../../static/js/backward-walk.js";
import {click, fixture, installDom, key} from "./dom.mjs";

const value = (values, shape = []) => ({values, shape, dtype: "torch.float32", cut: false});

// y = x * x at x = 1.0, then y.backward().
const CALL = {
  number: 1, api: "Tensor.backward", line: 3, retain_graph: false, create_graph: false, error: null, note: null,
  roots: [{name: "y", implicit: true, gradient: null}], inputs: [], unreached: ["w"],
  order: ["mul", "acc"],
  nodes: [
    {id: "mul", kind: "function", label: "MulBackward0", names: ["y"], step: 1, received: [value(1)], sent: [value(1), value(1)],
      saved: [{attr: "_saved_self", name: "x", shape: [], dtype: "torch.float32"}], hooks: []},
    {id: "acc", kind: "accumulate", label: "AccumulateGrad", names: ["x"], step: 2, received: [value(2)], sent: [], saved: [], hooks: []},
  ],
  edges: [{source: "mul", target: "acc", slot: 0}, {source: "mul", target: "acc", slot: 1}],
  grads: [{node: "acc", name: "x", before: null, after: value(2)}],
};

let container;
const q = (selector) => container.querySelector(selector);
const states = () => [...container.querySelectorAll(".bw-node")].map((g) => g.getAttribute("data-state"));

beforeEach(() => {
  installDom();
  container = fixture(`<div class="backward-walk" hidden></div>`);
});

test("no backward call: the container is emptied and hidden", () => {
  container.hidden = false;
  container.append("old");
  renderBackwardWalk(container, {calls: [], total_calls: 0});
  assert.equal(container.hidden, true);
  assert.equal(container.textContent, "");
  renderBackwardWalk(container, null);
  assert.equal(container.hidden, true);
});

test("one call draws its nodes, its edge label, its title and starts before the call", () => {
  renderBackwardWalk(container, {calls: [CALL], total_calls: 1, note: null});
  assert.equal(container.hidden, false);
  assert.equal(q("summary.bw-title").textContent, "Watch backward() run, node by node (one call)");
  assert.equal(q(".bw-summary").textContent, "Call 1: y.backward() on line 3.");
  assert.deepEqual([...container.querySelectorAll(".bw-node-label")].map((t) => t.textContent), ["MulBackward0", "AccumulateGrad"]);
  assert.deepEqual([...container.querySelectorAll(".bw-node-sub")].map((t) => t.textContent), ["= y", "→ x.grad"]);
  assert.equal(q(".bw-node title").textContent, "MulBackward0 (y); saved for backward: self: x");
  assert.equal(container.querySelectorAll(".bw-edge").length, 1, "two slots to one node: one edge");
  assert.equal(q(".bw-edge-label").getAttribute("aria-label"), "Gradient from MulBackward0 (y) to AccumulateGrad (x): 1. + 1.");
  assert.deepEqual(states(), ["pending", "pending"]);
  assert.equal(q(".bw-counter").textContent, "Step 0 of 2");
  assert.equal(q(".bw-back").disabled, true);
  assert.equal(q(".bw-live").getAttribute("aria-live"), "polite");
  assert.equal(q(".bw-live").textContent, "Before the call: y starts with gradient 1 (implicit: a scalar output). 2 nodes will run.");
  assert.equal(q(".bw-grad-now").textContent, "None");
  assert.match(q(".bw-notes").textContent, /Not in this graph \(cut by detach, no_grad or never used\): w\./);
});

test("Step lights the nodes in order, writes x.grad, and the live region tells each step", () => {
  renderBackwardWalk(container, {calls: [CALL], total_calls: 1});
  click(q(".bw-step"));
  assert.deepEqual(states(), ["current", "pending"]);
  assert.equal(q(".bw-edge").getAttribute("data-state"), "current");
  assert.equal(q(".bw-edge-label").getAttribute("tabindex"), "0");
  assert.equal(q(".bw-live").textContent, "Step 1 of 2: MulBackward0 (y) ran. It received 1. and sent 1. + 1. to AccumulateGrad (x).");
  assert.equal(q(".bw-grad-now").textContent, "None");
  click(q(".bw-step"));
  assert.deepEqual(states(), ["done", "current"]);
  assert.equal(q(".bw-counter").textContent, "Step 2 of 2");
  assert.equal(q(".bw-step").disabled, true);
  assert.equal(q(".bw-grad-now").textContent, "2.");
  assert.equal(q("tr[data-name='x'] td:last-child").dataset.changed, "true");
  assert.match(q(".bw-live").textContent, /wrote x\.grad = 2\. The backward call is done\.$/);
  click(q(".bw-back"));
  assert.equal(q(".bw-counter").textContent, "Step 1 of 2");
  assert.equal(q(".bw-grad-now").textContent, "None");
});

test("the keyboard steps: End, Home and the arrows", () => {
  renderBackwardWalk(container, {calls: [CALL], total_calls: 1});
  const stage = q(".bw-stage");
  key(stage, "End");
  assert.equal(q(".bw-counter").textContent, "Step 2 of 2");
  key(stage, "ArrowRight");
  assert.equal(q(".bw-counter").textContent, "Step 2 of 2", "no step past the end");
  key(stage, "ArrowLeft");
  assert.equal(q(".bw-counter").textContent, "Step 1 of 2");
  key(stage, "Home");
  assert.equal(q(".bw-counter").textContent, "Step 0 of 2");
  key(stage, "x");
  assert.equal(q(".bw-counter").textContent, "Step 0 of 2");
});

test("several calls get a picker; picking one draws that call", () => {
  const second = {...CALL, number: 2, api: "torch.autograd.grad", line: 7, grads: [],
    inputs: [{name: "x", result: value(2)}], unreached: []};
  renderBackwardWalk(container, {calls: [CALL, second], total_calls: 3, note: "Later calls were not recorded."});
  assert.equal(q("summary.bw-title").textContent, "Watch backward() run, node by node (3 calls)");
  const select = q("select.bw-select");
  assert.deepEqual([...select.options].map((o) => o.textContent), ["1: y.backward() on line 3", "2: torch.autograd.grad(y, x) on line 7"]);
  assert.equal(q(".bw-summary").hidden, true);
  assert.ok(q(".bw-grads"), "the first call writes .grad: its table is shown");
  select.value = "1";
  select.dispatchEvent(new window.Event("change"));
  assert.equal(q(".bw-grads"), null, "autograd.grad writes no .grad");
  assert.match(q(".bw-notes").textContent, /returns the gradients instead of adding them into \.grad: x → 2\./);
  assert.equal(container.querySelector(":scope > details > .bw-note").textContent, "Later calls were not recorded.");
});

test("learner names and labels are text in the drawing", () => {
  const evil = "<img src=x onerror=alert(1)>";
  const call = {...CALL, roots: [{name: evil, implicit: true, gradient: null}],
    nodes: [{...CALL.nodes[0], names: [evil], label: "<b>Mul</b>"}, {...CALL.nodes[1], names: [evil]}],
    grads: [{...CALL.grads[0], name: evil}], unreached: [evil]};
  renderBackwardWalk(container, {calls: [call], total_calls: 1});
  assert.equal(container.querySelector("img, b"), null);
  assert.equal(q(".bw-node-label").textContent, "<b>Mul</b>");
  assert.equal(q(".bw-grads tbody th code").textContent, `${evil}.grad`);
  assert.ok(q(".bw-live").textContent.startsWith(`Before the call: ${evil} starts`));
});
