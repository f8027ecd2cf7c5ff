// Draws the autograd graph of a POST /api/run answer as inline SVG.
//
//   renderGraph(container, graph)   graph = {nodes: [...], edges: [...]}
//
// Edges point the way backward() walks them: output tensor -> its grad_fn ->
// next_functions -> AccumulateGrad -> leaf. So outputs sit at the top and
// leaves at the bottom (the layout is graph-layout.js).

import {layeredLayout} from "./graph-layout.js";
import {formatTensorValue} from "./inspector.js";
import {shorten, svg} from "./util.js";

const CHAR_WIDTH = {label: 7.8, detail: 6.9}; // px per char: 13px / 11.5px monospace
const NODE_HEIGHT = {plain: 30, leaf: 46};
const PAD_X = 12;
const GAP_X = 18;        // between neighbouring boxes in a layer
const LAYER_GAP = 46;    // vertical room for the arrows between layers
const MARGIN = 8;
const MAX_DETAIL_CHARS = 28;
const MIN_SCALE = 0.7;   // below this the text is unreadable: scroll instead

const KIND_NAMES = {
  tensor: "named tensor",
  leaf: "leaf tensor",
  function: "backward function",
  accumulate: "AccumulateGrad",
};

let instanceCount = 0;

function gradText(node) {
  return node.grad === null || node.grad === undefined
    ? ".grad = None"
    : `.grad = ${formatTensorValue(node.grad)}`;
}

// ---- Drawing --------------------------------------------------------------

/** A node's box: its size and the text it shows. */
function measure(node) {
  const label = shorten(String(node.label ?? node.id), 40);
  const detail = node.kind === "leaf" ? shorten(gradText(node), MAX_DETAIL_CHARS) : null;
  const width = Math.max(label.length * CHAR_WIDTH.label, (detail ?? "").length * CHAR_WIDTH.detail);
  return {
    id: node.id,
    node,
    label,
    detail,
    width: Math.ceil(width + 2 * PAD_X),
    height: node.kind === "leaf" ? NODE_HEIGHT.leaf : NODE_HEIGHT.plain,
  };
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

  const measured = new Map(nodes.map((node) => [node.id, measure(node)]));
  const layout = layeredLayout([...measured.values()], edges, {gapX: GAP_X, layerGap: LAYER_GAP, margin: MARGIN});
  const {box, width, height} = layout;

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
  for (const {route, upward} of layout.routes) {
    const points = route.map((id, i) => {
      const b = box(id);
      if (layout.isDummy(id)) return {x: b.cx, y: b.mid};
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
    nodeLayer.append(drawNode(measured.get(node.id), b.cx, b.top));
  }
  root.append(nodeLayer);

  const scroller = document.createElement("div");
  scroller.className = "graph-scroll";
  // A wide graph scrolls sideways: the keyboard reaches it (and scrolls it with the arrows).
  scroller.tabIndex = 0;
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", "The graph (scrolls sideways when wide)");
  scroller.append(root);
  container.replaceChildren(scroller, legend(new Set(nodes.map((n) => n.kind))));

  // A graph wider than its wrapper opens scrolled to the first output, not
  // to its left edge (skipped while the container is hidden: no layout yet).
  const shown = root.getBoundingClientRect().width;
  if (shown > scroller.clientWidth && shown > 0) {
    const first = layout.sources[0] ?? ids[0];
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
