// The gradient doctor's small lines and numbers (static/js/doctor.js), run by
// `node --test tests/js` (tests/test_js_units.py runs it under pytest).

import assert from "node:assert/strict";
import {describe, test} from "node:test";

import {normText, sparkSegments} from "../../static/js/doctor.js";

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
