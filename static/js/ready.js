// The page's readiness mark: <html data-ready="true"> once every script on the page has
// finished its start-up work (the fetches it makes on load, its widgets and editors mounted).
// The browser tests wait for this mark (tests/e2e/conftest.py, wait_ready), not for the
// network to fall silent; nothing else reads it.
//
//   startUp(work)   counts `work` (a promise) as start-up work and returns it; once the page is
//                   marked ready it only returns it (later work is a learner's action's)
//
// Every page loads this module (templates/base.html), so a page whose scripts start nothing is
// marked as soon as its scripts have run. A page script calls startUp() from its top-level code
// (module scripts all run before DOMContentLoaded), or from work already counted: the mark waits
// until no counted work is left. Work that fails (a fetch refused, a promise rejected) counts as
// finished: the page shows its error and is still marked, so a test fails on what it asserts.

const pending = new Set();
let marked = false;

export function startUp(work) {
  if (!marked) pending.add(Promise.resolve(work));
  return work;
}

async function markWhenSettled() {
  while (pending.size) {
    const now = [...pending];
    await Promise.allSettled(now);
    for (const work of now) pending.delete(work);
  }
  marked = true;
  document.documentElement.dataset.ready = "true";
}

// Module scripts run after parsing (readyState "interactive") and before DOMContentLoaded, so
// the count starts at DOMContentLoaded; "load" and "complete" only cover a page that imported
// this module late.
let counting = false;
const count = () => {
  if (counting) return;
  counting = true;
  markWhenSettled();
};
// Outside a page (the unit tests under node import modules that import this one) it does nothing.
if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", count, {once: true});
  window.addEventListener("load", count, {once: true});
  if (document.readyState === "complete") count();
}
