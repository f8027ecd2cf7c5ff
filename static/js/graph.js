// Draws the autograd graph of a POST /api/run answer as inline SVG.
//
//   renderGraph(container, graph)   graph = {nodes: [...], edges: [...]}
//
// Edges point the way backward() walks them: output tensor -> its grad_fn ->
// next_functions -> AccumulateGrad -> leaf. So outputs sit at the top and
// leaves at the bottom. Layout is a small Sugiyama: longest-path layers,
// dummy points on long edges, barycentre ordering, then x positions that sit
// each node as close to its neighbours' average as the spacing allows.

import {formatTensorValue} from "./inspector.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const CHAR_WIDTH = {label: 7.8, detail: 6.9}; // px per char: 13px / 11.5px monospace
const NODE_HEIGHT = {plain: 30, leaf: 46};
const PAD_X = 12;
const GAP_X = 18;        // between neighbouring boxes in a layer
const LAYER_GAP = 46;    // vertical room for the arrows between layers
const MARGIN = 8;
const MAX_DETAIL_CHARS = 28;
const SWEEPS = 6;
const MIN_SCALE = 0.7;   // below this the text is unreadable: scroll instead

const KIND_NAMES = {
  tensor: "named tensor",
  leaf: "leaf tensor",
  function: "backward function",
  accumulate: "AccumulateGrad",
};

let instanceCount = 0;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, val] of Object.entries(attrs)) node.setAttribute(key, String(val));
  for (const child of children) node.append(child);
  return node;
}

function shorten(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function gradText(node) {
  return node.grad === null || node.grad === undefined
    ? ".grad = None"
    : `.grad = ${formatTensorValue(node.grad)}`;
}

// ---- Layering -------------------------------------------------------------

/** Longest-path layers from the sources; back edges of a cycle are ignored. */
function assignLayers(ids, succ, pred) {
  const layer = new Map();
  const state = new Map(); // 1 = visiting, 2 = done
  const visit = (id) => {
    if (state.get(id) === 2) return layer.get(id);
    state.set(id, 1);
    let depth = 0;
    for (const p of pred.get(id)) {
      if (state.get(p) === 1) continue; // cycle: torch never makes one, but stay finite
      depth = Math.max(depth, visit(p) + 1);
    }
    state.set(id, 2);
    layer.set(id, depth);
    return depth;
  };
  for (const id of ids) visit(id); // recursion depth = graph depth: fine for hundreds of nodes

  // A source feeding only deep nodes (a named intermediate tensor) is moved
  // down to sit right above them, which keeps its edge short.
  for (const id of ids) {
    if (pred.get(id).length > 0 || succ.get(id).length === 0) continue;
    const below = Math.min(...succ.get(id).map((s) => layer.get(s)));
    if (below - 1 > layer.get(id)) layer.set(id, below - 1);
  }
  return layer;
}

/** Splits edges spanning several layers into one-layer segments via dummies. */
function buildLayeredGraph(nodes, edges, layer) {
  const items = new Map(); // id -> {id, layer, width, height, node?}
  for (const node of nodes) items.set(node.id, {id: node.id, layer: layer.get(node.id), node});
  const segments = []; // [upperId, lowerId]
  const routes = [];   // per original edge: list of item ids from source to target
  let dummyCount = 0;
  for (const {source, target} of edges) {
    const from = layer.get(source);
    const to = layer.get(target);
    const route = [source];
    if (to > from) {
      let previous = source;
      for (let l = from + 1; l < to; l++) {
        const id = `\u0000dummy${dummyCount++}`;
        items.set(id, {id, layer: l, width: 0, height: 0, dummy: true});
        segments.push([previous, id]);
        route.push(id);
        previous = id;
      }
      segments.push([previous, target]);
    }
    route.push(target);
    routes.push({route, upward: to <= from});
  }
  return {items, segments, routes};
}

// ---- Ordering -------------------------------------------------------------

function orderLayers(items, segments) {
  const depth = Math.max(...[...items.values()].map((it) => it.layer)) + 1;
  const layers = Array.from({length: depth}, () => []);
  for (const item of items.values()) layers[item.layer].push(item.id);

  const up = new Map([...items.keys()].map((id) => [id, []]));
  const down = new Map([...items.keys()].map((id) => [id, []]));
  for (const [a, b] of segments) {
    down.get(a).push(b);
    up.get(b).push(a);
  }

  const position = new Map();
  const index = (layerIds) => layerIds.forEach((id, i) => position.set(id, i));
  layers.forEach(index);

  // How much hangs below a node (shared nodes counted per path: a heuristic).
  const weight = new Map();
  const weigh = (id) => {
    if (!weight.has(id)) {
      weight.set(id, 1);
      weight.set(id, Math.min(1e6, 1 + down.get(id).reduce((sum, d) => sum + weigh(d), 0)));
    }
    return weight.get(id);
  };

  // Siblings tie on barycentre; put the heaviest in the middle, so the main
  // chain of a deep graph runs straight down instead of drifting sideways.
  const centreHeaviest = (group) => {
    const byWeight = [...group].sort((a, b) => weigh(a.id) - weigh(b.id) || a.i - b.i);
    const left = [];
    const right = [];
    byWeight.forEach((k, n) => (n % 2 === 0 ? right : left).push(k));
    return [...left, ...right.reverse()];
  };

  const sortByBarycentre = (layerIds, neighbours) => {
    const keyed = layerIds.map((id, i) => {
      const ns = neighbours.get(id);
      const bary = ns.length ? ns.reduce((sum, n) => sum + position.get(n), 0) / ns.length : i;
      return {id, bary, i};
    });
    keyed.sort((a, b) => a.bary - b.bary || a.i - b.i);
    const ordered = [];
    for (let start = 0; start < keyed.length;) {
      let end = start + 1;
      while (end < keyed.length && keyed[end].bary === keyed[start].bary) end++;
      const group = keyed.slice(start, end);
      ordered.push(...(group.length > 2 ? centreHeaviest(group) : group));
      start = end;
    }
    return ordered.map((k) => k.id);
  };

  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    if (sweep % 2 === 0) {
      for (let l = 1; l < depth; l++) index(layers[l] = sortByBarycentre(layers[l], up));
    } else {
      for (let l = depth - 2; l >= 0; l--) index(layers[l] = sortByBarycentre(layers[l], down));
    }
  }
  return {layers, up, down};
}

