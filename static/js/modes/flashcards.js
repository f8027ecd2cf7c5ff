// Flashcards: one card at a time, each a card widget (widgets/card.js: "Show answer" asks the
// server for the back, then the learner grades themself: again / hard / good / easy). "again"
// and "hard" put the card in the review queue.

import {focusTarget, lessonUrl, plural} from "../util.js";
import {mountCard} from "../widgets/card.js";

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
    if (focus) focusTarget(cards[i].querySelector(".flashcard-origin"));
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

  const widgets = cards.map((card, i) => mountCard(card, {
    lesson: slug,
    card: card.dataset.card,
    url: lessonUrl(slug, "flashcards", card.dataset.card, "rating"),
    onAnswer: (result, {rating}) => {
      tally[rating] = (tally[rating] || 0) + 1;
      if (result?.queued) queued.add(card.dataset.card);
      else queued.delete(card.dataset.card);
      if (i + 1 < cards.length) show(i + 1);
      else finish();
    },
  }));
  deck.querySelector(".deck-again").addEventListener("click", () => {
    tally = {};
    for (const widget of widgets) widget.reset();
    show(0);
  });
  show(0, false);
}

export function start() {
  const article = document.querySelector("article.mode-lesson[data-lesson]");
  const deck = article && article.querySelector(".deck");
  return deck ? initDeck(deck, article.dataset.lesson) : null;
}
