// The Share button of a runnable cell: POST /api/shares with the cell's code (and the lesson
// and step it came from), then the link, copied to the clipboard, or shown selected for the
// learner to copy when the browser refuses. Its status line says which, politely.
//
//   addShareButtons(root = document)  a Share button in every runnable cell's toolbar under root
//   addShareButton(section)           one cell's; returns {button, share()}
//
// The lesson comes from the nearest [data-lesson] ancestor, the step from data-step.

import {controllerOf} from "./runnable.js";
import {el, networkMessage, postJson, uid} from "./util.js";

async function copyText(text) {
  try {
    if (!navigator.clipboard || !window.isSecureContext) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no permission, or the page lost focus: the learner copies it by hand
  }
}

function cellCode(section) {
  const controller = controllerOf(section);
  if (controller) return {code: controller.getCode(), locked: controller.isLocked()};
  const source = section.querySelector(".runnable-source");
  return {code: source ? source.value : "", locked: section.dataset.locked === "true"};
}

function shareBody(section, code) {
  const body = {code};
  const lesson = section.closest("[data-lesson]")?.dataset.lesson;
  const step = Number(section.dataset.step);
  if (lesson) {
    body.lesson = lesson;
    if (section.dataset.step && Number.isInteger(step) && step > 0) body.step = step;
  }
  return body;
}

export function addShareButton(section) {
  const toolbar = section.querySelector(".run-toolbar");
  if (!toolbar || toolbar.querySelector(".btn-share")) return null;
  const button = el("button", {type: "button", class: "btn btn-share"}, "Share");
  const status = el("span", {class: "share-status", role: "status", "aria-live": "polite"});
  const linkId = uid("share-link");
  const link = el("input", {class: "share-link", id: linkId, type: "url", readonly: true, spellcheck: "false"});
  const box = el("p", {class: "share-box", hidden: true}, el("label", {for: linkId}, "Link to this code"), link);
  toolbar.append(button, status);
  toolbar.after(box);
  let busy = false;

  const say = (text, kind = "") => {
    status.textContent = text;
    if (kind) status.dataset.status = kind;
    else delete status.dataset.status;
  };

  const share = async () => {
    if (busy) return;
    const {code, locked} = cellCode(section);
    if (locked) {
      say("This code unlocks once you have answered above; share it then.", "locked");
      return;
    }
    busy = true;
    button.setAttribute("aria-busy", "true");
    say("Making a link…");
    const response = await postJson("/api/shares", shareBody(section, code));
    busy = false;
    button.removeAttribute("aria-busy");
    if (!response.ok || !response.data || typeof response.data.url !== "string") {
      say(networkMessage(response, "Sharing"), "error");
      return;
    }
    link.value = response.data.url;
    box.hidden = false;
    if (await copyText(response.data.url)) {
      say("Link copied to the clipboard.", "ok");
    } else {
      link.focus();
      link.select();
      say("The link is below, selected: copy it with Ctrl+C (⌘C on a Mac).", "ok");
    }
  };

  button.addEventListener("click", (event) => {
    event.preventDefault();
    share();
  });
  return {button, share};
}

export function addShareButtons(root = document) {
  return [...root.querySelectorAll("section.runnable")].map(addShareButton).filter(Boolean);
}
