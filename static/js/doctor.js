// The gradient doctor beside a runnable cell: a "Check my gradients" button that sends the
// cell's code to POST /api/doctor (docs/doctor.md), then shows, first, what is wrong with its
// gradients (each finding with its lesson linked and its line marked in the editor), the
// parameters' gradient norms across the backward calls as small lines (inline SVG), and the
// run itself as Run shows it.
//
//   mountDoctor(controller, {heading})  -> {check()}
//     controller: what mountRunnable returned; heading: the panel's heading element ("h2",
//     or "h3" where the cell sits under an h2)
//
// A finding that names a node of the run's backward record (its `call` and `node`) gets a
// button that opens the backward walk at that node, with the focus on the walk.
//
// The only server HTML is a finding's message_html (the server escapes the learner's text in
// it); everything else goes in as text.

import {openBackwardWalk} from "./backward-walk.js";
import {runFailureText} from "./run-request.js";
import {el, focusTarget, plural, postJson, setServerHtml, svg} from "./util.js";

const DOCTOR_CLIENT_TIMEOUT_MS = 90_000; // the sandbox's own limit is far lower
const SPARK_WIDTH = 120;
const SPARK_HEIGHT = 24;

/** "1.2e-3" style for a norm; "none" for no gradient. */
export function normText(value) {
  if (value === null || value === undefined) return "none";
  if (value === 0) return "0";
  const size = Math.abs(value);
  return size >= 1e4 || size < 1e-3 ? value.toExponential(1) : String(Number(value.toPrecision(3)));
}

