// The flashcard widget: recall, turn the card over ("Show answer" asks the server for the back:
// it is never in the page before), then grade yourself (again / hard / good / easy). Used by
// the flashcards mode and review.
//
//   mountCard(root, options) -> {reset()}
//     root       holds .flashcard-flip, .flashcard-back, .flashcard-grading and its .grade
//                buttons (data-grade)
//     lesson     the lesson's slug; card: the card's id (GET /api/lessons/SLUG/flashcards/ID)
//     feedback   where the verdict and a refused rating go (default: a live region made after
//                the grading buttons)
//     url        where {rating} is sent
//     read(data) the graded rating in the server's answer (default: the answer itself)
//     onAnswer(result, {rating, data})   after a rating (result null: rated already, elsewhere)

import {apiFetch, el, focusTarget, lessonUrl, networkMessage, setServerHtml} from "../util.js";
import {sendAnswer, showVerdict} from "./answer.js";

/** Fetch the back of `card` into `back`; true when it came. */
async function turnOver(lesson, card, back) {
  const response = await apiFetch(lessonUrl(lesson, "flashcards", card));
  if (!response.ok || !response.data) {
    back.replaceChildren(el("p", {class: "feedback-error"}, networkMessage(response, "Turning the card over")));
    return false;
  }
  back.replaceChildren();
  if (response.data.answer_html) {
    back.append(setServerHtml(el("p", {class: "flashcard-answer"}), `<span class="feedback-label">The blank</span> ${response.data.answer_html}`));
  }
  back.append(setServerHtml(el("div", {class: "flashcard-text"}), response.data.back_html));
  return true;
}

export function mountCard(root, {lesson, card, feedback = null, url, read = (data) => data, onAnswer = () => {}}) {
  const flip = root.querySelector(".flashcard-flip");
  const back = root.querySelector(".flashcard-back");
  const grading = root.querySelector(".flashcard-grading");
  const grades = [...root.querySelectorAll(".grade")];
  let box = feedback;
  if (!box) {
    box = el("div", {class: "card-feedback", role: "status", "aria-live": "polite"});
    grading.after(box);
  }
  box.classList.add("verdict"); // the one look of a verdict (interactive.css)
  let busy = false;

  flip.addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    flip.setAttribute("aria-busy", "true");
    const ok = await turnOver(lesson, card, back);
    flip.removeAttribute("aria-busy");
    busy = false;
    if (!ok) return;
    flip.hidden = true;
    grading.hidden = false;
    focusTarget(back);
  });

  for (const grade of grades) {
    grade.addEventListener("click", async () => {
      if (busy || grade.disabled) return;
      busy = true;
      const rating = grade.dataset.grade;
      for (const other of grades) other.disabled = true;
      const sent = await sendAnswer({holder: root, feedback: box, what: "Saving your rating", url, body: {rating}});
      busy = false;
      if (!sent) {
        for (const other of grades) other.disabled = false;
        return;
      }
      if (sent.already) {
        onAnswer(null, {rating, data: null});
        return;
      }
      const result = read(sent.data);
      const verdict = result.correct === undefined ? "settled" : (result.correct ? "right" : "wrong");
      showVerdict(box, verdict, `Rated ${rating}.`);
      onAnswer(result, {rating, data: sent.data});
    });
  }

  return {
    regions: [box],
    reset() {
      back.replaceChildren();
      box.replaceChildren();
      delete box.dataset.result;
      flip.hidden = false;
      grading.hidden = true;
      for (const grade of grades) grade.disabled = false;
    },
  };
}
