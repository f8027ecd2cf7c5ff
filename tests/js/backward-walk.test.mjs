// The backward walk's words (static/js/backward-walk.js): what each step says of a recorded
// call, in the shapes docs/backward-payload.md gives.

import assert from "node:assert/strict";
import {test} from "node:test";

import {hooksText, previewText, stepText} from "../../static/js/backward-walk.js";

const value = (values, shape = []) => ({values, shape, dtype: "torch.float32", cut: false});

// y = x * x at x = 1.0, then y.backward(): MulBackward0 sends 1. + 1. to x's AccumulateGrad.
const call = {
  roots: [{name: "y", implicit: true, gradient: null}],
  order: ["mul", "acc"],
  nodes: [
    {id: "mul", kind: "function", label: "MulBackward0", names: ["y"], received: [value(1)], sent: [value(1), value(1)], hooks: []},
    {id: "acc", kind: "accumulate", label: "AccumulateGrad", names: ["x"], received: [value(2)], sent: [], hooks: []},
  ],
  edges: [
    {source: "mul", target: "acc", slot: 0},
    {source: "mul", target: "acc", slot: 1},
  ],
  grads: [{node: "acc", name: "x", before: null, after: value(2)}],
};

test("a float torch prints with a trailing point ends the sentence once", () => {
  const texts = [0, 1, 2].map((step) => stepText(call, step));
  for (const text of texts) assert.doesNotMatch(text, /\.\.(?!\.)/, text);
  assert.equal(texts[2], "Step 2 of 2: AccumulateGrad (x) ran. It received 2. and wrote x.grad = 2. The backward call is done.");
});

test("each step names what its node received and sent, summed per target", () => {
  assert.equal(
    stepText(call, 1),
    "Step 1 of 2: MulBackward0 (y) ran. It received 1. and sent 1. + 1. to AccumulateGrad (x).",
  );
  assert.equal(stepText(call, 0), "Before the call: y starts with gradient 1 (implicit: a scalar output). 2 nodes will run.");
});

test("a hook's change is told before the node's own step, one full stop each", () => {
  const hooked = {
    ...call.nodes[1],
    hooks: [{name: "double", line: 3, tensor: "x", changed: true, before: value(2), after: value(4)}],
  };
  assert.equal(hooksText(hooked), "Before it ran, the hook double (line 3) on x changed 2. into 4.");
  const text = stepText({...call, nodes: [call.nodes[0], hooked]}, 2);
  assert.match(text, /wrote x\.grad = 2\. Before it ran, the hook double \(line 3\) on x changed 2\. into 4\. The backward/);
});

test("a cut preview says how much of the tensor it shows", () => {
  const cut = {values: [1, 2, 3], shape: [100], dtype: "torch.float32", cut: true};
  assert.equal(previewText(cut), "[1., 2., 3., …] (first 3 of 100, shape [100])");
  assert.equal(previewText(null), "None");
});
