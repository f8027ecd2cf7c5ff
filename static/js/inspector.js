// The .grad inspector: one table row per tensor of a POST /api/run answer.
//
//   renderInspector(container, tensors, backward)  fills `container` with the table
//   formatTensorValue(value, {dtype})    torch-like compact text for a value
//   knownTerms(node)                     the autograd terms the learner has been taught

const INTEGER_DTYPE = /int|long|short|uint|byte/i;
const BOOL_DTYPE = /bool/i;

function flatten(value, out = []) {
  if (Array.isArray(value)) {
    for (const item of value) flatten(item, out);
  } else {
    out.push(value);
  }
  return out;
}

// Like torch's printing: if every element is a whole number, "4."; otherwise
// 4 decimals for all elements, or scientific notation when the magnitudes
// make fixed notation useless.
function floatFormatter(numbers) {
  const finite = numbers.filter((x) => typeof x === "number" && Number.isFinite(x));
  const magnitudes = finite.map(Math.abs).filter((x) => x > 0);
  const max = magnitudes.length ? Math.max(...magnitudes) : 0;
  const min = magnitudes.length ? Math.min(...magnitudes) : 0;
  const wholeNumbers = finite.every(Number.isInteger);
  const scientific = max > 1e8 || (min > 0 && max / min > 1000) || (!wholeNumbers && min > 0 && min < 1e-4);
  if (scientific) return (x) => x.toExponential(4).replace(/e([+-])(\d)$/, "e$10$2");
  if (wholeNumbers) return (x) => `${x.toFixed(0)}.`;
  return (x) => x.toFixed(4);
}

function specialNumber(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  return null;
}

/**
 * Format a tensor value (a number, a nested list, or null) compactly, the way
 * torch prints it: [4., 6.], [[1.5000, 2.0000]], 13., None. `dtype` (e.g.
 * "torch.int64") picks integer or bool printing; without it numbers print as
 * floats, which is what .grad always is.
 */
export function formatTensorValue(value, {dtype = ""} = {}) {
  if (value === null || value === undefined) return "None";
  const isBool = BOOL_DTYPE.test(dtype);
  const isInt = INTEGER_DTYPE.test(dtype);
  const formatFloat = floatFormatter(flatten(value));
  const formatLeaf = (x) => {
    if (typeof x === "boolean") return x ? "True" : "False";
    if (typeof x === "string") return x; // "nan", "inf": JSON has no literal for them
    if (typeof x !== "number") return JSON.stringify(x);
    const special = specialNumber(x);
    if (special) return special;
    if (isBool) return x ? "True" : "False";
    if (isInt) return String(Math.trunc(x));
    return formatFloat(x);
  };
  const format = (v) => (Array.isArray(v) ? `[${v.map(format).join(", ")}]` : formatLeaf(v));
  return format(value);
}

/** How many elements a (possibly previewed) value holds. */
export function countElements(value) {
  if (value === null || value === undefined) return 0;
  return flatten(value).length;
}

// Terms a lesson teaches: until then the inspector leaves out their columns and notes. A lesson
// page names the terms its learner knows in `data-known-terms` (the server decides, from the
// path and the learner's progress: app/learning/pages/jargon.py); a page without it knows them all.
export const TERMS = ["is_leaf", "grad_fn", "retain_grad", "retain_graph"];
let showingAll = false; // "Show all columns" was pressed on this page

/** The terms known where `node` is (a Set). */
export function knownTerms(node) {
  const holder = node?.closest?.("[data-known-terms]");
  if (!holder || showingAll) return new Set(TERMS);
  return new Set(holder.dataset.knownTerms.split(/\s+/).filter((term) => TERMS.includes(term)));
}

function notALeaf(known) {
  if (known.has("retain_grad")) return "not a leaf: call .retain_grad() before backward()";
  if (known.has("is_leaf")) return "not a leaf: autograd keeps .grad only on leaves";
  return "computed from other tensors: autograd keeps .grad only on the tensors you made";
}

/**
 * Why torch holds None for this tensor's .grad, in learner's words, from what the run really
 * did: `calls` are the run's recorded backward calls (`backward.calls` of POST /api/run), and
 * `known` the terms the note may use.
 */
