// A document for the unit tests of the browser code that touches the DOM: happy-dom (a pinned
// devDependency of frontend/package.json, installed by `cd frontend && npm ci`), resolved from
// frontend/node_modules whatever directory `node --test` runs in.
//
//   installDom()            a fresh window; document, window and the DOM classes the modules
//                           use become globals (the modules read them when called, never on import)
//   fixture(html)           the body holds `html`; returns its first element
//   WIDGETS                 the widgets' markup, rendered from templates/_widgets.html's macros
//                           (tests/js/fixtures/widgets.json, written by tests/js_fixtures.py)
//   stubFetch(answer)       globalThis.fetch answers every request with answer(url, body):
//                           {status, body, headers} (body as JSON); returns the calls made
//   settle()                let the pending promises and timers of a click run out
//   click(node), key(node, name), fire(node, type)   a user's click, key press, other event

import {readFileSync} from "node:fs";
import {createRequire} from "node:module";
import {after} from "node:test";

const require = createRequire(new URL("../../frontend/package.json", import.meta.url));

function loadHappyDom() {
  try {
    return require("happy-dom");
  } catch (error) {
    throw new Error("tests/js needs happy-dom: run `cd frontend && npm ci` first", {cause: error});
  }
}

const GLOBALS = [
  "document", "Node", "Element", "HTMLElement", "HTMLButtonElement", "HTMLSelectElement",
  "HTMLInputElement", "SVGElement", "CSS", "DOMParser", "Event", "MouseEvent", "KeyboardEvent",
  "SubmitEvent", "getComputedStyle",
];

let window = null;

export const WIDGETS = JSON.parse(readFileSync(new URL("fixtures/widgets.json", import.meta.url), "utf-8"));

export function installDom() {
  const {Window} = loadHappyDom();
  window?.happyDOM.close();
  window = new Window({url: "http://localhost/lessons/demo"});
  globalThis.window = window;
  for (const name of GLOBALS) globalThis[name] = window[name];
  return window;
}

after(() => window?.happyDOM.close());

export function fixture(html) {
  document.body.innerHTML = html;
  return document.body.firstElementChild;
}

export function stubFetch(answer) {
  const calls = [];
  globalThis.fetch = async (url, init = {}) => {
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    calls.push({url: String(url), method: init.method ?? "GET", body});
    const reply = await answer(String(url), body);
    if (reply instanceof Error) throw reply;
    const {status = 200, body: data = null, headers = {}} = reply;
    return new Response(data === null ? "" : JSON.stringify(data), {status, headers: {"Content-Type": "application/json", ...headers}});
  };
  return calls;
}

export async function settle() {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

export function click(node) {
  node.dispatchEvent(new window.MouseEvent("click", {bubbles: true, cancelable: true}));
}

export function key(node, name) {
  node.dispatchEvent(new window.KeyboardEvent("keydown", {key: name, bubbles: true, cancelable: true}));
}

export function fire(node, type) {
  node.dispatchEvent(new window.Event(type, {bubbles: true}));
}
