// Icons as inline SVG, drawn with currentColor: they need no emoji or symbol font. The same
// shapes as the templates' `icon` macro (templates/_icons.html); an icon is decoration
// (aria-hidden), so where it carries meaning its caller puts the words beside it.
import {svg} from "./util.js";

export const ICONS = {
  lock: ["M7 11V8a5 5 0 0 1 10 0v3", "M5 11h14v10H5z"],
  check: ["M5 12.5l4.5 4.5L19 7"],
  cross: ["M6 6l12 12", "M18 6L6 18"],
  "arrow-left": ["M19 12H5", "M11 6l-6 6 6 6"],
  "arrow-right": ["M5 12h14", "M13 6l6 6-6 6"],
  "arrow-up": ["M12 19V5", "M6 11l6-6 6 6"],
  "arrow-down": ["M12 5v14", "M6 13l6 6 6-6"],
};

export function icon(name) {
  return svg("svg", {
    class: `icon icon-${name}`, viewBox: "0 0 24 24", width: "1em", height: "1em",
    fill: "none", stroke: "currentColor", "stroke-width": "2.5", "stroke-linecap": "round",
    "stroke-linejoin": "round", "aria-hidden": "true", focusable: "false",
  }, ...ICONS[name].map((d) => svg("path", {d})));
}
