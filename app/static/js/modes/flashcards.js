// Flashcards: one card at a time. "Show answer" asks the server for the back (answers are
// never in the page before); the learner then grades themself (again / hard / good / easy).
// "again" and "hard" put the card in the review queue.

import {apiFetch, el, focusTarget, lessonUrl, networkMessage, plural, setServerHtml} from "./common.js";

export async function turnOver(card, slug, back) {
  const response = await apiFetch(lessonUrl(slug, "flashcards", card));
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

function initDeck(deck, slug) {
  const cards = [...deck.querySelectorAll(".flashcard")];
  const bar = deck.querySelector("progress");
  const label = deck.querySelector(".deck-current");
  const done = deck.querySelector(".deck-done");
  const summary = deck.querySelector(".deck-summary");
  let tally = {};
  const queued = new Set(); // cards this deck sent to the review queue

  const show = (i, focus = true) => {
    cards.forEach((card, k) => { card.hidden = k !== i; });
    done.hidden = true;
    bar.value = i;
    bar.textContent = `${i} of ${cards.length}`;
    label.textContent = String(i + 1);
    if (focus) focusTarget(cards[i].querySelector(".flashcard-kind"));
  };

  const finish = () => {
    cards.forEach((card) => { card.hidden = true; });
    bar.value = cards.length;
    const parts = ["again", "hard", "good", "easy"].filter((g) => tally[g]).map((g) => `${tally[g]} ${g}`);
    summary.textContent = `You went through ${plural(cards.length, "card")}: ${parts.join(", ")}.`
      + (queued.size ? ` ${plural(queued.size, "card")} will come back in your review queue.` : "");
    done.hidden = false;
    focusTarget(done.querySelector("h2"));
  };

  const reset = (card) => {
    card.querySelector(".flashcard-back").replaceChildren();
    card.querySelector(".flashcard-flip").hidden = false;
    card.querySelector(".flashcard-grading").hidden = true;
    for (const button of card.querySelectorAll(".grade")) button.disabled = false;
  };

  cards.forEach((card, i) => {
    const flip = card.querySelector(".flashcard-flip");
    const back = card.querySelector(".flashcard-back");
    const grading = card.querySelector(".flashcard-grading");
    flip.addEventListener("click", async () => {
      flip.setAttribute("aria-busy", "true");
      const ok = await turnOver(card.dataset.card, slug, back);
      flip.removeAttribute("aria-busy");
      if (!ok) return;
      flip.hidden = true;
      grading.hidden = false;
      focusTarget(back);
    });
    for (const button of card.querySelectorAll(".grade")) {
      button.addEventListener("click", async () => {
        const rating = button.dataset.grade;
        for (const other of card.querySelectorAll(".grade")) other.disabled = true;
        const response = await apiFetch(lessonUrl(slug, "flashcards", card.dataset.card, "rating"),
          {method: "POST", body: {rating}});
        if (!response.ok || !response.data) {
          for (const other of card.querySelectorAll(".grade")) other.disabled = false;
          back.append(el("p", {class: "feedback-error"}, networkMessage(response, "Saving your rating")));
          return;
        }
        tally[rating] = (tally[rating] || 0) + 1;
        if (response.data.queued) queued.add(card.dataset.card);
        else queued.delete(card.dataset.card);
        if (i + 1 < cards.length) show(i + 1);
        else finish();
      });
    }
  });
  deck.querySelector(".deck-again").addEventListener("click", () => {
    tally = {};
    cards.forEach(reset);
    show(0);
  });
  show(0, false);
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-lesson]");
  const deck = article && article.querySelector(".deck");
  return deck ? initDeck(deck, article.dataset.lesson) : null;
}
