// The backward walk: each backward call of a POST /api/run answer (its
// `backward` field), stepped through node by node: the nodes light up in the
// order autograd ran them, each edge is labelled with the gradient it
// carried, and each leaf's .grad changes when its AccumulateGrad runs. Where
// a tensor hook ran on the gradient flowing into a node, the step and a note
// name the hook (function, line, tensor) and the gradient before and after.
//
//   renderBackwardWalk(container, backward)   fills `container` (or hides it)
//   openBackwardWalk(container, backward, index, step, nodeId, why)
//                                             opens it at a call and step, marks a node
//                                             (a gradient check's finding, doctor.js)
//
// Keyboard: arrow keys step, Home/End jump; a live region reads every step.
// Learner data is always text (textContent / SVG text nodes), never markup.
// Importing this module has no side effect.

import {layeredLayout} from "./graph-layout.js";
import {formatTensorValue, knownTerms} from "./inspector.js";
import {el, shorten, svg} from "./util.js";

const CHAR_WIDTH = 7.4;   // px per char of 12.5px monospace
const NODE_HEIGHT = 40;
const LAYER_GAP = 58;     // room for the gradient labels between layers
const GAP_X = 16;
const MARGIN = 10;
const LABEL_CHARS = 22;   // an edge label's preview; the full value on focus or hover
const PLAY_MS = 1100;

let instances = 0;

/** A recorded tensor as torch would print it; `cut` previews say how much is shown. */
export function previewText(preview) {
  if (!preview) return "None";
  const shape = Array.isArray(preview.shape) ? preview.shape : [];
  const total = shape.reduce((a, b) => a * b, 1);
  if (preview.values === null || preview.values === undefined) return `(shape [${shape.join(", ")}], values not recorded)`;
  const text = formatTensorValue(preview.values, {dtype: preview.dtype || ""});
  if (!preview.cut) return text;
  const shown = Array.isArray(preview.values) ? preview.values.length : 1;
  return `${text.replace(/\]$/, ", …]")} (first ${shown} of ${total}, shape [${shape.join(", ")}])`;
}

function nodeName(node) {
  if (!node) return "?";
  if (node.kind === "accumulate") return `AccumulateGrad (${node.names.length ? node.names.join(", ") : "an unnamed leaf"})`;
  return node.names.length ? `${node.label} (${node.names.join(", ")})` : node.label;
}

function callTitle(call) {
  const names = (items) => items.map((item) => item.name ?? "a tensor").join(", ");
  let text;
  if (call.api === "Tensor.backward") text = `${call.roots[0]?.name ?? "tensor"}.backward()`;
  else if (call.api === "torch.autograd.backward") text = `torch.autograd.backward(${names(call.roots)})`;
  else text = `torch.autograd.grad(${names(call.roots)}, ${names(call.inputs)})`;
  return `${call.number}: ${text}${Number.isInteger(call.line) ? ` on line ${call.line}` : ""}`;
}

// ---- Layout: graph-layout.js, with the edges between each pair once ---------

function layout(call) {
  const ids = new Set(call.nodes.map((n) => n.id));
  const edges = call.edges.filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target);
  const pairs = new Map(edges.map((e) => [`${e.source}\u0000${e.target}`, e]));
  const boxes = call.nodes.map((n) => ({
    id: n.id,
    width: Math.ceil(Math.max(n.label.length, nodeSubtitle(n).length) * CHAR_WIDTH + 24),
    height: NODE_HEIGHT,
  }));
  const placed = layeredLayout(boxes, [...pairs.values()], {gapX: GAP_X, layerGap: LAYER_GAP, margin: MARGIN});
  const box = new Map(boxes.map((b) => [b.id, {...placed.box(b.id), width: b.width}]));
  return {edges, box, width: placed.width, height: placed.height};
}

function nodeSubtitle(node) {
  if (node.kind === "accumulate") return `→ ${node.names[0] ?? "leaf"}.grad`;
  return node.names.length ? `= ${node.names.join(", ")}` : "";
}