// ---- Coordinates ----------------------------------------------------------

/**
 * Best positions for an ordered row: as close to `targets` as possible (least
 * squares) while keeping each centre at least `gaps[i]` right of the last.
 * Pool-adjacent-violators on the gap-free coordinates.
 */
function placeRow(targets, gaps) {
  const offsets = [0];
  for (let i = 1; i < targets.length; i++) offsets.push(offsets[i - 1] + gaps[i]);
  const blocks = [];
  targets.forEach((t, i) => {
    blocks.push({sum: t - offsets[i], count: 1});
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1];
      const prev = blocks[blocks.length - 2];
      if (prev.sum / prev.count <= last.sum / last.count) break;
      prev.sum += last.sum;
      prev.count += last.count;
      blocks.pop();
    }
  });
  const result = [];
  for (const block of blocks) {
    for (let k = 0; k < block.count; k++) result.push(block.sum / block.count + offsets[result.length]);
  }
  return result;
}

function assignX(items, layers, up, down) {
  const x = new Map();
  const gapsFor = (ids) => ids.map((id, i) => (i === 0 ? 0
    : (items.get(ids[i - 1]).width + items.get(id).width) / 2
      + (items.get(ids[i - 1]).dummy || items.get(id).dummy ? GAP_X / 2 : GAP_X)));
  for (const ids of layers) {
    const row = placeRow(ids.map(() => 0), gapsFor(ids));
    const shift = (row[0] + row[row.length - 1]) / 2;
    ids.forEach((id, i) => x.set(id, row[i] - shift));
  }
  const relax = (ids, neighbours) => {
    const targets = ids.map((id) => {
      const ns = neighbours.get(id);
      return ns.length ? ns.reduce((s, n) => s + x.get(n), 0) / ns.length : x.get(id);
    });
    placeRow(targets, gapsFor(ids)).forEach((value, i) => x.set(ids[i], value));
  };
  for (let pass = 0; pass < 4; pass++) {
    for (let l = 1; l < layers.length; l++) relax(layers[l], up);
    for (let l = layers.length - 2; l >= 0; l--) relax(layers[l], down);
  }
  return x;
}

