// Small helpers shared by every page script, and the one way to call the JSON API.
// Nothing here runs on import.
//
//   el(tag, attrs, ...children)      an element; text is always text
//   svg(tag, attrs, ...children)     an SVG element, the same way
//   shorten(text, max)               "a long te…"
//   parts(root, block, ...names)     {name: root's .block-name element} for each name
//   uid(prefix)                      a page-unique id
//   ensureStop(text)                 "text" -> "text."
//   plural(n, word, many)            "1 item", "3 items"
//   capitalise(text)                 "yes" -> "Yes"
//   setServerHtml(node, html)        trusted server HTML (only for *_html fields)
//   choiceContent(root, choice)      a choice as its button shows it (rendered Markdown)
//   lessonUrl(slug, ...parts)        "/api/lessons/SLUG/part/part" (every part encoded)
//   apiFetch(url, {method, body})    -> {ok, status, data, detail, headers}; never throws
//   postJson(url, body, options)     apiFetch with POST; waits out a 503 or 429 with Retry-After
//   networkMessage(response, what)   a sentence for a failed request
//   focusTarget(node)                focus a heading or region without a visible jump
//   thisPageAgain()                  -> this page as the server draws it now (a Document), or null
//
// Answers to questions go through widgets/answer.js (it builds on postJson).

let uidCounter = 0;

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

export function shorten(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function parts(root, block, ...names) {
  return Object.fromEntries(names.map((name) => [name, root.querySelector(`.${block}-${name}`)]));
}

export function uid(prefix) {
  uidCounter += 1;
  return `${prefix}-${uidCounter}`;
}

export function focusTarget(node) {
  if (!node) return;
  if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "-1");
  node.focus({preventScroll: true});
  node.scrollIntoView({block: "nearest", behavior: "smooth"});
}