// ---- One call ---------------------------------------------------------------

/** What flowed along each (source, target) pair: one entry per next_functions slot. */
function edgeGroups(call, edges) {
  const groups = new Map();
  for (const e of edges) {
    const key = `${e.source}\u0000${e.target}`;
    if (!groups.has(key)) groups.set(key, {source: e.source, target: e.target, slots: []});
    groups.get(key).slots.push(e.slot);
  }
  const byId = new Map(call.nodes.map((n) => [n.id, n]));
  for (const g of groups.values()) {
    const sent = byId.get(g.source).sent;
    g.grads = g.slots.map((slot) => sent[slot] ?? null).filter((p) => p !== null);
    g.full = g.grads.map(previewText).join(" + ");
  }
  return [...groups.values()];
}

function drawGraph(call, uid, onDetail) {
  const {edges, box, width, height} = layout(call);
  const byId = new Map(call.nodes.map((n) => [n.id, n]));
  const root = svg("svg", {class: "bw-svg", viewBox: `0 0 ${width} ${height}`, width, height,
    role: "img", "aria-label": `Graph of backward call ${call.number}: ${call.nodes.length} nodes`});
  root.style.maxWidth = `${width}px`;
  root.style.minWidth = `${Math.ceil(width * 0.7)}px`;
  root.append(svg("defs", {}, svg("marker", {id: `${uid}-arrow`, viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse"}, svg("path", {class: "bw-arrowhead", d: "M0,0 L10,5 L0,10 z"}))));
  const edgeLayer = svg("g", {class: "bw-edges"});
  const labelLayer = svg("g", {class: "bw-labels"});
  const drawn = {nodes: new Map(), edges: []};
  for (const group of edgeGroups(call, edges)) {
    const a = box.get(group.source);
    const b = box.get(group.target);
    const y1 = a.top + NODE_HEIGHT;
    const y2 = b.top;
    const mid = (y1 + y2) / 2;
    const path = svg("path", {class: "bw-edge", d: `M${a.cx},${y1} C${a.cx},${mid} ${b.cx},${mid} ${b.cx},${y2}`,
      "marker-end": `url(#${uid}-arrow)`});
    edgeLayer.append(path);
    const description = `Gradient from ${nodeName(byId.get(group.source))} to ${nodeName(byId.get(group.target))}: ${group.full || "None"}`;
    const text = shorten(group.full || "None", LABEL_CHARS);
    const labelWidth = text.length * 6.6 + 10;
    const label = svg("g", {class: "bw-edge-label", "aria-label": description},
      svg("title", {}, description),
      svg("rect", {x: (a.cx + b.cx) / 2 - labelWidth / 2, y: mid - 9, width: labelWidth, height: 18, rx: 4}),
      svg("text", {x: (a.cx + b.cx) / 2, y: mid + 4, "text-anchor": "middle"}, text));
    const show = () => onDetail(description);
    label.addEventListener("mouseenter", show);
    label.addEventListener("focus", show);
    labelLayer.append(label);
    drawn.edges.push({group, path, label});
  }
  const nodeLayer = svg("g", {class: "bw-nodes"});
  for (const node of call.nodes) {
    const b = box.get(node.id);
    const sub = nodeSubtitle(node);
    const saved = node.saved.map((s) => `${s.attr.replace(/^_saved_/, "")}: ${s.name ?? `shape [${s.shape.join(", ")}]`}`);
    const title = `${nodeName(node)}${saved.length ? `; saved for backward: ${saved.join(", ")}` : ""}`;
    const group = svg("g", {class: `bw-node bw-node--${node.kind === "accumulate" ? "accumulate" : "function"}`},
      svg("title", {}, title),
      svg("rect", {x: b.cx - b.width / 2, y: b.top, width: b.width, height: NODE_HEIGHT, rx: NODE_HEIGHT / 2}),
      svg("text", {class: "bw-node-label", x: b.cx, y: b.top + (sub ? 17 : 24), "text-anchor": "middle"}, node.label));
    if (sub) group.append(svg("text", {class: "bw-node-sub", x: b.cx, y: b.top + 32, "text-anchor": "middle"}, sub));
    group.addEventListener("mouseenter", () => onDetail(title));
    nodeLayer.append(group);
    drawn.nodes.set(node.id, group);
  }
  root.append(edgeLayer, nodeLayer, labelLayer);
  return {root, drawn};
}

/** A tensor hook as the walk names it: its function, where it is defined, its tensor. */
function hookName(hook) {
  const line = Number.isInteger(hook.line) ? ` (line ${hook.line})` : "";
  return `the hook ${hook.name}${line} on ${hook.tensor}`;
}

/** What the tensor hooks at a node did to the gradient flowing into it, in the order they ran. */
export function hooksText(node) {
  const hooks = Array.isArray(node?.hooks) ? node.hooks : [];
  if (!hooks.length) return "";
  const parts = hooks.map((hook) => (hook.changed
    ? `${hookName(hook)} changed ${previewText(hook.before)} into ${previewText(hook.after)}`
    : `${hookName(hook)} saw ${previewText(hook.before)} and left it as it was`));
  return `Before it ran, ${parts.join("; then ")}`;
}

// A sentence's full stop, unless its last word already ends in one: a float torch prints as
// "2." ends the sentence by itself ("wrote x.grad = 2.", never "2..").
const closed = (text) => (text.endsWith(".") ? text : `${text}.`);

/** What the walk says at `step` (0: before the call; N: after its Nth node ran). */
export function stepText(call, step) {
  const byId = new Map(call.nodes.map((n) => [n.id, n]));
  const total = call.order.length;
  if (step === 0) {
    const start = call.roots.map((r) => {
      const from = r.implicit ? "1 (implicit: a scalar output)" : previewText(r.gradient);
      return `${r.name ?? "the output"} starts with gradient ${from}`;
    }).join("; ");
    return `${closed(`Before the call: ${start}`)} ${total} node${total === 1 ? "" : "s"} will run.`;
  }
  const node = byId.get(call.order[step - 1]);
  const head = `Step ${step} of ${total}: ${nodeName(node)} ran`;
  let body;
  if (node.kind === "accumulate") {
    const change = call.grads.find((g) => g.node === node.id);
    const got = previewText(node.received[0] ?? null);
    body = change
      ? (change.before === null
        ? `. It received ${got} and wrote ${change.name}.grad = ${previewText(change.after)}`
        : `. It received ${got} and added it into ${change.name}.grad: ${previewText(change.before)} becomes ${previewText(change.after)}`)
      : `. It received ${got}`;
  } else {
    const received = node.received.map(previewText).join(" and ");
    // x * x sends along two slots to one node: "a + b to it", as the engine sums them.
    const sums = new Map();
    for (const e of call.edges) {
      if (e.source !== node.id || !node.sent[e.slot]) continue;
      sums.set(e.target, [...(sums.get(e.target) ?? []), previewText(node.sent[e.slot])]);
    }
    const targets = [...sums].map(([target, parts]) => `${parts.join(" + ")} to ${nodeName(byId.get(target))}`);
    body = `. It received ${received}${targets.length ? ` and sent ${targets.join(", ")}` : " and sent nothing on"}`;
  }
  const hooked = hooksText(node);
  return `${closed(`${head}${body}`)}${hooked ? ` ${closed(hooked)}` : ""}${step === total ? " The backward call is done." : ""}`;
}

function renderCall(host, call, uid) {
  const total = call.order.length;
  let step = 0;
  let timer = null;
  const detail = el("p", {class: "bw-detail"}, "Hover or focus a gradient to read it in full.");
  const setDetail = (text) => { detail.textContent = text; };
  const live = el("p", {class: "bw-live", role: "status", "aria-live": "polite"});
  const counter = el("span", {class: "bw-counter"});
  const back = el("button", {type: "button", class: "btn bw-back"}, "Back");
  const next = el("button", {type: "button", class: "btn bw-step"}, "Step");
  const play = el("button", {type: "button", class: "btn bw-play"}, "Play");
  const stage = el("div", {class: "bw-stage", tabindex: "0", role: "group", id: `${uid}-stage`,
    "aria-label": `Backward call ${call.number}: arrow keys step, Home and End jump`});
  const grads = el("tbody");
  // The table scrolls sideways on a narrow screen, so the keyboard can reach it.
  const table = el("table", {class: "bw-grads", tabindex: "0"}, el("caption", {}, ".grad during this call"),
    el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "tensor"), el("th", {scope: "col"}, "before"), el("th", {scope: "col"}, "now"))),
    grads);
  const rows = call.grads.map((change) => {
    const now = el("code", {class: "bw-grad-now"});
    grads.append(el("tr", {"data-name": change.name},
      el("th", {scope: "row"}, el("code", {}, `${change.name}.grad`)),
      el("td", {}, el("code", {}, previewText(change.before))), el("td", {}, now)));
    return {change, now};
  });
  const notes = el("div", {class: "bw-notes"});
  const say = (text) => notes.append(el("p", {class: "bw-note"}, text));
  if (call.unreached.length) say(`Not in this graph (cut by detach, no_grad or never used): ${call.unreached.join(", ")}. Their .grad does not change.`);
  if (call.api === "torch.autograd.grad") {
    say(closed(`torch.autograd.grad returns the gradients instead of adding them into .grad: ${call.inputs
      .map((i) => `${i.name ?? "input"} → ${previewText(i.result)}`).join(", ")}`));
  }
  // retain_graph is named once a lesson has taught it (inspector.js knownTerms).
  const retain = knownTerms(document.querySelector("[data-known-terms]")).has("retain_graph")
    ? `retain_graph=${call.retain_graph ? "True" : "False"}, ` : "";
  say(`${retain}create_graph=${call.create_graph ? "True" : "False"}.`);
  for (const node of call.nodes) {
    if ((node.hooks ?? []).some((hook) => hook.changed)) say(closed(`At ${nodeName(node)}: ${hooksText(node)}`));
  }
  if (call.error) say(`This call raised ${call.error}: the walk shows the nodes that ran before it.`);
  if (call.note) say(call.note);

  const byId = new Map(call.nodes.map((n) => [n.id, n]));
  const {root, drawn} = call.nodes.length ? drawGraph(call, uid, setDetail) : {root: null, drawn: null};
  stage.append(root ?? el("p", {class: "bw-note"}, "This call's graph was not recorded."));

  const show = () => {
    const done = new Set(call.order.slice(0, step));
    const current = step > 0 ? call.order[step - 1] : null;
    if (drawn) {
      for (const [id, group] of drawn.nodes) {
        const state = id === current ? "current" : done.has(id) ? "done" : step === total && byId.get(id).step === null ? "skipped" : "pending";
        group.setAttribute("data-state", state);
      }
      for (const {group, path, label} of drawn.edges) {
        const carried = done.has(group.source) && group.grads.length > 0;
        path.setAttribute("data-state", carried ? (group.source === current ? "current" : "done") : "pending");
        label.setAttribute("data-state", carried ? "shown" : "hidden");
        if (carried) label.setAttribute("tabindex", "0");
        else label.removeAttribute("tabindex");
      }
    }
    for (const {change, now} of rows) {
      const written = change.node !== null && done.has(change.node);
      now.textContent = previewText(written ? change.after : change.before);
      now.parentElement.dataset.changed = written && JSON.stringify(change.before) !== JSON.stringify(change.after) ? "true" : "false";
    }
    counter.textContent = `Step ${step} of ${total}`;
    back.disabled = step === 0;
    next.disabled = step === total;
    live.textContent = stepText(call, step);
  };
  const go = (to) => {
    step = Math.max(0, Math.min(total, to));
    show();
  };
  // A finding of the gradient check opens the walk here: its node is marked, and the stage
  // (arrow keys step from there) takes the focus.
  const openAt = (to, nodeId, why) => {
    stop();
    for (const [id, group] of drawn?.nodes ?? []) {
      if (id === nodeId) group.setAttribute("data-finding", "true");
      else group.removeAttribute("data-finding");
    }
    go(to);
    const node = byId.get(nodeId);
    const unfinished = node?.step === null ? ", which did not finish" : "";
    if (node && why) live.textContent = `${why} ${nodeName(node)}${unfinished}. ${live.textContent}`;
    stage.focus();
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = "Play";
  };
  back.addEventListener("click", () => { stop(); go(step - 1); });
  next.addEventListener("click", () => { stop(); go(step + 1); });
  play.addEventListener("click", () => {
    if (timer) return stop();
    if (step === total) go(0);
    play.textContent = "Pause";
    timer = setInterval(() => (step >= total ? stop() : go(step + 1)), PLAY_MS);
    return undefined;
  });
  const onKey = (event) => {
    if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = {ArrowRight: step + 1, ArrowDown: step + 1, ArrowLeft: step - 1, ArrowUp: step - 1, Home: 0, End: total};
    if (!(event.key in moves)) return;
    event.preventDefault();
    stop();
    go(moves[event.key]);
  };
  const controls = el("div", {class: "bw-controls", role: "group", "aria-label": "Step through the call"}, back, next, play, counter);
  host.replaceChildren(controls, stage, live, detail, call.grads.length ? table : "", notes);
  host.onkeydown = onKey;
  go(0);
  return {stop, openAt};
}

// Each rendered walk's opener, by its container (openBackwardWalk).
const opened = new WeakMap();

/**
 * Open the walk of `backward` rendered in `container` at call `index` (0-based among its
 * calls) and `step` (as stepText counts them), mark node `nodeId` in its graph, say `why`
 * there and move the focus to it. False when the container shows no walk of that `backward`
 * (another run's since) or it has no such call.
 */
export function openBackwardWalk(container, backward, index, step, nodeId, why = "") {
  const shown = opened.get(container);
  return shown?.backward === backward ? shown.open(index, step, nodeId, why) : false;
}

/**
 * Fill `container` with the walk of `backward` (a POST /api/run answer's
 * `backward` field); hide it when the run made no backward call.
 */
export function renderBackwardWalk(container, backward) {
  const calls = Array.isArray(backward?.calls) ? backward.calls : [];
  container.replaceChildren();
  container.hidden = calls.length === 0;
  opened.delete(container);
  if (!calls.length) return;
  const uid = `bw-${++instances}`;
  const count = calls.length === 1 ? "one call" : `${backward.total_calls} calls`;
  const heading = el("summary", {class: "bw-title", id: `${uid}-title`}, `Watch backward() run, node by node (${count})`);
  // Collapsed where the page says so (a lesson step that is not about the walk).
  const section = el("details", {class: "bw", open: container.dataset.open !== "false"}, heading);
  const summary = el("p", {class: "bw-summary"});
  const host = el("div", {class: "bw-call"});
  let current = {stop: () => {}, openAt: () => {}};
  let select = null;
  const pick = (index) => {
    current.stop();
    const call = calls[index];
    summary.textContent = calls.length > 1 ? "" : `Call ${callTitle(call)}.`;
    current = renderCall(host, call, `${uid}-${index}`);
  };
  opened.set(container, {backward, open: (index, step, nodeId, why) => {
    if (!calls[index]) return false;
    section.open = true;
    if (select) select.value = String(index);
    pick(index);
    current.openAt(step, nodeId, why);
    return true;
  }});
  if (calls.length > 1) {
    select = el("select", {class: "bw-select", id: `${uid}-select`});
    calls.forEach((call, index) => select.append(el("option", {value: String(index)}, callTitle(call))));
    select.addEventListener("change", () => pick(Number(select.value)));
    section.append(el("p", {class: "bw-pick"}, el("label", {for: `${uid}-select`}, `Backward call (${calls.length} in this run) `), select));
  }
  summary.hidden = calls.length > 1;
  section.append(summary, host);
  if (backward.note) section.append(el("p", {class: "bw-note"}, backward.note));
  container.append(section);
  pick(0);
}
