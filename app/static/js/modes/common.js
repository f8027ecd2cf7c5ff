// Shared by the learning-mode pages (/lessons/SLUG/MODE, /review): small helpers on top of
// ../runnable.js, and the per-element feedback for a typed .grad value.
//
//   lessonUrl(slug, ...parts)                -> "/api/lessons/SLUG/part/part" (parts encoded)
//   setServerHtml(node, html)                -> node (only for *_html fields from the server)
//   plural(n, word)                          -> "1 item", "3 items"
//   focusTarget(node)                        -> focus a heading or region without a visible jump
//   renderValueFeedback(box, result, opts)   -> fill a live region with a graded value
//
//   bindLessonNavigation()                   -> Alt+Shift+Arrow between lessons (rel=prev/next)
//
// Nothing here runs on import: each page's entry script in ../pages/ starts it.

import {handleLessonNavigation} from "../lesson.js";

export {renderValueFeedback} from "../value-feedback.js";
export {withInlineCode} from "../runnable.js";
export {apiFetch, askForConfidence, capitalise, chosenConfidence, el, lessonUrl, networkMessage, parts, plural, postJson, sendAnswer, setServerHtml} from "../util.js";

/** Alt+Shift+Arrow moves between lessons (called by each page's entry script). */
export function bindLessonNavigation() {
  document.addEventListener("keydown", handleLessonNavigation);
}

export function focusTarget(node) {
  if (!node) return;
  if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "-1");
  node.focus({preventScroll: true});
  node.scrollIntoView({block: "nearest", behavior: "smooth"});
}

