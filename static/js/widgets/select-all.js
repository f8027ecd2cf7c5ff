// The select-all widget: tick every statement that holds once the code has run (none may),
// after saying how sure you are, then "Check". The verdict says right or wrong and goes
// through each statement: whether it holds, whether you ticked it, and, where the two differ,
// what that belief gets wrong; then the explanation and what the code printed. Used by the
// lesson page, step by step, recall and review.
//
//   mountSelectAll(root, options) -> {restore(saved), reopen(), regions}
//     root       the .select-all of templates/_widgets.html (`select_all`, `select_all_item`)
//     feedback   the live region for the verdict (default: root's .prediction-feedback)
//     url        where {picked, confidence} is sent
//     read(data) the reveal in the server's answer (default: the answer itself)
//     tryAgain   offer "Try again" after the verdict (a review item is answered once)
//     onAnswer(reveal, {restored, data})   after the verdict (reveal null: answered already)
//
// Everything but the *_html fields goes in with textContent.

import {renderPredictionReveal, renderStepReveal} from "../reveals.js";
import {el, setServerHtml, uid} from "../util.js";
import {calibration} from "./choice.js";
import {rescueFocus, sendAnswer, showVerdict, tryAgainButton} from "./answer.js";

/** The statement's text as the server drew it (Markdown) beside its box. */
function statementContent(root, text) {
  const box = [...root.querySelectorAll("input.select-all-box")].find((input) => input.value === text);
  const span = el("span", {class: "select-all-text"});
  const drawn = box?.closest("label")?.querySelector(".select-all-label");
  if (drawn) for (const child of drawn.childNodes) span.append(child.cloneNode(true));
  else span.append(el("code", {}, String(text)));
  return span;
}

function statementList(root, statements) {
  const list = el("ul", {class: "select-all-verdicts"});
  for (const s of statements) {
    const right = Boolean(s.holds) === Boolean(s.ticked);
    const applies = s.holds ? "applies" : "does not apply";
    const you = s.ticked ? "ticked it" : "left it";
    const item = el("li", {class: `select-all-verdict select-all-verdict--${right ? "right" : "wrong"}`},
      el("strong", {}, right ? "Right: " : "Not this one: "),
      statementContent(root, s.text),
      el("span", {class: "select-all-says"}, ` ${applies}, and you ${you}.`));
    if (s.why_html) item.append(" ", setServerHtml(el("span", {class: "feedback-why-wrong"}), s.why_html));
    list.append(item);
  }
  return list;
}

function renderVerdict(root, box, reveal, {confidence, restored}) {
  const correct = Boolean(reveal.correct);
  const title = showVerdict(box, correct ? "right" : "wrong", correct ? "Right." : "Not quite.");
  const said = calibration(correct, confidence);
  if (said) title.append(" ", el("span", {class: "feedback-calibration"}, said));
  if (restored) box.append(el("p", {class: "feedback-meta"}, "Your committed answer is ticked above."));
  const id = uid("select-all");
  box.append(el("p", {class: "feedback-label", id}, "Each statement:"));
  const list = statementList(root, Array.isArray(reveal.statements) ? reveal.statements : []);
  list.setAttribute("aria-labelledby", id);
  box.append(list);
  renderPredictionReveal(box, {...reveal, answer: null, why_html: null}, root);
  return title;
}

export function mountSelectAll(root, {feedback = null, url, read = (data) => data, tryAgain = false, onAnswer = () => {}}) {
  const boxes = [...root.querySelectorAll("input.select-all-box")];
  const check = root.querySelector(".select-all-check");
  const box = feedback ?? root.querySelector(".prediction-feedback")
    ?? root.appendChild(el("div", {class: "prediction-feedback", role: "status", "aria-live": "polite"}));
  box.classList.add("verdict");
  const fieldset = root.querySelector("fieldset.confidence");
  const question = root.querySelector(".select-all-question");
  if (question) question.id ||= uid("select-all-q");
  const again = tryAgain ? tryAgainButton(root, box, question) : null;
  const stepText = () => root.closest(".step")?.querySelector(".step-reveal");
  let busy = false;

  const lock = (locked) => {
    for (const input of boxes) input.disabled = locked;
    if (check) check.disabled = locked;
    if (fieldset) fieldset.disabled = locked;
  };
  const settle = (reveal) => {
    lock(true);
    root.dataset.committed = "true";
    if (again) again.hidden = false;
    if (reveal?.step) renderStepReveal(stepText(), reveal.step);
  };

  const reopen = () => {
    lock(false);
    box.replaceChildren();
    delete box.dataset.result;
    delete root.dataset.committed;
    if (again) again.hidden = true;
    renderStepReveal(stepText(), null);
  };

  const commit = async () => {
    if (busy || check?.disabled) return;
    busy = true;
    const picked = boxes.filter((input) => input.checked).map((input) => input.value);
    const sent = await sendAnswer({holder: root, feedback: box, what: "Checking your answer", url, body: {picked}});
    busy = false;
    if (!sent) return;
    if (sent.already) {
      lock(true);
      onAnswer(null, {restored: false, data: null});
      return;
    }
    const reveal = read(sent.data);
    const title = renderVerdict(root, box, reveal, {confidence: sent.confidence, restored: false});
    settle(reveal);
    onAnswer(reveal, {restored: false, data: sent.data});
    rescueFocus(check, title);
  };

  check?.addEventListener("click", commit);
  again?.addEventListener("click", () => {
    reopen();
    boxes[0]?.focus();
  });

  return {
    reopen,
    regions: [box],
    /** A committed answer: {sent: {picked}, confidence, correct, reveal} (the progress's
     *  `answer`, or a recall item's saved answer). */
    restore(saved) {
      if (!saved || !saved.reveal || typeof saved.reveal !== "object") return;
      const picked = new Set(Array.isArray(saved.sent?.picked) ? saved.sent.picked : []);
      for (const input of boxes) input.checked = picked.has(input.value);
      const radio = fieldset?.querySelector(`input[value="${CSS.escape(String(saved.confidence ?? ""))}"]`);
      if (radio) radio.checked = true;
      const reveal = {...saved.reveal, correct: saved.correct ?? saved.reveal.correct};
      renderVerdict(root, box, reveal, {confidence: saved.confidence, restored: true});
      settle(reveal);
      onAnswer(reveal, {restored: true, data: null});
    },
  };
}
