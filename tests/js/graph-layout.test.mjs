// The layered layout of the autograd graph and the backward walk (static/js/graph-layout.js),
// run by `node --test tests/js` (tests/test_js_units.py runs it under pytest).

import assert from "node:assert/strict";
import {describe, test} from "node:test";

import {layeredLayout} from "../../static/js/graph-layout.js";

const SPACING = {gapX: 16, layerGap: 40, margin: 10};

function boxes(...ids) {
  return ids.map((id) => ({id, width: 60 + id.length * 7, height: 30}));
}

function edges(...pairs) {
  return pairs.map((pair) => {
    const [source, target] = pair.split(">");
    return {source, target};
  });
}

/** Every pair of real boxes in one layer, and how far apart their edges are. */
function neighbourGaps(layout, items) {
  const byLayer = new Map();
  for (const item of items) {
    const b = layout.box(item.id);
    const row = byLayer.get(b.mid) ?? [];
    row.push({left: b.cx - item.width / 2, right: b.cx + item.width / 2, id: item.id});
    byLayer.set(b.mid, row);
  }
  const gaps = [];
  for (const row of byLayer.values()) {
    row.sort((a, b) => a.left - b.left);
    for (let i = 1; i < row.length; i++) gaps.push({between: [row[i - 1].id, row[i].id], gap: row[i].left - row[i - 1].right});
  }
  return gaps;
}

// A small autograd graph as torch draws it: loss = (x * w + b).sum(), with x a named tensor.
const MODEL = {
  boxes: boxes("loss", "Sum", "Add", "Mul", "w", "b", "x"),
  edges: edges("w>Mul", "x>Mul", "Mul>Add", "b>Add", "Add>Sum", "Sum>loss"),
};