/** The sparkline's segments: runs of calls with a gradient, as "x,y" point lists (log scale). */
export function sparkSegments(norms, width = SPARK_WIDTH, height = SPARK_HEIGHT) {
  const logs = norms.map((n) => (typeof n === "number" && n > 0 ? Math.log10(n) : null));
  const known = logs.filter((v) => v !== null);
  if (!known.length) return [];
  const low = Math.min(...known);
  const high = Math.max(...known);
  const span = high - low || 1;
  const step = norms.length > 1 ? (width - 2) / (norms.length - 1) : 0;
  const segments = [];
  let current = [];
  logs.forEach((value, index) => {
    if (value === null) {
      if (current.length) segments.push(current);
      current = [];
      return;
    }
    const x = 1 + index * step;
    const y = high === low ? height / 2 : 1 + (height - 2) * (1 - (value - low) / span);
    current.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  if (current.length) segments.push(current);
  return segments;
}

/**
 * Where the backward walk opens for `finding` (its `call` and `node`) in a run's `backward`
 * record: {index} of the call among the recorded ones, the walk's {step} (the node's own: it
 * ran there; or the call's end, for a node that raised before it finished), the {node} id and
 * whether it {ran}. null when the finding names no node, or the record has not got it.
 */
export function walkStepFor(finding, backward) {
  if (!Number.isInteger(finding?.call) || typeof finding?.node !== "string") return null;
  const calls = Array.isArray(backward?.calls) ? backward.calls : [];
  const index = calls.findIndex((call) => call.number === finding.call);
  const node = index < 0 ? null : calls[index].nodes.find((n) => n.id === finding.node);
  if (!node) return null;
  const ran = Number.isInteger(node.step);
  return {index, step: ran ? node.step + 1 : calls[index].order.length, node: node.id, ran};
}

/** What the walk says at the finding's node. */
function walkReason(finding, ran) {
  if (finding.kind === "non-finite") return "The gradient check: the first NaN or infinite gradient was sent by";
  return ran ? "The gradient check's finding is about" : "The gradient check: the error was raised by";
}

function sparkline(parameter) {
  const norms = parameter.grad_norms;
  const given = norms.filter((n) => typeof n === "number");
  const label = given.length
    ? `Gradient norm over ${plural(norms.length, "backward call")}: from ${normText(given[0])} to ${normText(given[given.length - 1])}`
    : `No gradient in ${plural(norms.length, "backward call")}`;
  const picture = svg("svg", {
    class: "doctor-spark",
    width: SPARK_WIDTH,
    height: SPARK_HEIGHT,
    viewBox: `0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`,
    role: "img",
    "aria-label": label,
  });
  for (const points of sparkSegments(norms)) {
    if (points.length === 1) {
      const [x, y] = points[0].split(",");
      picture.append(svg("circle", {cx: x, cy: y, r: 1.5, fill: "currentColor"}));
    } else {
      picture.append(svg("polyline", {points: points.join(" "), fill: "none", stroke: "currentColor", "stroke-width": 1.5}));
    }
  }
  return picture;
}

function parametersTable(parameters) {
  const rows = parameters.map((p) => {
    const given = p.grad_norms.filter((n) => typeof n === "number");
    return el("tr", {},
      el("th", {scope: "row"}, el("code", {}, p.name)),
      el("td", {}, `[${p.shape.join(", ")}]`),
      el("td", {}, given.length ? normText(given[given.length - 1]) : "none"),
      el("td", {}, sparkline(p)));
  });
  const table = el("table", {class: "doctor-parameters"},
    el("caption", {}, "Each parameter's gradient norm after each backward call"),
    el("thead", {}, el("tr", {},
      el("th", {scope: "col"}, "Parameter"),
      el("th", {scope: "col"}, "Shape"),
      el("th", {scope: "col"}, "Last norm"),
      el("th", {scope: "col"}, "Across the calls"))),
    el("tbody", {}, ...rows));
  return el("div", {class: "doctor-scroll", tabindex: "0", role: "region", "aria-label": "Parameters and their gradient norms"}, table);
}

function findingItem(finding, controller, backward) {
  const item = el("li", {class: "doctor-finding", "data-finding": finding.kind});
  item.append(el("p", {class: "doctor-kind"}, el("code", {}, finding.kind)));
  item.append(setServerHtml(el("p", {class: "doctor-message"}), finding.message_html));
  const actions = el("p", {class: "doctor-actions"});
  if (Number.isInteger(finding.line)) {
    const show = el("button", {type: "button", class: "btn btn-small doctor-line"}, `Mark line ${finding.line}`);
    show.addEventListener("click", () => {
      const editor = controller.editor;
      if (editor) editor.highlightLine(finding.line);
    });
    actions.append(show, " ");
  }
  const at = walkStepFor(finding, backward);
  const walk = controller.section.querySelector(".backward-walk");
  if (at && walk) {
    const open = el("button", {type: "button", class: "btn btn-small doctor-walk"}, "Show in the backward walk");
    open.addEventListener("click", () => {
      if (!openBackwardWalk(walk, backward, at.index, at.step, at.node, walkReason(finding, at.ran))) {
        open.textContent = "The backward walk now shows another run: check again";
      }
    });
    actions.append(open, " ");
  }
  const lesson = el("a", {href: `/lessons/${encodeURIComponent(finding.lesson)}`, class: "doctor-lesson"},
    "Lesson: ", finding.lesson_title ?? finding.lesson);
  actions.append(lesson);
  item.append(actions);
  return item;
}

function render(panel, answer, controller, level) {
  const {findings, parameters} = answer;
  const heading = el(level, {class: "doctor-heading", tabindex: "-1"}, "Gradient check");
  const summary = findings.length
    ? `${plural(findings.length, "problem")} found with the gradients.`
    : "No problem found with the gradients.";
  panel.replaceChildren(heading, el("p", {class: "doctor-summary"}, summary));
  if (findings.length) {
    panel.append(el("ol", {class: "doctor-findings"}, ...findings.map((f) => findingItem(f, controller, answer.result?.backward))));
  }
  if (parameters.length) panel.append(parametersTable(parameters));
  panel.hidden = false;
  const first = findings.find((f) => Number.isInteger(f.line));
  if (first && controller.editor) controller.editor.highlightLine(first.line);
  focusTarget(heading);
}

/** Put the doctor's button beside the cell's Run button, and its panel above the output. */
export function mountDoctor(controller, {heading = "h2"} = {}) {
  const section = controller.section;
  const toolbar = section.querySelector(".run-toolbar");
  const runButton = section.querySelector(".btn-run");
  const status = section.querySelector(".run-status");
  const button = el("button", {type: "button", class: "btn btn-doctor"}, "Check my gradients");
  runButton.after(button);
  const panel = el("section", {class: "doctor", "aria-label": "Gradient check", hidden: true});
  const output = section.querySelector(".run-output");
  if (output) output.before(panel);
  else section.append(panel);
  let busy = false;

  const check = async () => {
    if (controller.isLocked()) {
      controller.run(); // says what the locked cell waits for
      return;
    }
    if (busy) return;
    busy = true;
    button.setAttribute("aria-disabled", "true");
    status.textContent = "Checking the gradients…";
    status.dataset.status = "running";
    const response = await postJson("/api/doctor", {code: controller.getCode()},
      {timeoutMs: DOCTOR_CLIENT_TIMEOUT_MS, waitHost: toolbar});
    busy = false;
    button.removeAttribute("aria-disabled");
    if (response.ok && response.data && Array.isArray(response.data.findings)) {
      controller.show(response.data.result);
      render(panel, response.data, controller, heading);
      return;
    }
    const [text, kind] = runFailureText(response, false);
    status.textContent = text;
    status.dataset.status = kind;
  };
  button.addEventListener("click", (event) => {
    event.preventDefault();
    check();
  });
  return {check};
}
