// Pitfall fixer: each pitfall's wrong code in a live cell. "Check my fix" runs it in the
// sandbox on the server, which compares what it does with what the corrected code does. A
// ladder of three hints, and "Show the fix", are fetched only when asked for.

import {mountRunnable} from "../runnable.js";
import {apiFetch, el, focusTarget, lessonUrl, networkMessage, parts, setServerHtml} from "../util.js";
import {sendAnswer, showProblem, showVerdict} from "../widgets/answer.js";

const HINT_LEVELS = 3;

/** Where a hint's quoted line is in the learner's code as it is now (hints never number lines:
 *  the learner's code is not the lesson's). */
export function whereInCode(code, quoted) {
  const wanted = quoted.trim();
  const lines = code.split("\n").map((line) => line.trim());
  const found = lines.indexOf(wanted);
  if (found >= 0) return `In your code that is line ${found + 1}.`;
  return "Your code no longer has that line as it was; look for where it went.";
}

function initFixer(fixer, slug) {
  const number = fixer.dataset.pitfall;
  const controller = mountRunnable(fixer.querySelector("section.runnable"),
    {lesson: null, step: null, save: false});
  const {check: checkButton, hint: hintButton, show: showButton, verdict, hints, solution} =
    parts(fixer, "fixer", "check", "hint", "show", "verdict", "hints", "solution");
  let hintsShown = 0;
  let checking = false;

  checkButton.addEventListener("click", async () => {
    if (checking) return;
    checking = true;
    showVerdict(verdict, "pending");
    verdict.append(el("p", {class: "feedback-meta"}, "Running your code…"));
    await controller.ready;
    const sent = await sendAnswer({
      holder: checkButton, feedback: verdict, what: "Checking your fix", waitHost: verdict,
      url: lessonUrl(slug, "pitfalls", number, "check"), body: {code: controller.getCode()},
      timeoutMs: 90_000,
    });
    checking = false;
    if (!sent || !sent.data) return;
    const result = sent.data;
    if (result.passed) {
      fixer.dataset.fixed = "true";
      showVerdict(verdict, "right", "Fixed!");
      verdict.append(el("p", {class: "feedback-meta"}, "It runs and behaves exactly like the corrected code."));
      return;
    }
    const list = el("ul", {class: "fixer-reasons"});
    for (const html of result.reasons_html || []) list.append(setServerHtml(el("li"), html));
    const hint = result.result?.error?.hint;
    showVerdict(verdict, "wrong", "Not yet.");
    verdict.append(list);
    if (hint) verdict.append(el("p", {class: "feedback-meta"}, hint));
  });

  hintButton.addEventListener("click", async () => {
    if (hintsShown >= HINT_LEVELS) return;
    const level = hintsShown + 1;
    hintButton.setAttribute("aria-busy", "true");
    const response = await apiFetch(lessonUrl(slug, "pitfalls", number, "hints", String(level)));
    hintButton.removeAttribute("aria-busy");
    if (!response.ok || !response.data) {
      showProblem(verdict, networkMessage(response, "Fetching the hint"));
      return;
    }
    hintsShown = level;
    const hint = response.data;
    const item = el("li", {class: "fixer-hint-item"},
      el("p", {class: "feedback-label"}, `Hint ${hint.level}: ${hint.title}`));
    item.append(setServerHtml(el("div", {class: "fixer-hint-text"}), hint.text_html));
    if (hint.code) {
      item.append(el("pre", {class: "feedback-code", tabindex: "0", "aria-label": `Hint ${hint.level} code`}, el("code", {}, hint.code)));
      item.append(el("p", {class: "feedback-meta fixer-hint-where"}, whereInCode(controller.getCode(), hint.code)));
    }
    hints.hidden = false;
    hints.append(item);
    focusTarget(item);
    if (hintsShown >= HINT_LEVELS) {
      hintButton.textContent = "No more hints";
      hintButton.disabled = true;
    } else {
      hintButton.textContent = `Hint ${hintsShown + 1} of ${HINT_LEVELS}`;
    }
  });

  showButton.addEventListener("click", async () => {
    const response = await apiFetch(lessonUrl(slug, "pitfalls", number, "fix"));
    if (!response.ok || !response.data) {
      showProblem(verdict, networkMessage(response, "Fetching the fix"));
      return;
    }
    const fix = response.data;
    const load = el("button", {type: "button", class: "btn"}, "Put the fix in the editor");
    load.addEventListener("click", async () => {
      await controller.ready;
      controller.editor?.setCode(fix.code.replace(/\n$/, ""));
      controller.focus();
    });
    solution.replaceChildren(
      el("h3", {class: "fixer-solution-title", tabindex: "-1"}, "The fix"),
      el("pre", {class: "feedback-code", tabindex: "0", "aria-label": "The corrected code"}, el("code", {}, fix.code)),
      setServerHtml(el("div", {class: "feedback-explanation"}), fix.root_cause_html),
      load,
    );
    solution.hidden = false;
    showButton.disabled = true;
    focusTarget(solution.querySelector("h3"));
  });
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-lesson]");
  if (!article) return;
  for (const fixer of article.querySelectorAll(".fixer[data-pitfall]")) initFixer(fixer, article.dataset.lesson);
}
