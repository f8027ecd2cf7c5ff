"""`gradlab new <slug>`: a lesson file with every section of the format, ready to fill in.

The file is a valid lesson whose text fields say `TODO`; `gradlab check` lists every `TODO`
left, one line each, and fails until none is. Its example code is real and its outputs are
true, so the only complaints on a fresh file are the `TODO`s.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.config.paths import LESSON_SCHEMA
from app.lessons.format import Slug


class ScaffoldError(Exception):
    """The lesson file cannot be created; the message says why."""


def schema_reference(folder: Path) -> str:
    """What a lesson file in `folder` writes after `$schema=`.

    A path relative to the lesson file, to the schema gradlab ships beside its bundled lessons
    (`lessons/lesson.schema.json` in a clone): among the bundled lessons it is
    `lesson.schema.json`, in an author's own pack something like
    `../gradlab/lessons/lesson.schema.json`. The YAML language server resolves it against the
    file, so it works in any editor that runs it, offline.
    """
    return Path(os.path.relpath(LESSON_SCHEMA, folder.resolve())).as_posix()


def scaffold_text(slug: str, schema: str, torch_version: str) -> str:
    return (
        TEMPLATE.replace("__SCHEMA__", schema)
        .replace("__SLUG__", slug)
        .replace("__TORCH__", torch_version)
    )


def new_lesson(slug: str, folder: Path) -> Path:
    """Write `<folder>/<slug>.yaml`; never overwrites."""
    from pydantic import TypeAdapter, ValidationError

    from app.lessons.check import _installed_torch

    try:
        TypeAdapter(Slug).validate_python(slug)
    except ValidationError as exc:
        raise ScaffoldError(
            f"{slug!r} is not a slug: use lower-case letters, digits and single dashes "
            "(like 'why-grad-is-none'), at most 64 characters"
        ) from exc
    if not folder.is_dir():
        raise ScaffoldError(f"{folder}: no such folder")
    path = folder / f"{slug}.yaml"
    text = scaffold_text(slug, schema_reference(folder), _installed_torch())
    try:
        with path.open("x", encoding="utf-8") as file:  # "x": fails if it exists
            file.write(text)
    except FileExistsError as exc:
        raise ScaffoldError(f"{path} already exists; gradlab new never overwrites") from exc
    return path


TEMPLATE = """\
# yaml-language-server: $schema=__SCHEMA__
# A gradlab lesson (format 1); the guide is docs/authoring.md. Write where it says TODO:
# `gradlab check` lists every TODO left and fails until none is. Then run
# `gradlab check --update --lesson __SLUG__`: it runs the code and writes its real output,
# grads and errors into this file (your comments stay). Text fields are Markdown.
format: 1
# The file name and the lesson's address: /lessons/__SLUG__.
slug: __SLUG__
# Name the topic, never the result: "A second backward() on the same tensor" sets up a
# question; "Gradients accumulate" answers it before the learner has predicted anything.
title: "TODO: the topic, without its answer"
# One sentence for the catalog (at most 200 characters).
summary: "TODO: what the learner can do after this lesson"
# beginner, intermediate, advanced or expert.
level: beginner
# Honest reading time: about 200 words a minute, plus time for each question and snippet.
minutes: 10
# Place in the learning path (lower first); leave gaps so lessons can go in between.
order: 1000
# The torch the outputs were produced with (`gradlab check` notes a difference).
torch_version: "__TORCH__"
# Slugs of lessons to read first; they may be in another lesson pack.
prerequisites: []
# The slug of the lesson that comes next, or null.
next: null

overview:
  what: "TODO: what the idea is, in two or three sentences"
  why: "TODO: why a PyTorch user needs it"
  where: "TODO: where it shows up in real code"

mental_model:
  core_idea: "TODO: the one idea to hold on to"
  analogy: "TODO: an everyday picture of it"
  # Optional: a small text diagram, shown monospaced. Delete it if you have none.
  diagram: |
    x ──► y = f(x) ──► y.backward() ──► x.grad