describe("layeredLayout", () => {
  test("a chain runs straight down, one layer per box", () => {
    const layout = layeredLayout(boxes("a", "b", "c"), edges("a>b", "b>c"), SPACING);
    const [a, b, c] = ["a", "b", "c"].map((id) => layout.box(id));
    assert.equal(a.cx, b.cx);
    assert.equal(b.cx, c.cx);
    assert.equal(a.top, SPACING.margin);
    assert.equal(b.top, a.bottom + SPACING.layerGap);
    assert.equal(c.top, b.bottom + SPACING.layerGap);
  });

  test("every edge points down: its target's layer is below its source's", () => {
    const layout = layeredLayout(MODEL.boxes, MODEL.edges, SPACING);
    for (const {source, target} of MODEL.edges) {
      assert.ok(layout.box(target).top > layout.box(source).bottom, `${source} > ${target}`);
    }
    for (const route of layout.routes) assert.equal(route.upward, false);
  });

  test("boxes of one layer never overlap: at least gapX between neighbours", () => {
    const wide = boxes("root", "a", "bb", "ccc", "dddd", "eeeee", "ffffff");
    const fan = edges("root>a", "root>bb", "root>ccc", "root>dddd", "root>eeeee", "root>ffffff");
    for (const [items, links] of [[wide, fan], [MODEL.boxes, MODEL.edges]]) {
      const layout = layeredLayout(items, links, SPACING);
      for (const {between, gap} of neighbourGaps(layout, items)) {
        assert.ok(gap >= SPACING.gapX - 1e-9, `${between.join(" and ")} are ${gap}px apart`);
      }
    }
  });

  test("the drawing holds every box inside its margins", () => {
    const layout = layeredLayout(MODEL.boxes, MODEL.edges, SPACING);
    for (const item of MODEL.boxes) {
      const b = layout.box(item.id);
      assert.ok(b.cx - item.width / 2 >= SPACING.margin - 1e-9, `${item.id} sticks out left`);
      assert.ok(b.cx + item.width / 2 <= layout.width - SPACING.margin + 1e-9, `${item.id} sticks out right`);
      assert.ok(b.top >= SPACING.margin && b.bottom <= layout.height - SPACING.margin, `${item.id} sticks out`);
    }
    const left = Math.min(...MODEL.boxes.map((item) => layout.box(item.id).cx - item.width / 2));
    assert.equal(left, SPACING.margin); // and no wider than it needs
  });

  test("a long edge is routed through a dummy point on every layer it crosses", () => {
    const layout = layeredLayout(boxes("a", "b", "c", "d"), edges("a>b", "b>c", "c>d", "a>d"), SPACING);
    const long = layout.routes.find(({route}) => route[0] === "a" && route.at(-1) === "d");
    assert.equal(long.route.length, 4); // a, a dummy on layers 1 and 2, d
    const inner = long.route.slice(1, -1);
    assert.ok(inner.every((id) => layout.isDummy(id)));
    assert.equal(layout.isDummy("a"), false);
    const tops = long.route.map((id) => layout.box(id).mid);
    for (let i = 1; i < tops.length; i++) assert.ok(tops[i] > tops[i - 1]);
    const short = layout.routes.find(({route}) => route[0] === "a" && route.at(-1) === "b");
    assert.deepEqual(short.route, ["a", "b"]);
  });

  test("a source that feeds only a deep node sits right above it", () => {
    const layout = layeredLayout(MODEL.boxes, MODEL.edges, SPACING);
    // b feeds Add (layer 2): it moves down from the top row to layer 1, beside Mul.
    assert.equal(layout.box("b").mid, layout.box("Mul").mid);
    assert.ok(layout.box("b").mid > layout.box("w").mid);
    const toAdd = layout.routes.find(({route}) => route[0] === "b");
    assert.deepEqual(toAdd.route, ["b", "Add"]); // so its edge needs no dummy
  });

  test("sources are the boxes nothing points to, in the order given", () => {
    const layout = layeredLayout(MODEL.boxes, MODEL.edges, SPACING);
    assert.deepEqual(layout.sources, ["w", "b", "x"]);
  });

  test("a diamond is drawn symmetrically: the join sits under the fork", () => {
    const layout = layeredLayout(boxes("top", "l", "r", "end"), edges("top>l", "top>r", "l>end", "r>end"), SPACING);
    assert.ok(Math.abs(layout.box("top").cx - layout.box("end").cx) < 1e-9);
    const middle = (layout.box("l").cx + layout.box("r").cx) / 2;
    assert.ok(Math.abs(middle - layout.box("top").cx) < 1e-9);
  });

  test("a cycle stays finite, and its back edge is marked upward", () => {
    const layout = layeredLayout(boxes("a", "b", "c"), edges("a>b", "b>c", "c>b"), SPACING);
    // One edge of the pair b, c points down; the other, drawn against the flow, is upward.
    const pair = layout.routes.filter(({route}) => route[0] !== "a");
    assert.deepEqual(pair.map((r) => r.upward).sort(), [false, true]);
    const up = pair.find((r) => r.upward);
    assert.equal(up.route.length, 2); // no dummies on a back edge
    assert.ok(layout.box(up.route[1]).mid < layout.box(up.route[0]).mid);
    assert.ok(Number.isFinite(layout.width) && Number.isFinite(layout.height));
  });

  test("a layer is as tall as its tallest box, and smaller boxes sit in its middle", () => {
    const items = [{id: "a", width: 40, height: 20}, {id: "tall", width: 40, height: 60}, {id: "short", width: 40, height: 20}];
    const layout = layeredLayout(items, edges("a>tall", "a>short"), SPACING);
    const tall = layout.box("tall");
    const short = layout.box("short");
    assert.equal(tall.mid, short.mid);
    assert.equal(short.top, tall.top + 20);
    assert.equal(layout.height, SPACING.margin + 20 + SPACING.layerGap + 60 + SPACING.margin);
  });

  test("one box alone, and the same input always gives the same drawing", () => {
    const single = layeredLayout(boxes("only"), [], SPACING);
    assert.equal(single.box("only").top, SPACING.margin);
    assert.equal(single.width, Math.ceil(60 + 4 * 7 + 2 * SPACING.margin));
    const again = () => {
      const layout = layeredLayout(MODEL.boxes, MODEL.edges, SPACING);
      return MODEL.boxes.map((item) => layout.box(item.id));
    };
    assert.deepEqual(again(), again());
  });
});