export function ensureStop(text) {
  const trimmed = String(text).trim();
  return /[.!?…)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

export function capitalise(text) {
  const s = String(text ?? "");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function setServerHtml(node, html) {
  node.innerHTML = typeof html === "string" ? html : "";
  return node;
}

export function choiceContent(root, choice) {
  // The server rendered each choice (Markdown) inside its button: reuse that.
  const button = [...root.querySelectorAll(".choice")].find((b) => b.dataset.choice === choice);
  const span = el("span", {class: "feedback-choice"});
  if (button) for (const child of button.childNodes) span.append(child.cloneNode(true));
  else span.append(el("code", {}, String(choice ?? "")));
  return span;
}

function detailText(data, rawText) {
  // Every API error is Problem Details: `detail` says what went wrong this time, `title` what
  // kind of refusal it is.
  if (data && typeof data === "object") {
    if (typeof data.detail === "string" && data.detail) return data.detail;
    if (typeof data.title === "string" && data.title) return data.title;
  }
  // A proxy's HTML error page is no use to a learner; a short text body may be.
  if (rawText && rawText.length < 300 && !/^\s*</.test(rawText)) return rawText.trim();
  return "";
}

/** What the server sends for this page now (a GET: it decides what a commit has opened), parsed;
 *  null when it cannot be had. */
export async function thisPageAgain() {
  try {
    const response = await fetch(window.location.pathname, {credentials: "same-origin"});
    if (!response.ok) return null;
    return new DOMParser().parseFromString(await response.text(), "text/html");
  } catch {
    return null;
  }
}

/**
 * fetch() a JSON endpoint of this site. Never throws: network failures come back as
 * {ok: false, status: 0}. `detail` is the error's Problem Details `detail` (or `title`) as text.
 */
export function lessonUrl(slug, ...parts) {
  return ["/api/lessons", ...[slug, ...parts].map((part) => encodeURIComponent(part))].join("/");
}

export async function apiFetch(url, {method = "GET", body, timeoutMs = 30_000, keepalive = false} = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const init = {
    method,
    credentials: "same-origin",
    headers: {Accept: "application/json, application/problem+json"},
    signal: controller.signal,
    keepalive,
  };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    return {ok: response.ok, status: response.status, data, detail: detailText(data, text), headers: response.headers};
  } catch (error) {
    const timedOut = Boolean(error && error.name === "AbortError");
    return {ok: false, status: 0, data: null, detail: "", headers: null, timedOut};
  } finally {
    clearTimeout(timer);
  }
}

const MAX_RETRY_WAIT_S = 30;

// A busy server (503) and a learner's own limit (429: runs in progress and waiting) are both
// waited out the same way.
const WAITED_OUT = new Set([429, 503]);

/** Seconds a 503 or 429 asks to wait (Retry-After), or null when it does not say. */
export function retryAfter(response) {
  if (!response || !WAITED_OUT.has(response.status)) return null;
  const seconds = retrySeconds(response);
  return seconds === null ? null : Math.min(seconds, MAX_RETRY_WAIT_S);
}

function retrySeconds(response) {
  const seconds = Number(response.headers?.get("Retry-After") ?? NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/**
 * Count down `seconds` in `host` with a Cancel button; resolves true when the wait ran out,
 * false when the learner cancelled.
 */
export function waitWithCountdown(host, seconds, what = "The server is busy") {
  return new Promise((resolve) => {
    let left = Math.ceil(seconds);
    const text = el("span", {class: "retry-text"});
    const cancel = el("button", {type: "button", class: "btn retry-cancel"}, "Cancel");
    const box = el("p", {class: "retry-wait", role: "status"}, text, " ", cancel);
    const say = () => { text.textContent = `${what}: trying again in ${plural(left, "second")}.`; };
    let timer = null;
    const done = (ran) => {
      clearInterval(timer);
      box.remove();
      resolve(ran);
    };
    timer = setInterval(() => {
      left -= 1;
      if (left <= 0) done(true);
      else say();
    }, 1000);
    cancel.addEventListener("click", () => done(false));
    say();
    host.append(box);
  });
}

/**
 * POST JSON, the one error path of every page (answers: widgets/answer.js): the answer of apiFetch. A 503 or 429 that says
 * when to come back (Retry-After: a run refused while the server is busy, or while this learner
 * has as many runs going as they may) is waited out by itself with a visible countdown and a
 * Cancel button in `waitHost`, then tried again.
 */
const MAX_WAITS = 5;

export async function postJson(url, body, {method = "POST", waitHost = null, timeoutMs, keepalive} = {}) {
  for (let waits = 0; ; waits += 1) {
    const response = await apiFetch(url, {method, body, timeoutMs, keepalive});
    const seconds = retryAfter(response);
    if (seconds === null || !waitHost || waits >= MAX_WAITS) return response;
    if (!(await waitWithCountdown(waitHost, seconds))) return {...response, cancelled: true};
  }
}

/** A sentence for an apiFetch answer that is not ok, for a live region. */
export function networkMessage(response, what = "The request") {
  if (response.cancelled) return `${what} was cancelled.`;
  if (response.status === 0) {
    return response.timedOut
      ? `${what} took too long: the server did not answer. Try again.`
      : "Could not reach the server. Check your connection and try again.";
  }
  const detail = response.detail ? ` ${ensureStop(response.detail)}` : "";
  const wait = retrySeconds(response);
  const later = wait ? ` Try again in ${plural(Math.ceil(wait), "second")}.` : " Try again later.";
  if (response.status === 503) return `The server is busy right now.${detail} Try again in a moment.`;
  if (response.status === 429) return `${what} was refused: too many requests.${detail}${later}`;
  if (response.status === 404) return `${what} failed: not found.${detail}`;
  if (response.status >= 500) return `${what} failed: the server had a problem (HTTP ${response.status}).${detail}`;
  if (detail) return `${what} was refused.${detail}`;
  return `${what} failed (HTTP ${response.status}).`;
}