export function whyGradIsNone(tensor, calls = [], known = new Set(TERMS)) {
  if (!tensor.requires_grad) return "requires_grad is False: autograd does not track it";
  if (!tensor.is_leaf) return notALeaf(known);
  const filled = calls.some((call) => (call.grads || []).some(
    (change) => change.name === tensor.name && change.after !== null && change.after !== undefined));
  if (filled) return "a backward() filled it, then it was cleared (opt.zero_grad() or .grad = None)";
  if (calls.some((call) => (call.unreached || []).includes(tensor.name))) {
    return "backward() ran, but not through it (cut by detach or no_grad, or never used)";
  }
  if (calls.length === 0) return "no backward() has run";
  return "no backward() has reached it";
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, val] of Object.entries(attrs)) {
    if (val !== null && val !== undefined) node.setAttribute(key, val);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

const pythonBool = (flag) => el("code", {class: flag ? "py-true" : "py-false"}, flag ? "True" : "False");

function formatShape(shape) {
  if (!Array.isArray(shape)) return "?";
  return `[${shape.join(", ")}]`;
}

function previewNote(tensor, value) {
  if (!tensor.preview) return null;
  const shown = countElements(value);
  const total = tensor.numel ?? "?";
  return el("span", {class: "inspector-preview"}, `first ${shown} of ${total}`);
}

function valueCell(tensor) {
  const cell = el("td", {class: "inspector-value"},
    el("code", {}, formatTensorValue(tensor.value, {dtype: tensor.dtype})));
  const note = previewNote(tensor, tensor.value);
  if (note) cell.append(" ", note);
  return cell;
}

function gradCell(tensor, calls, known) {
  if (tensor.grad === null || tensor.grad === undefined) {
    return el("td", {class: "inspector-grad inspector-grad--none"},
      el("code", {class: "grad-none"}, "None"), " ",
      el("span", {class: "grad-none-why"}, whyGradIsNone(tensor, calls, known)));
  }
  const cell = el("td", {class: "inspector-grad"},
    el("code", {}, formatTensorValue(tensor.grad, {dtype: tensor.dtype})));
  const note = previewNote(tensor, tensor.grad);
  if (note) cell.append(" ", note);
  return cell;
}

// `.grad` right after the name: the column the inspector is for is never the one cut off.
const COLUMNS = ["name", ".grad", "value", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn"];
const TERM_COLUMNS = ["is_leaf", "grad_fn"];

function showAllButton(hidden, redraw) {
  const button = el("button", {type: "button", class: "btn inspector-show-all"},
    `Show all columns (${hidden.join(", ")})`);
  button.addEventListener("click", () => {
    showingAll = true;
    redraw();
  });
  return el("p", {class: "inspector-more"}, button,
    el("span", {class: "muted"}, " The path explains them later."));
}

/**
 * Fill `container` with the .grad inspector for `tensors` (the `tensors`
 * array of a POST /api/run answer; `backward`, its `backward` field, explains
 * each None). The table scrolls sideways inside its own focusable wrapper, so a
 * narrow screen never scrolls the page.
 */
export function renderInspector(container, tensors, backward = null) {
  const calls = Array.isArray(backward?.calls) ? backward.calls : [];
  const known = knownTerms(container);
  const hidden = TERM_COLUMNS.filter((column) => !known.has(column));
  const columns = COLUMNS.filter((column) => !hidden.includes(column));
  container.replaceChildren();
  if (!Array.isArray(tensors) || tensors.length === 0) {
    container.append(el("p", {class: "inspector-empty"},
      "No tensors to inspect: the snippet bound no tensor to a top-level name."));
    return;
  }

  const captionId = `inspector-caption-${++renderInspector.count}`;
  const table = el("table", {class: "inspector-table"},
    el("caption", {id: captionId}, ".grad inspector"));
  const headRow = el("tr");
  for (const column of columns) {
    // The long header may break after its underscore when space is short.
    const th = el("th", {scope: "col"}, column);
    if (column === "requires_grad") th.replaceChildren("requires_", document.createElement("wbr"), "grad");
    headRow.append(th);
  }
  table.append(el("thead", {}, headRow));

  const body = el("tbody");
  for (const tensor of tensors) {
    const row = el("tr", {class: tensor.is_leaf && tensor.requires_grad ? "inspector-row--leaf" : null});
    row.append(
      el("th", {scope: "row"}, el("code", {}, String(tensor.name))),
      gradCell(tensor, calls, known),
      valueCell(tensor),
      el("td", {}, el("code", {title: Array.isArray(tensor.shape) && tensor.shape.length === 0
        ? "0-dimensional: a scalar tensor" : null}, formatShape(tensor.shape))),
      // "float32" rather than "torch.float32": the column says what it is.
      el("td", {}, el("code", {title: tensor.dtype ?? null}, String(tensor.dtype ?? "?").replace(/^torch\./, ""))),
      el("td", {}, pythonBool(tensor.requires_grad)),
    );
    if (known.has("is_leaf")) row.append(el("td", {}, pythonBool(tensor.is_leaf)));
    if (known.has("grad_fn")) row.append(el("td", {}, el("code", {}, tensor.grad_fn ?? "None")));
    body.append(row);
  }
  table.append(body);

  // A scrollable region must be reachable by keyboard to be scrollable by it.
  container.append(el("div", {class: "inspector-scroll", role: "region", tabindex: "0",
    "aria-labelledby": captionId}, table));
  if (hidden.length) {
    container.append(showAllButton(hidden, () => {
      renderInspector(container, tensors, backward);
      container.querySelector(".inspector-scroll").focus();
    }));
  }
}
renderInspector.count = 0;
