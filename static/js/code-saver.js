// Keeping a learner's edits to a step's code: debounced PUTs (DELETE when the code is the
// lesson's original again), strictly in order, flushed with keepalive when the page goes away.
//
//   createSaver({lesson, step, original, status, onSaved, report}) ->
//     {onChange(code), flush(), forget() -> Promise<response>, cancel(), restored(code)}

import {apiFetch, lessonUrl, networkMessage} from "./util.js";

const SAVE_DELAY_MS = 800;

export function createSaver({lesson, step, original, status, onSaved = null, report = () => {}}) {
  const url = lessonUrl(lesson, "steps", step, "code");
  let timer = null;
  let pending = null; // code waiting for the debounce
  let lastSaved = null; // the code the server holds (null: the original)
  // Saves and deletes go out one at a time, in order: an older PUT can never land last.
  let chain = Promise.resolve();
  const inOrder = (task) => {
    const next = chain.then(task, task);
    chain = next.catch(() => {});
    return next;
  };
  const show = (text, state) => {
    status.textContent = text;
    if (state) status.dataset.state = state;
    else delete status.dataset.state;
  };

  const put = (code) => inOrder(async () => {
    const isOriginal = code === original;
    const response = isOriginal
      ? await apiFetch(url, {method: "DELETE"})
      : await apiFetch(url, {method: "PUT", body: {code}});
    if (response.ok) {
      lastSaved = isOriginal ? null : code;
      if (pending === null) show(isOriginal ? "" : "Edits saved", "saved");
      if (onSaved) onSaved(isOriginal ? null : code);
    } else {
      show("Not saved", "error");
      report(response.status === 413
        ? "Your edits are too long to save; they stay in this page only."
        : networkMessage(response, "Saving your edits"));
    }
    return response.ok;
  });

  const beacon = (code) => {
    // The page is going away: fire and forget, the browser finishes it.
    if (code === original) {
      fetch(url, {method: "DELETE", credentials: "same-origin", keepalive: true}).catch(() => {});
    } else if (code.length < 60_000) { // keepalive bodies are capped at 64 KiB
      fetch(url, {
        method: "PUT", credentials: "same-origin", keepalive: true,
        headers: {"Content-Type": "application/json"}, body: JSON.stringify({code}),
      }).catch(() => {});
    }
  };

  const flush = (keepalive = false) => {
    clearTimeout(timer);
    timer = null;
    if (pending === null) return null;
    const code = pending;
    pending = null;
    if (keepalive) {
      beacon(code);
      return null;
    }
    return put(code);
  };

  const onChange = (code) => {
    if (code === (lastSaved ?? original)) {
      pending = null;
      clearTimeout(timer);
      return;
    }
    pending = code;
    show("Saving…", "pending");
    clearTimeout(timer);
    timer = setTimeout(() => flush(), SAVE_DELAY_MS);
  };

  const cancel = () => {
    clearTimeout(timer);
    pending = null;
    show("", null);
  };

  const forget = () => inOrder(async () => {
    const response = await apiFetch(url, {method: "DELETE"});
    if (response.ok || response.status === 404) {
      lastSaved = null;
      if (onSaved) onSaved(null);
    }
    return response;
  });

  const listen = () => {
    window.addEventListener("pagehide", () => flush(true));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") flush(true);
    });
  };

  return {
    onChange,
    flush,
    forget,
    cancel,
    listen,
    hasPending: () => pending !== null,
    restored(code) {
      lastSaved = code === original ? null : code;
      if (code !== original) show("Your edits are restored; Reset brings back the original", "restored");
    },
  };
}
