// Where to draw the boxes of a directed acyclic graph, in layers: the one
// layout of the autograd graph (graph.js) and the backward walk
// (backward-walk.js). Edges point downwards: sources sit at the top.
//
//   layeredLayout(boxes, edges, {gapX, layerGap, margin})
//     boxes = [{id, width, height}], edges = [{source, target}] between known
//     ids, no self-loops -> {box(id), routes, isDummy(id), sources, width, height}
//
// A small Sugiyama: longest-path layers, dummy points on long edges,
// barycentre ordering, then x positions that sit each box as close to its
// neighbours' average as the spacing allows. Importing it has no side effect.

const SWEEPS = 6;

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
function buildLayeredGraph(boxes, edges, layer) {
  const items = new Map(); // id -> {id, layer, width, height, dummy?}
  for (const {id, width, height} of boxes) items.set(id, {id, layer: layer.get(id), width, height});
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

function assignX(items, layers, up, down, gapX) {
  const x = new Map();
  const gapsFor = (ids) => ids.map((id, i) => (i === 0 ? 0
    : (items.get(ids[i - 1]).width + items.get(id).width) / 2
      + (items.get(ids[i - 1]).dummy || items.get(id).dummy ? gapX / 2 : gapX)));
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

// ---- The whole layout -------------------------------------------------------

/**
 * Positions for `boxes`: `box(id)` gives {cx, top, bottom, mid} (mid: the
 * middle of its layer); each of `routes` is {route, upward}, the ids an edge
 * passes from source to target (dummies in between); `sources` are the ids no
 * edge points to, in the order given.
 */
export function layeredLayout(boxes, edges, {gapX, layerGap, margin}) {
  const ids = boxes.map((b) => b.id);
  const succ = new Map(ids.map((id) => [id, []]));
  const pred = new Map(ids.map((id) => [id, []]));
  for (const {source, target} of edges) {
    succ.get(source).push(target);
    pred.get(target).push(source);
  }
  const layer = assignLayers(ids, succ, pred);
  const {items, segments, routes} = buildLayeredGraph(boxes, edges, layer);
  const {layers, up, down} = orderLayers(items, segments);
  const x = assignX(items, layers, up, down, gapX);

  // Vertical placement: every layer as tall as its tallest box.
  const layerHeight = layers.map((row) => Math.max(0, ...row.map((id) => items.get(id).height)));
  const layerTop = [];
  let y = margin;
  for (const height of layerHeight) {
    layerTop.push(y);
    y += height + layerGap;
  }
  let minX = Infinity;
  let maxX = -Infinity;
  for (const item of items.values()) {
    minX = Math.min(minX, x.get(item.id) - item.width / 2);
    maxX = Math.max(maxX, x.get(item.id) + item.width / 2);
  }
  const shiftX = margin - minX;
  const box = (id) => {
    const item = items.get(id);
    const l = item.layer;
    const top = layerTop[l] + (layerHeight[l] - item.height) / 2;
    return {cx: x.get(id) + shiftX, top, bottom: top + item.height, mid: layerTop[l] + layerHeight[l] / 2};
  };
  return {
    box,
    routes,
    isDummy: (id) => Boolean(items.get(id).dummy),
    sources: ids.filter((id) => pred.get(id).length === 0),
    width: Math.ceil(maxX - minX + 2 * margin),
    height: y - layerGap + margin,
  };
}
