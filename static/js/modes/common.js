// Shared by the learning-mode pages (/lessons/SLUG/MODE, /review): small helpers on top of
// ../runnable.js, and the per-element feedback for a typed .grad value.
//
//   lessonUrl(slug, ...parts)                -> "/api/lessons/SLUG/part/part" (parts encoded)
//   setServerHtml(node, html)                -> node (only for *_html fields from the server)
//   plural(n, word)                          -> "1 item", "3 items"
//   focusTarget(node)                        -> focus a heading or region without a visible jump
//   renderValueFeedback(box, result, opts)   -> fill a live region with a graded value
//
// Importing this module also brings Alt+Shift+Arrow navigation between lessons (lesson.js
// binds it; it follows the page's rel=prev/next links).

import {el} from "../runnable.js";
import "../lesson.js";

export {renderValueFeedback, setServerHtml} from "../value-feedback.js";

export {apiFetch, el, networkMessage, withInlineCode} from "../runnable.js";

export function lessonUrl(slug, ...parts) {
  return ["/api/lessons", slug, ...parts].map((part, i) => (i === 0 ? part : encodeURIComponent(part))).join("/");
}


export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

export function focusTarget(node) {
  if (!node) return;
  if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "-1");
  node.focus({preventScroll: true});
  node.scrollIntoView({block: "nearest", behavior: "smooth"});
}

