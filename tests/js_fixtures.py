"""The widget markup the browser code's unit tests (tests/js) mount: rendered from the real macros
of templates/_widgets.html (and modes/_macros.html's grade buttons), so a change to a widget's
markup reaches its tests. tests/test_js_units.py checks that tests/js/fixtures/widgets.json is
what these macros render now; after changing a macro, write it again:

    PYTHONPATH=$PWD python3 tests/js_fixtures.py
"""

from __future__ import annotations

import json
from pathlib import Path

from app.web.templates import templates

FIXTURES = Path(__file__).parent / "js" / "fixtures" / "widgets.json"

ORDERING_LINES = ["y = x * x", "y.backward()", "print(x.grad)"]

# name -> a template calling the macros the way the pages do (arguments as a lesson gives them).
CALLS = {
    "confidence": '{{ w.confidence_fieldset("confidence-1") }}',
    "choice": '{{ w.choice(["tensor(2.)", "None"], label="Your prediction for step 1") }}',
    "yes_no": '{{ w.yes_no(label="Your answer to myth 1") }}',
    "value": '{{ w.value("x", "What is `x.grad`?" | markdown_inline, lead="Now type it:", step=1) }}',
    "ordering": (
        '{{ w.ordering(1, "print the gradient of `x`", "import torch\\nx = torch.tensor(1.0, requires_grad=True)\\n",'
        ' lines, "tensor(2.)", "Lines to put in order") }}'
    ),
    "card": '{{ w.card_item({"flashcard": {"cloze": ["The gradient of a sum flows to ", "."]}}, 7) }}',
}


def render_widget_fixtures() -> dict[str, str]:
    rendered = {}
    for name, call in CALLS.items():
        source = '{% import "_widgets.html" as w %}' + call
        template = templates.env.from_string(source)
        rendered[name] = template.render(lines=ORDERING_LINES).strip() + "\n"
    return rendered


def fixtures_text() -> str:
    return json.dumps(render_widget_fixtures(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    FIXTURES.parent.mkdir(parents=True, exist_ok=True)
    FIXTURES.write_text(fixtures_text(), encoding="utf-8")
    print(f"wrote {FIXTURES}")
