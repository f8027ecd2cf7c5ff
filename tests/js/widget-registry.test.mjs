// Which question widget a review item gets (static/js/widgets/registry.js): the item's own
// data-widget, which the server writes from the question kind's declaration.

import assert from "node:assert/strict";
import {test} from "node:test";

import {WIDGETS, settles, widgetFor} from "../../static/js/widgets/registry.js";

const item = (dataset) => ({dataset});

test("an item that names its widget gets that widget, whatever its kind", () => {
  for (const name of ["choice", "yes-no", "value", "card", "code"]) {
    assert.equal(widgetFor(item({widget: name, kind: "myth"})), WIDGETS[name]);
  }
});

test("an item without data-widget gets none: the browser never maps a kind itself", () => {
  assert.equal(widgetFor(item({kind: "prediction"})), null);
  assert.equal(widgetFor(item({kind: "myth"})), null);
});

test("an unknown widget or kind gets none", () => {
  assert.equal(widgetFor(item({widget: "slider"})), null);
  assert.equal(widgetFor(item({kind: "essay"})), null);
  assert.equal(widgetFor(item({widget: "constructor"})), null);
  assert.equal(widgetFor(item({})), null);
});

test("a step question's saved progress settles it as its widget says", () => {
  const choice = item({widget: "choice"});
  assert.equal(settles(choice, {kind: "prediction", sent: {choice: "None"}, correct: false}), true);
  assert.equal(settles(choice, undefined), false);
  const value = item({widget: "value"});
  assert.equal(settles(value, {value: "[1]", correct: false, revealed: false}), false);
  assert.equal(settles(value, {value: "[1]", correct: false, revealed: true}), true);
  assert.equal(settles(value, {value: "[2]", correct: true, revealed: false}), true);
  assert.equal(settles(value, null), false);
});
