// One renderer per question kind for what the server reveals once an answer is given:
// a prediction (its answer, the picked wrong choice's why, the explanation, the output), a
// step's own text (concept, explanation, insight) and a myth (belief, verdict, reality, why
// it matters, demonstration). Used by the lesson page, step by step, myth busters and review.
// Typed values have theirs in value-feedback.js.

import {capitalise, choiceContent, el, setServerHtml, uid} from "./util.js";

function labelled(label, node) {
  const id = uid("reveal");
  node.setAttribute("aria-labelledby", id);
  return [el("p", {class: "feedback-label", id}, label), node];
}

/** The answer, why a wrong pick is wrong, the explanation and what the code does. */
export function renderPredictionReveal(box, reveal, root) {
  if (reveal.answer !== undefined && reveal.answer !== null) {
    box.append(el("p", {class: "feedback-answer"}, el("strong", {}, "Answer: "), choiceContent(root, reveal.answer)));
  }
  if (reveal.why_html) {
    const why = el("p", {class: "feedback-why-wrong"}, el("strong", {}, "Why not your pick: "));
    why.append(setServerHtml(el("span"), reveal.why_html));
    box.append(why);
  }
  if (reveal.explanation_html) {
    box.append(setServerHtml(el("div", {class: "feedback-explanation"}), reveal.explanation_html));
  }
  if (typeof reveal.output === "string" && reveal.output !== "") {
    box.append(...labelled("What the code really prints:",
      el("pre", {class: "feedback-output", tabindex: "0", role: "region"}, reveal.output)));
  }
  const error = reveal.error;
  if (error && typeof error === "object" && error.type) {
    const raises = el("p", {class: "feedback-raises"}, "The code raises ", el("code", {}, String(error.type)));
    if (error.message_contains) raises.append(", with a message containing ", el("code", {}, String(error.message_contains)));
    raises.append(".");
    box.append(raises);
  }
  return box;
}

/** The step's concept, explanation and insight, into its .step-reveal container. */
export function renderStepReveal(container, step) {
  if (!container) return;
  if (!step) {
    container.replaceChildren();
    container.hidden = true;
    return;
  }
  const concept = el("p", {class: "concept"}, el("strong", {}, "Concept: "));
  concept.append(setServerHtml(el("span"), step.concept_html));
  const insight = el("p", {class: "insight"}, el("strong", {}, "Key insight: "));
  insight.append(setServerHtml(el("span"), step.insight_html));
  container.replaceChildren(concept, setServerHtml(el("div", {class: "step-explanation"}), step.explanation_html), insight);
  container.hidden = false;
}

/** A myth's verdict and its reasons. `mine` is the learner's yes or no, if known. */
export function renderMythReveal(box, reveal, {mine = null, restored = false} = {}) {
  const meta = el("p", {class: "feedback-meta"});
  if (mine) meta.append(restored ? "You answered " : "You said ", el("strong", {}, capitalise(mine)), ". ");
  if (reveal.answer) meta.append("The answer is ", el("strong", {}, `${capitalise(reveal.answer)}.`));
  box.append(meta);
  if (reveal.belief_html) {
    const belief = el("p", {class: "feedback-belief muted"}, el("em", {}, "Common belief: "));
    belief.append(setServerHtml(el("span"), reveal.belief_html));
    box.append(belief);
  }
  if (reveal.reality_html) box.append(setServerHtml(el("div", {class: "feedback-explanation"}), reveal.reality_html));
  if (reveal.why_it_matters_html) {
    const why = el("div", {class: "feedback-why"}, el("p", {class: "feedback-label"}, "Why it matters"));
    why.append(setServerHtml(el("div"), reveal.why_it_matters_html));
    box.append(why);
  }
  const demo = reveal.demo;
  if (demo && typeof demo === "object" && (demo.code || demo.output)) {
    const holder = el("div", {class: "feedback-demo"});
    if (demo.code) {
      holder.append(...labelled("Demonstration",
        el("pre", {class: "feedback-code", tabindex: "0", role: "region"}, el("code", {}, String(demo.code)))));
    }
    if (demo.output) {
      holder.append(...labelled("Output", el("pre", {class: "feedback-output", tabindex: "0", role: "region"}, String(demo.output))));
    }
    box.append(holder);
  }
  return box;
}