# The build-up, one idea per step. Before a learner commits a prediction the page shows only
# the title, the setup, the locked code and the question with its choices: none of them may
# give the answer, or its numbers, away. The concept, explanation and insight come after.
# A number any text states is checked like an output: the code must give it, or arithmetic
# written beside it must compute it ("2 · 3 = 6"), or a claim (end of file) must prove it.
steps:
  - title: "TODO: what this step looks at, not what it finds"
    # foundation, intermediate, advanced or expert; never below the step before.
    level: foundation
    # Before the commit: what the learner needs to make the prediction, and no more.
    setup: "TODO: the situation the code sets up"
    # After the commit: the rule this step teaches.
    concept: "TODO: the rule, in one sentence"
    explanation: |
      TODO: why the code prints what it prints.
    snippet:
      # The code this step shows (torch, math and a few standard modules are available).
      code: |
        import torch
        x = torch.tensor([2.0, 3.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        print(x.grad)
      # What the code prints, byte for byte: `gradlab check --update` writes it.
      output: |
        tensor([4., 6.])
      # Optional: `.grad` of named tensors after the run; null claims None. List a name with
      # no value (`w:`) and `gradlab check --update` fills it in.
      grads:
        x: [4.0, 6.0]
      # Optional: true opens the backward walk (backward() node by node) under the output,
      # for a step whose point is how the gradient flows.
      walk: true
    # Answered before the output shows. Choices are shuffled for each learner, so no
    # "all of the above". Every wrong choice is a mistake learners really make, with a `why`
    # (shown when picked) that names the belief behind it and what it gets wrong.
    prediction:
      question: "TODO: what does the code print?"
      choices:
        - "TODO: the right answer"
        - text: "TODO: a wrong answer a learner would really give"
          why: "TODO: the belief behind it, and what it gets wrong"
          # The belief itself, in a teacher's words, for the class dashboard (never shown to
          # a learner): every wrong choice states one.
          misconception: "TODO: Thinks ..."
          # Where a wrong choice claims to be what other code prints ("what x * 2 would
          # give"), add that code as `because: |` and `gradlab check` proves it.
        - text: "TODO: another real misconception"
          why: "TODO: the belief behind it, and what it gets wrong"
          misconception: "TODO: Believes ..."
      # Exactly the text of one choice.
      answer: "TODO: the right answer"
      explanation: "TODO: why the answer is right (shown after the commit)"
    # Optional: the learner types one tensor's `.grad`; checked against the run.
    value_prediction:
      question: "TODO: ask for the gradient of x"
      tensor: x
      expected: [4.0, 6.0]
      explanation: "TODO: how to work it out by hand"
      # Optional: wrong values learners type, each with the belief behind it; a typed value
      # that matches one gets its `why`, which must not give the right value away.
      misconceptions:
        - value: [2.0, 3.0]
          why: "That is `x` itself: `.grad` holds how `y` changes with `x`, not `x`."
    # The same idea with other numbers. After the reveal the typed value asks an instance
    # (not the number just shown), and drills and the review ask others. Instance i takes the
    # i-th value of every param; `{name}` in `code` is replaced by it. A step whose answer no
    # parameter changes says why instead:
    # no_variants: "the one sentence that says why no other numbers ask this again"
    variants:
      params:
        x: [[1.0, -2.0], [0.5, 3.0]]
      code: |
        import torch
        x = torch.tensor({x}, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        print(x.grad)
      # Python expressions evaluated after the code runs; `str(t)` prints as torch does.
      values:
        grad: "str(x.grad)"
        x_printed: "str(x.detach())"
        y: "str(y.detach())"
        slopes: "x.grad.tolist()"
      # One rule per choice of the prediction, in the same order: each wrong choice keeps
      # its misconception for any numbers. A `why` that names numbers becomes a template.
      choices:
        - "{grad}"
        - text: "{x_printed}"
          why: "That is `x` itself: `.grad` holds how `y` changes with `x`, not `x`."
        - text: "{y}"
          why: "That is the value of `y`, not its slope."
      # Where which choice is right depends on the params (a detached tensor gives None),
      # `answer: "{grad}"` names the right choice's text; by default it is the rule in the
      # place of the prediction's answer.
      # The reveal of an instance, with its numbers.
      explanation: "2x for x = {x} is {slopes}."
      # The typed value's wrong values as rules, computed for each instance.
      misconceptions:
        - value: "x.detach().tolist()"
          why: "That is `x` itself: `.grad` holds how `y` changes with `x`, not `x`."
      # Written by `gradlab check --update` (what each instance computed); `gradlab check`
      # runs them again, and fails a changed answer or a misconception equal to the answer.
      instances:
        - params: {x: [1.0, -2.0]}
          values:
            grad: 'tensor([ 2., -4.])'
            x_printed: 'tensor([ 1., -2.])'
            y: tensor(5.)
            slopes: [2.0, -4.0]
          output: |
            tensor([ 2., -4.])
          grads: {x: [2.0, -4.0]}
          misconceptions: [[1.0, -2.0]]
        - params: {x: [0.5, 3.0]}
          values:
            grad: 'tensor([1., 6.])'
            x_printed: 'tensor([0.5000, 3.0000])'
            y: tensor(9.2500)
            slopes: [1.0, 6.0]
          output: |
            tensor([1., 6.])
          grads: {x: [1.0, 6.0]}
          misconceptions: [[0.5, 3.0]]
    # After the commit: the one thing to remember from this step.
    insight: "TODO: the lesson of this step"
    # Optional: the question its flashcard asks, when a blank in the insight would not work
    # (it must end in "?" and not repeat the insight's words).
    # insight_question: "Why does the second backward add to .grad instead of replacing it?"

# Optional: what autograd does inside.
under_the_hood:
  text: "TODO: the mechanism, for the curious"
  # Optional, as in mental_model.
  diagram: |
    y.grad_fn ──► MulBackward0 ──► AccumulateGrad ──► x.grad
# Optional deeper sections (Markdown); delete the ones you do not need.
why_designed: "TODO: why PyTorch works this way"
expert_zone:
  - "TODO: a detail an expert would want"
when_not_to_use: "TODO: when this is the wrong tool"
production_patterns: "TODO: how real code uses it"
connections:
  - topic: "TODO: a related idea"
    relation: "TODO: how the two relate"
    insight: "TODO: what seeing them together teaches"

# Yes/no questions about common beliefs; only the question shows before the commit. Ask
# so that the truth is "yes" about as often as "no" ("Does backward() return None?" is a
# fine question), and give a lesson with three or more myths both answers.
myths:
  - question: "TODO: a yes/no question whose true answer is yes"
    belief: "TODO: what people commonly think"
    answer: "yes"
    reality: "TODO: what is true"
    why_it_matters: "TODO: what goes wrong in real code for someone who believes otherwise"
    # Optional: code proving the verdict, checked like any snippet.
    demo:
      code: |
        import torch
        x = torch.ones(2, requires_grad=True)
        print(x.grad is None)
      output: |
        True
    # Other forms of the same misconception, for review (at least two): another belief, in
    # other code or numbers, each with its own answer, reality and demo.
    forms:
      - question: "TODO: the same misconception met in other code; here the truth is no"
        answer: "no"
        reality: "TODO: what is true of this form's code"
        demo:
          code: |
            import torch
            w = torch.zeros(3, requires_grad=True)
            print(w.grad)
          output: |
            None
  - question: "TODO: a second belief to test; here the truth is no"
    belief: "TODO: what people commonly think"
    answer: "no"
    reality: "TODO: what is true"
    why_it_matters: "TODO: what goes wrong in real code for someone who believes otherwise"

# A mistake, the code that makes it and the fix. The two must behave differently.
pitfalls:
  - title: "TODO: the mistake, in a few words"
    wrong:
      code: |
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).backward()
      # Code meant to raise names the exception and a stable fragment of its message.
      error:
        type: RuntimeError
        message_contains: "grad can be implicitly created only for scalar outputs"
    correct:
      code: |
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        print(x.grad)
      output: |
        tensor([2., 2.])
    root_cause: "TODO: why the wrong code goes wrong"
    # Shown with the reference once the build-up is answered; to show it earlier, once
    # step N is answered (its code must not answer a later question): after_step: N
    after_step: null
    # A fix is graded by what it does: the output and the non-null `grads` of `correct`, a
    # gradient of zeros counting as None. true only when None versus zeros is the point.
    none_matters: false

# Code to write: the learner fills each blank line (a line that is only ____) of `code`; the
# filled code runs in the sandbox and is graded by what it does, as a pitfall fix is: no
# error, exactly `output`, and the `grads` that are not null. `gradlab check` proves that
# `solution` passes and that the code with its blanks left empty fails.
exercises:
  - title: "TODO: what the learner writes, in a few words"
    task: "TODO: what the blank is for (the goal's output and .grad values are shown too)"
    code: |
      import torch
      x = torch.tensor([1.0, 2.0], requires_grad=True)
      y = (x * x).sum()
      ____
      print(x.grad)
    # What fills each blank in the reference, in order; any code that behaves the same passes.
    solution:
      - "y.backward()"
    output: |
      tensor([2., 4.])
    grads:
      x: [2.0, 4.0]
    # One more hint with each miss, at most three: they lead to the line, never write it. A
    # hint may say which miss it is for (what the run did): an error, the output, the grads:
    #   - text: "what the error names, in a question"
    #     when: error
    hints:
      - "TODO: what to compare, or where to look"
    # As in a pitfall: true only when None versus a gradient of zeros is the point.
    none_matters: false
    # Shown with the reference once the build-up is answered; to show it after step N
    # (its code and goal must not answer a later question): after_step: N
    after_step: null
    # So that only the mechanism meets the goal (never a goal written in by hand, which
    # `gradlab check` tries): a second run with values of the given code replaced, whose
    # output and .grad must follow them (every exercise has one; change every number of the
    # goal),
    rerun:
      replace: {"[1.0, 2.0]": "[3.0, -1.0]"}
      output: |
        tensor([ 6., -2.])
      grads:
        x: [6.0, -2.0]
    # and, optional, a behaviour checked in the sandbox: `watch` runs after the given line
    # `after`, and after the run `value` must be `expect` (as repr gives it); `miss` says what
    # it requires.
    # probe:
    #   after: "y = (x * x).sum()"
    #   watch: "walks = []; y.grad_fn.register_hook(lambda *g: walks.append(1))"
    #   value: "len(walks)"
    #   expect: "1"
    #   miss: "what the goal requires of the mechanism"
  # The backward of a custom autograd.Function, graded by torch.autograd.gradcheck on double
  # inputs as well as by the run; and a bug the learner names before fixing it.
  - title: "TODO: what the learner writes, in a few words"
    task: "TODO: what the backward must return"
    code: |
      import torch

      class Double(torch.autograd.Function):
          @staticmethod
          def forward(ctx, x):
              return 2 * x

          @staticmethod
          def backward(ctx, grad_output):
              ____

      x = torch.tensor([1.0, 2.0], requires_grad=True)
      Double.apply(x).sum().backward()
      print(x.grad)
    solution:
      - "return 2 * grad_output"
    output: |
      tensor([2., 2.])
    grads:
      x: [2.0, 2.0]
    rerun:
      replace: {"Double.apply(x).sum()": "Double.apply(x * x).sum()"}
      output: |
        tensor([4., 8.])
      grads:
        x: [4.0, 8.0]
    # What gradcheck calls, and one expression per input (made double, requiring grad).
    gradcheck:
      function: Double.apply
      inputs: ["torch.randn(3)"]
    hints:
      - "TODO: what to compare, or where to look"
    # Optional, together: what the blanks hold in the buggy code the learner sees first, the
    # question that asks them to name the bug (only the question and choices show before
    # they answer), and the slug of the lesson the bug comes from.
    buggy:
      - "return grad_output"
    diagnosis:
      question: "TODO: ask which mistake this is"
      choices:
        - "TODO: the right diagnosis"
        - text: "TODO: a wrong diagnosis learners give"
          why: "TODO: what that belief gets wrong"
          misconception: "TODO: Thinks ..."
      answer: "TODO: the right diagnosis"
      explanation: "TODO: why the bug does what it does"
    source: __SLUG__

# What to remember, one sentence each.
takeaways:
  - "TODO: the first thing to remember"

# Optional, for authors only (never sent to a learner): numbers in the prose that no snippet
# prints, each proven by code. `says` is a fragment of the prose, copied; `code` asserts it.
claims: []
#   - says: "the loss is (9 + 25) / 2 = 17"
#     code: |
#       assert [3.0 ** 2, 5.0 ** 2] == [9, 25]
"""
