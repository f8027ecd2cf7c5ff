// The concept inventory's test page: pick a choice and say how sure you are for each question
// (no verdict yet), then send the whole test at once (a question answered without a confidence
// says so beside it, and takes the focus); the result by concept comes back, with
// the concepts to revisit explained and their lessons (never a question's answer: each test is
// taken once, and its key must not travel). The markup of the result mirrors
// templates/inventory/_result.html.

import {showProblem, showVerdict} from "../widgets/answer.js";
import {el, focusTarget, networkMessage, plural, postJson, setServerHtml} from "../util.js";

const root = document.querySelector(".inventory[data-url]");
const form = root?.querySelector(".inventory-form");

function chosen(item) {
  return item.querySelector(".choice[aria-pressed='true']")?.dataset.choice ?? null;
}

function confidence(item) {
  return item.querySelector("fieldset.confidence input[type='radio']:checked")?.value ?? null;
}

function standing(concept) {
  if (concept.right === concept.asked) return "you know it";
  return concept.right ? "partly" : "not yet";
}

/** A lesson as the inventory names it: by its title, the slug only in the address. */
function lessonLink(lesson) {
  return el("a", {href: `/lessons/${encodeURIComponent(lesson.slug)}`}, lesson.title);
}

function renderResult(box, result) {
  const score = result.score;
  const section = el("section", {class: "inventory-score", "aria-labelledby": "score-title"});
  section.append(el("h2", {id: "score-title"}, `${score.right} of ${score.asked} right (${Math.round(score.percent)} %)`));
  const body = el("tbody");
  for (const c of score.concepts) {
    body.append(el("tr", {}, el("td", {}, c.name), el("td", {class: "num"}, `${c.right}/${c.asked}`), el("td", {}, standing(c))));
  }
  const head = el("thead", {}, el("tr", {},
    el("th", {scope: "col"}, "Concept"), el("th", {scope: "col", class: "num"}, "Right"), el("th", {scope: "col"}, "Where you stand")));
  section.append(el("table", {class: "data-table inventory-concepts"}, el("caption", {}, "By concept"), head, body));
  if (result.skip.length) {
    const line = el("p", {class: "inventory-skip-list"},
      "Lessons you may skip (you answered both questions on each of their ideas right; two questions are a hint, not proof): ");
    result.skip.forEach((lesson, index) => {
      if (index) line.append(", ");
      line.append(lessonLink(lesson));
    });
    line.append(".");
    section.append(line);
  } else if (result.phase === "pre") {
    section.append(el("p", {}, "Every lesson of the path has something for you."));
  }
  if (result.start) {
    section.append(el("p", {class: "inventory-start"}, "Where to start: ", lessonLink(result.start), "."));
  }
  if (result.revisit.length) {
    section.append(el("h2", {}, "Ideas to revisit"));
    const list = el("ul", {class: "inventory-revisit"});
    for (const r of result.revisit) {
      const item = el("li", {}, el("strong", {}, r.name), ` (${r.right} of ${r.asked} right): `);
      item.append(setServerHtml(el("span"), r.explanation_html));
      const lessons = el("span", {}, " Lessons: ");
      r.lessons.forEach((lesson, index) => {
        if (index) lessons.append(", ");
        lessons.append(lessonLink(lesson));
      });
      lessons.append(".");
      item.append(lessons);
      list.append(item);
    }
    section.append(list);
  }
  section.append(el("p", {}, el("a", {href: "/progress"}, "See it on your progress page"), "."));
  box.replaceChildren(section);
}

const ASK = "Say how sure you are for this question (Guess, Fairly sure or Certain): you answered it without.";

/** A question answered without a confidence: say so beside its confidence, which reads it
 *  (aria-describedby) and is marked invalid until one is chosen. */
function askBeside(item) {
  const fieldset = item.querySelector("fieldset.confidence");
  if (!fieldset || fieldset.querySelector(".confidence-problem")) return;
  const id = `confidence-problem-${item.dataset.item}`;
  fieldset.querySelector("legend").after(el("p", {class: "confidence-problem", id}, ASK));
  fieldset.classList.add("confidence-missing");
  for (const radio of fieldset.querySelectorAll("input[type='radio']")) {
    radio.setAttribute("aria-invalid", "true");
    radio.setAttribute("aria-describedby", id);
  }
}

function settle(item) {
  const fieldset = item.querySelector("fieldset.confidence");
  if (!fieldset) return;
  fieldset.querySelector(".confidence-problem")?.remove();
  fieldset.classList.remove("confidence-missing");
  for (const radio of fieldset.querySelectorAll("input[type='radio']")) {
    radio.removeAttribute("aria-invalid");
    radio.removeAttribute("aria-describedby");
  }
}

if (root && form) {
  const items = [...form.querySelectorAll(".inventory-item")];
  const count = form.querySelector(".inventory-count");
  const box = root.querySelector(".inventory-result");
  const update = () => {
    const answered = items.filter((item) => chosen(item)).length;
    count.textContent = `${answered} of ${plural(items.length, "question")} answered.`;
  };
  for (const item of items) {
    const buttons = [...item.querySelectorAll(".choice")];
    for (const button of buttons) {
      button.addEventListener("click", () => {
        for (const other of buttons) other.setAttribute("aria-pressed", String(other === button));
        item.dataset.answered = "true";
        update();
      });
    }
  }
  for (const item of items) item.querySelector("fieldset.confidence")?.addEventListener("change", () => settle(item));
  update();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const unsure = items.filter((item) => chosen(item) && !confidence(item));
    for (const item of items) {
      if (unsure.includes(item)) askBeside(item);
      else settle(item);
    }
    if (unsure.length) {
      const where = unsure.length === 1 ? "its question: it is marked there" : "their questions: each is marked there";
      showProblem(box, `Say how sure you are (Guess, Fairly sure or Certain) for ${plural(unsure.length, "question")} you answered, beside ${where}.`);
      unsure[0].querySelector("fieldset.confidence input")?.focus();
      return;
    }
    const answers = items.filter((item) => chosen(item)).map((item) => (
      {item: item.dataset.item, choice: chosen(item), confidence: confidence(item)}));
    if (!answers.length) {
      showProblem(box, "Answer at least one question before sending the test.");
      return;
    }
    const button = form.querySelector("button[type='submit']");
    button.disabled = true;
    root.setAttribute("aria-busy", "true");
    const response = await postJson(root.dataset.url, {answers}, {waitHost: root});
    root.removeAttribute("aria-busy");
    button.disabled = false;
    if (!response.ok || !response.data) {
      showProblem(box, networkMessage(response, "Sending your answers"));
      return;
    }
    showVerdict(box, "settled");
    renderResult(box, response.data);
    form.hidden = true;
    root.querySelector(".inventory-skip")?.remove();
    focusTarget(box);
  });
}