// ---- Drawing --------------------------------------------------------------

function measure(item) {
  const {node} = item;
  const label = shorten(String(node.label ?? node.id), 40);
  item.label = label;
  let width = label.length * CHAR_WIDTH.label;
  if (node.kind === "leaf") {
    item.detail = shorten(gradText(node), MAX_DETAIL_CHARS);
    width = Math.max(width, item.detail.length * CHAR_WIDTH.detail);
  }
  item.width = Math.ceil(width + 2 * PAD_X);
  item.height = node.kind === "leaf" ? NODE_HEIGHT.leaf : NODE_HEIGHT.plain;
}

function nodeTitle(node) {
  const kind = KIND_NAMES[node.kind] ?? node.kind;
  const parts = [`${node.label}: ${kind}`];
  if (node.kind === "leaf" || node.kind === "tensor") parts.push(`requires_grad=${node.requires_grad ? "True" : "False"}`);
  if (node.kind === "leaf") parts.push(gradText(node));
  return parts.join(", ");
}

function drawNode(item, cx, top) {
  const {node} = item;
  const kind = KIND_NAMES[node.kind] ? node.kind : "function";
  const left = cx - item.width / 2;
  const group = svg("g", {class: `graph-node graph-node--${kind}`});
  group.append(svg("title", {}, nodeTitle(node)));
  group.append(svg("rect", {
    x: left, y: top, width: item.width, height: item.height,
    rx: kind === "function" || kind === "accumulate" ? item.height / 2 : 6,
    fill: "#fff", stroke: "#57606a",
  }));
  const labelY = item.detail ? top + 18 : top + item.height / 2 + 4.5;
  group.append(svg("text", {class: "graph-label", x: cx, y: labelY, "text-anchor": "middle"}, item.label));
  if (item.detail) {
    group.append(svg("text", {class: "graph-detail", x: cx, y: top + 36, "text-anchor": "middle"}, item.detail));
  }
  return group;
}

function edgePath(points) {
  let d = `M${points[0].x},${points[0].y}`;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const midY = (a.y + b.y) / 2;
    d += ` C${a.x},${midY} ${b.x},${midY} ${b.x},${b.y}`;
  }
  return d;
}

function renderEmpty(container) {
  container.replaceChildren();
  const message = document.createElement("p");
  message.className = "graph-empty";
  message.textContent = "No autograd graph: no tensor in this run requires grad.";
  container.append(message);
}

/**
 * Fill `container` with an SVG drawing of `graph`. The drawing scales down
 * to the container's width; a very wide graph stops shrinking at 70% size
 * and scrolls sideways inside its .graph-scroll wrapper instead.
 */
