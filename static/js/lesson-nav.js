// Alt+Shift+Arrow moves to the previous or next lesson (the page's rel=prev/next links), on the
// deep dive and every mode page. Small on purpose: a page that only needs this (the cheat
// sheet) loads nothing else.
//
//   bindLessonNavigation()   listen for the keys (each page's entry script calls it)

const EDITABLE = "input, textarea, select, [contenteditable], .cm-editor";

export function handleLessonNavigation(event) {
  if (event.defaultPrevented || event.isComposing) return;
  if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey) return;
  const rel = event.key === "ArrowRight" ? "next" : event.key === "ArrowLeft" ? "prev" : null;
  if (!rel) return;
  const target = event.target;
  if (target instanceof Element && target.closest(EDITABLE)) return;
  const link = document.querySelector(`a[rel~="${rel}"][href]`);
  if (!link) return;
  event.preventDefault();
  link.click();
}

export function bindLessonNavigation() {
  document.addEventListener("keydown", handleLessonNavigation);
}
