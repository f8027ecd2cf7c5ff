// The ordering widget (a Parsons problem): put the lines of a step's code in an order that
// prints what is asked. Each line has Move up and Move down buttons (no dragging needed: it
// works by keyboard and by touch alike); "Check my order" sends the order, after saying how
// sure you are. The server runs it: any order that prints the output passes. The verdict shows
// what the order printed or raised, the lesson's order and the explanation.
//
//   mountOrdering(root, options) -> {restore(saved), reopen(), order(), regions}
//     root       the .ordering of templates/_widgets.html (the `ordering` macro; on a lesson
//                page, its `ordering_step`)
//     feedback   the live region for the verdict (default: root's .prediction-feedback)
//     url        where {order, confidence} is sent
//     lesson, card   a review item's lesson and step (widgets/registry.js): the order goes to
//                the step's own route (it is graded by a run), which answers the due item;
//                onAnswer's data is then {correct, comes_back, due_count}, or null when the
//                item was not due (answered already)
//     form       a review item's form (a variant instance of the step): sent as ?form=, so
//                the order is run in that instance's code
//     tryAgain   offer "Try again" after the verdict
//     onAnswer(reveal, {restored, data})   after the verdict
//
// Everything but the *_html fields goes in with textContent.

import {renderStepReveal} from "../reveals.js";
import {el, lessonUrl, setServerHtml, uid} from "../util.js";
import {rescueFocus, sendAnswer, showVerdict, tryAgainButton} from "./answer.js";

function codeBlock(label, text) {
  const id = uid("ordering");
  return [
    el("p", {class: "feedback-label", id}, label),
    el("pre", {class: "feedback-code", tabindex: "0", role: "region", "aria-labelledby": id}, el("code", {}, text)),
  ];
}

function renderVerdict(box, reveal, {restored, instance = false}) {
  const correct = Boolean(reveal.correct);
  const title = showVerdict(box, correct ? "right" : "wrong", correct ? "Right: your order prints what is asked." : "Not quite: your order does something else.");
  if (restored) box.append(el("p", {class: "feedback-meta"}, "Your committed order is shown above."));
  if (reveal.error && reveal.error.type) {
    box.append(el("p", {class: "feedback-raises"}, "Your order raises ", el("code", {}, String(reveal.error.type)),
      reveal.error.message ? `: ${reveal.error.message}` : "", "."));
  }
  if (typeof reveal.output === "string" && !correct) {
    box.append(...codeBlock("What your order printed:", reveal.output === "" ? "(nothing)" : reveal.output));
  }
  if (Array.isArray(reveal.answer)) {
    // A variant instance's order is its own, not the lesson's.
    const label = instance ? (correct ? "One of the orders that work:" : "An order that works:")
      : (correct ? "The lesson's order (one of the orders that work):" : "An order that works, the lesson's:");
    box.append(...codeBlock(label, reveal.answer.join("\n")));
  }
  if (reveal.explanation_html) {
    box.append(setServerHtml(el("div", {class: "feedback-explanation"}), reveal.explanation_html));
  }
  return title;
}

export function mountOrdering(root, {feedback = null, url, lesson = null, card = null, form = undefined, tryAgain = false, onAnswer = () => {}}) {
  const review = Boolean(lesson && card);
  const asked = form === undefined || form === null ? "" : `?form=${encodeURIComponent(form)}`;
  const sendTo = review ? `${lessonUrl(lesson, "steps", card, "ordering")}${asked}` : url;
  const list = root.querySelector(".ordering-lines");
  const check = root.querySelector(".ordering-check");
  const moved = root.querySelector(".ordering-moved");
  const fieldset = root.querySelector("fieldset.confidence");
  const box = feedback ?? root.querySelector(".prediction-feedback")
    ?? root.appendChild(el("div", {class: "prediction-feedback", role: "status", "aria-live": "polite"}));
  box.classList.add("verdict");
  const question = root.querySelector(".ordering-question");
  const again = tryAgain ? tryAgainButton(root, box, question) : null;
  const lines = () => [...list.querySelectorAll(".ordering-line")];
  const moveButtons = () => [...list.querySelectorAll(".ordering-moves button")];
  let busy = false;

  const order = () => lines().map((li) => li.dataset.line);

  const move = (li, step, button) => {
    const all = lines();
    const at = all.indexOf(li);
    const to = at + step;
    if (to < 0 || to >= all.length) {
      moved.textContent = step < 0 ? "Already the first line." : "Already the last line.";
      return;
    }
    if (step < 0) list.insertBefore(li, all[to]);
    else list.insertBefore(li, all[to].nextSibling);
    button.focus(); // the same button, on the line where it went: press again to go further
    moved.textContent = `Moved to line ${to + 1} of ${all.length}.`;
  };

  for (const li of lines()) {
    li.querySelector(".ordering-up")?.addEventListener("click", (event) => move(li, -1, event.currentTarget));
    li.querySelector(".ordering-down")?.addEventListener("click", (event) => move(li, 1, event.currentTarget));
  }

  const setOpen = (open) => {
    for (const button of moveButtons()) button.disabled = !open;
    check.disabled = !open;
    if (fieldset) fieldset.disabled = !open;
    if (open) delete root.dataset.committed;
    else root.dataset.committed = "true";
    if (again) again.hidden = open;
  };

  const arrange = (saved) => {
    const byText = new Map(lines().map((li) => [li.dataset.line, li]));
    for (const text of saved) {
      const li = byText.get(text);
      if (li) list.append(li);
    }
  };

  const reopen = () => {
    setOpen(true);
    box.replaceChildren();
    delete box.dataset.result;
  };

  check.addEventListener("click", async () => {
    if (busy || check.disabled) return;
    busy = true;
    const sent = await sendAnswer({holder: root, feedback: box, what: "Checking your order", url: sendTo, body: {order: order()}, timeoutMs: 90_000});
    busy = false;
    if (!sent) return;
    if (sent.already) {
      setOpen(false);
      onAnswer(null, {restored: false, data: null});
      return;
    }
    const reveal = sent.data;
    const title = renderVerdict(box, reveal, {restored: false, instance: asked !== ""});
    renderStepReveal(root.closest(".step")?.querySelector(".step-reveal"), reveal.step);
    setOpen(false);
    const data = review ? (reveal.comes_back ? reveal : null) : sent.data;
    onAnswer(reveal, {restored: false, data});
    rescueFocus(check, title);
  });
  again?.addEventListener("click", () => {
    reopen();
    lines()[0]?.querySelector("button")?.focus();
  });

  return {
    reopen,
    order,
    regions: [box, moved],
    /** A committed order from the progress store: {kind, sent: {order}, confidence, correct,
     *  reveal} (a step's saved answer). */
    restore(saved) {
      const committed = saved?.sent?.order;
      if (!Array.isArray(committed)) return;
      arrange(committed);
      const radio = fieldset?.querySelector(`input[value="${CSS.escape(String(saved.confidence ?? ""))}"]`);
      if (radio) radio.checked = true;
      const reveal = {...(saved.reveal || {}), correct: saved.correct};
      renderVerdict(box, reveal, {restored: true});
      renderStepReveal(root.closest(".step")?.querySelector(".step-reveal"), reveal.step);
      setOpen(false);
      onAnswer(reveal, {restored: true, data: null});
    },
  };
}