export function renderGraph(container, graph) {
  const nodes = Array.isArray(graph?.nodes) ? graph.nodes.filter((n) => n && n.id !== null && n.id !== undefined) : [];
  if (nodes.length === 0) {
    renderEmpty(container);
    return;
  }
  const ids = nodes.map((n) => n.id);
  const known = new Set(ids);
  const seen = new Set();
  const edges = (Array.isArray(graph.edges) ? graph.edges : []).filter((e) => {
    const key = `${e.source}\u0000${e.target}`;
    if (!known.has(e.source) || !known.has(e.target) || e.source === e.target || seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  const succ = new Map(ids.map((id) => [id, []]));
  const pred = new Map(ids.map((id) => [id, []]));
  for (const {source, target} of edges) {
    succ.get(source).push(target);
    pred.get(target).push(source);
  }

  const layer = assignLayers(ids, succ, pred);
  const {items, segments, routes} = buildLayeredGraph(nodes, edges, layer);
  for (const item of items.values()) if (!item.dummy) measure(item);
  const {layers, up, down} = orderLayers(items, segments);
  const x = assignX(items, layers, up, down);

  // Vertical placement: every layer as tall as its tallest box.
  const layerHeight = layers.map((row) => Math.max(0, ...row.map((id) => items.get(id).height)));
  const layerTop = [];
  let y = MARGIN;
  for (const height of layerHeight) {
    layerTop.push(y);
    y += height + LAYER_GAP;
  }
  const height = y - LAYER_GAP + MARGIN;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const item of items.values()) {
    minX = Math.min(minX, x.get(item.id) - item.width / 2);
    maxX = Math.max(maxX, x.get(item.id) + item.width / 2);
  }
  const width = Math.ceil(maxX - minX + 2 * MARGIN);
  const shiftX = MARGIN - minX;

  const box = (id) => {
    const item = items.get(id);
    const l = item.layer;
    const top = layerTop[l] + (layerHeight[l] - item.height) / 2;
    return {cx: x.get(id) + shiftX, top, bottom: top + item.height, mid: layerTop[l] + layerHeight[l] / 2};
  };

  const uid = `gl-graph-${++instanceCount}`;
  const root = svg("svg", {
    class: "graph-svg",
    role: "img",
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    "aria-describedby": `${uid}-desc`,
    "aria-label": `Autograd graph: ${nodes.length} node${nodes.length === 1 ? "" : "s"}, `
      + `${edges.length} edge${edges.length === 1 ? "" : "s"}`,
  });
  // Scale down to fit, but no further than MIN_SCALE: then scroll instead.
  root.style.maxWidth = `${width}px`;
  root.style.minWidth = `${Math.ceil(width * MIN_SCALE)}px`;
  root.style.width = "100%";
  root.style.height = "auto";

  const leaves = nodes.filter((n) => n.kind === "leaf").map((n) => n.label);
  root.append(
    svg("desc", {id: `${uid}-desc`},
      "Arrows follow backward() from the output tensors at the top down to the leaf tensors"
      + (leaves.length ? ` (${leaves.join(", ")})` : "") + "."),
    svg("defs", {}, svg("marker", {
      id: `${uid}-arrow`, viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse",
    }, svg("path", {class: "graph-arrowhead", d: "M0,0 L10,5 L0,10 z", fill: "#57606a"}))),
  );

  const edgeLayer = svg("g", {class: "graph-edges", fill: "none", stroke: "#57606a"});
  for (const {route, upward} of routes) {
    const points = route.map((id, i) => {
      const b = box(id);
      if (items.get(id).dummy) return {x: b.cx, y: b.mid};
      if (upward) return {x: b.cx, y: i === 0 ? b.top : b.bottom};
      return {x: b.cx, y: i === 0 ? b.bottom : b.top};
    });
    edgeLayer.append(svg("path", {
      class: "graph-edge", d: edgePath(points), "marker-end": `url(#${uid}-arrow)`,
    }));
  }
  root.append(edgeLayer);

  const nodeLayer = svg("g", {class: "graph-nodes"});
  for (const node of nodes) {
    const b = box(node.id);
    nodeLayer.append(drawNode(items.get(node.id), b.cx, b.top));
  }
  root.append(nodeLayer);

  const scroller = document.createElement("div");
  scroller.className = "graph-scroll";
  scroller.append(root);
  container.replaceChildren(scroller, legend(new Set(nodes.map((n) => n.kind))));

  // A graph wider than its wrapper opens scrolled to the first output, not
  // to its left edge (skipped while the container is hidden: no layout yet).
  const shown = root.getBoundingClientRect().width;
  if (shown > scroller.clientWidth && shown > 0) {
    const first = ids.find((id) => pred.get(id).length === 0) ?? ids[0];
    scroller.scrollLeft = box(first).cx * (shown / width) - scroller.clientWidth / 2;
  }
}

function legend(kinds) {
  const list = document.createElement("ul");
  list.className = "graph-legend";
  list.setAttribute("aria-label", "Graph legend");
  for (const [kind, text] of Object.entries({
    tensor: "named tensor",
    function: "backward function (grad_fn)",
    accumulate: "AccumulateGrad (writes .grad)",
    leaf: "leaf tensor with its .grad",
  })) {
    if (!kinds.has(kind)) continue;
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = `graph-swatch graph-swatch--${kind}`;
    swatch.setAttribute("aria-hidden", "true");
    item.append(swatch, text);
    list.append(item);
  }
  return list;
}
