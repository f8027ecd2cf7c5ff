// The question widgets by name, as a review item names its own (data-widget="choice", "yes-no",
// "value", "card", "code", "ordering" or "select-all"). Every widget is mounted the same way: mount(root, options), where the
// options a widget does not use are ignored (see each module for its own).
//
//   widgetFor(item)        the mount function for a review item, or null
//   settles(root, saved)   has `saved` (the step's saved progress that restores a step question,
//                          its data-saved field) settled the question? A committed answer does;
//                          a typed value once right or shown

import {mountCard} from "./card.js";
import {mountChoice} from "./choice.js";
import {mountCodeExercise} from "./code-exercise.js";
import {mountOrdering} from "./ordering.js";
import {mountSelectAll} from "./select-all.js";
import {mountValue, settles as valueSettles} from "./value.js";
import {mountYesNo} from "./yes-no.js";

export const WIDGETS = {
  choice: mountChoice, "yes-no": mountYesNo, value: mountValue, card: mountCard, code: mountCodeExercise,
  ordering: mountOrdering, "select-all": mountSelectAll,
};

export function widgetFor(item) {
  const name = item.dataset.widget; // from the kind's declaration (app/learning/kinds/)
  return Object.hasOwn(WIDGETS, name ?? "") ? WIDGETS[name] : null;
}

const SETTLES = {value: valueSettles};

export function settles(root, saved) {
  const name = root.dataset.widget ?? "";
  return Object.hasOwn(SETTLES, name) ? SETTLES[name](saved) : Boolean(saved);
}
