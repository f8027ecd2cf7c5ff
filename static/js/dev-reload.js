// Development only: `gradlab serve --reload` adds this script to every page, never production.
// It asks the server how many times the lessons were reloaded and refreshes the page when
// that number moves on from the one the page was rendered with.
(() => {
  "use strict";
  const script = document.currentScript;
  const rendered = script ? script.dataset.version : undefined;
  const url = script ? script.dataset.url : undefined;
  if (rendered === undefined || !url) {
    return;
  }
  const EVERY_MS = 700;

  async function poll() {
    try {
      const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
      if (response.ok) {
        const { version } = await response.json();
        if (String(version) !== rendered) {
          window.location.reload();
          return;
        }
      }
    } catch {
      // The server is restarting or briefly away: ask again.
    }
    window.setTimeout(poll, EVERY_MS);
  }

  window.setTimeout(poll, EVERY_MS);
})();
