// "Report a problem with this question": under every prediction and myth of a lesson page, a
// closed box with a text field. The report goes to the lesson's authors and to the teachers of
// the learner's classes (POST /api/lessons/{slug}/report). Nothing here runs on import.

import {el, lessonUrl, networkMessage, postJson, uid} from "./util.js";

const MAX_CHARS = 2000;

function lessonSlug() {
  const match = /^\/lessons\/([^/]+)/.exec(location.pathname);
  return match ? decodeURIComponent(match[1]) : null;
}

function reportBox(slug, kind, number) {
  const id = uid("report");
  const text = el("textarea", {id, name: "text", rows: "3", maxlength: String(MAX_CHARS), required: true});
  const status = el("p", {class: "report-status", role: "status", "aria-live": "polite"});
  const send = el("button", {type: "submit", class: "btn"}, "Send the report");
  const form = el(
    "form",
    {class: "report-form"},
    el("label", {for: id}, "What is wrong with this question? (up to 2,000 characters)"),
    text,
    send,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    send.disabled = true;
    const response = await postJson(lessonUrl(slug, "report"), {kind, number, text: text.value});
    send.disabled = false;
    if (response.ok) {
      text.value = "";
      status.textContent = "Thank you: the lesson's authors and your teachers will see it.";
    } else {
      status.textContent = networkMessage(response, "Sending the report");
    }
  });
  return el("details", {class: "report-problem"}, el("summary", {}, "Report a problem with this question"), form);
}

/** A report box under each step question a learner may report (data-reported: one the class
 *  dashboard analyses, of the kind its data-kind names) and each myth found in `root`. */
export function addReportLinks(root = document) {
  const slug = lessonSlug();
  if (!slug) return;
  for (const question of root.querySelectorAll(".step-question[data-reported][data-kind][data-step]")) {
    question.append(reportBox(slug, question.dataset.kind, Number(question.dataset.step)));
  }
  for (const myth of root.querySelectorAll("[data-myth]")) {
    myth.append(reportBox(slug, "myth", Number(myth.dataset.myth)));
  }
}
