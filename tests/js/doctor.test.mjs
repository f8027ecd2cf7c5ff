// The gradient doctor's small lines and numbers (static/js/doctor.js), run by
// `node --test tests/js` (tests/test_js_units.py runs it under pytest).

import assert from "node:assert/strict";
import {describe, test} from "node:test";

import {normText, sparkSegments, walkStepFor} from "../../static/js/doctor.js";

describe("sparkSegments", () => {
  test("a gap where a call gave no gradient splits the line", () => {
    const segments = sparkSegments([1, 10, null, 100], 120, 24);
    assert.equal(segments.length, 2);
    assert.equal(segments[0].length, 2);
    assert.equal(segments[1].length, 1);
  });

  test("norms on a log scale: the largest at the top, the smallest at the bottom", () => {
    const [points] = sparkSegments([1e-6, 1, 1e6], 120, 24);
    const ys = points.map((p) => Number(p.split(",")[1]));
    assert.deepEqual(ys, [23, 12, 1]);
  });

  test("no gradient at all draws nothing; one value sits in the middle", () => {
    assert.deepEqual(sparkSegments([null, null]), []);
    assert.deepEqual(sparkSegments([0.5], 120, 24), [["1.0,12.0"]]);
  });
});

describe("normText", () => {
  test("plain for ordinary sizes, exponent for tiny and huge ones, words for none", () => {
    assert.equal(normText(null), "none");
    assert.equal(normText(0), "0");
    assert.equal(normText(0.123456), "0.123");
    assert.equal(normText(1.2e-7), "1.2e-7");
    assert.equal(normText(8.4e16), "8.4e+16");
  });
});

describe("walkStepFor", () => {
  // Two recorded calls (the run's 3rd and 4th backward calls); in the 4th, b1 sent the first
  // NaN at its engine step 1, and b2 raised before it finished (step null).
  const node = (id, step) => ({id, step, label: "MulBackward0", kind: "function"});
  const backward = {
    calls: [
      {number: 3, order: ["b0"], nodes: [node("b0", 0), node("b1", null)]},
      {number: 4, order: ["b0", "b1"], nodes: [node("b0", 0), node("b1", 1), node("b2", null)]},
    ],
  };

  test("a node that ran: the walk's step is the one after which it has run", () => {
    assert.deepEqual(walkStepFor({call: 4, node: "b1"}, backward), {index: 1, step: 2, node: "b1", ran: true});
    assert.deepEqual(walkStepFor({call: 3, node: "b0"}, backward), {index: 0, step: 1, node: "b0", ran: true});
  });

  test("a node that raised: the walk's last step, where the call stops", () => {
    assert.deepEqual(walkStepFor({call: 4, node: "b2"}, backward), {index: 1, step: 2, node: "b2", ran: false});
  });

  test("the call is found by its number, not its place among the recorded ones", () => {
    assert.equal(walkStepFor({call: 1, node: "b0"}, backward), null);
    assert.equal(walkStepFor({call: 3, node: "b2"}, backward), null); // b2 is the 4th call's
  });

  test("a finding without a node, or a run without a walk, opens nothing", () => {
    assert.equal(walkStepFor({kind: "no-grad", call: null, node: null}, backward), null);
    assert.equal(walkStepFor({kind: "no-grad"}, backward), null);
    assert.equal(walkStepFor({call: 4, node: "b1"}, null), null);
    assert.equal(walkStepFor({call: 4, node: "b1"}, {calls: []}), null);
    assert.equal(walkStepFor({call: "4", node: "b1"}, backward), null);
  });
});
