from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.config.paths import BUNDLED_LESSONS
from app.lessons.disclosure import asks
from app.lessons.loader import LessonError, lesson_files, load_catalog, load_lesson, parse_yaml
from tests.conftest import FIXTURE_LESSONS

BUNDLED = BUNDLED_LESSONS


def test_every_bundled_lesson_validates_and_links_resolve() -> None:
    catalog = load_catalog(BUNDLED)
    assert len(catalog) >= 3
    orders = [lesson.order for lesson in catalog.lessons]
    assert orders == sorted(orders)


@pytest.mark.parametrize("path", lesson_files(BUNDLED), ids=lambda p: p.stem)
def test_bundled_lesson_has_the_full_structure(path: Path) -> None:
    lesson = load_lesson(path)
    assert len(lesson.steps) >= 5
    assert all(asks(step) for step in lesson.steps)  # a choice, or an ordering
    assert len(lesson.myths) >= 3
    assert len(lesson.pitfalls) >= 2
    assert lesson.takeaways


def test_most_bundled_lessons_ask_for_a_typed_value() -> None:
    """A typed value is recall, not recognition; a lesson may go without one where every
    value it could ask would copy a choice just revealed (docs/authoring.md)."""
    lessons = [load_lesson(path) for path in lesson_files(BUNDLED)]
    typed = [lesson for lesson in lessons if any(s.value_prediction for s in lesson.steps)]
    assert len(typed) >= len(lessons) * 3 // 4, [lesson.slug for lesson in lessons]


# The lessons past the basics carry the whole format, with a longer build-up.
ADVANCED = (
    "custom-autograd-function",
    "torch-func",
    "mixed-precision-and-clipping",
    "accumulation-across-workers",
    "graphs-used-twice",
)


@pytest.mark.parametrize("slug", ADVANCED)
def test_lessons_past_the_basics_have_the_full_format(slug: str) -> None:
    lesson = load_lesson(BUNDLED / f"{slug}.yaml")
    assert len(lesson.steps) >= 6
    assert all(asks(step) for step in lesson.steps)  # a choice, or an ordering
    assert lesson.under_the_hood is not None and lesson.expert_zone
    assert len(lesson.myths) >= 3 and len(lesson.pitfalls) >= 2 and lesson.takeaways
    assert lesson.level.value in ("advanced", "expert")


def test_the_curriculum_goes_past_the_basics() -> None:
    assert len(load_catalog(BUNDLED)) >= 17


def _fixture() -> dict:
    data: dict = parse_yaml((FIXTURE_LESSONS / "first-steps.yaml").read_text())
    return data


def _broken(mutate) -> dict:  # type: ignore[no-untyped-def]
    data = _fixture()
    mutate(data)
    return data


BROKEN = [
    ("missing title", lambda d: d.pop("title"), "title: Field required"),
    ("unknown field", lambda d: d.update(colour="red"), "colour: Extra inputs are not permitted"),
    ("bad level", lambda d: d.update(level="easy"), "level: Input should be 'beginner'"),
    ("zero minutes", lambda d: d.update(minutes=0), "minutes: Input should be greater than"),
    (
        "answer not a choice",
        lambda d: d["steps"][0]["prediction"].update(answer="maybe"),
        "steps[1] \"Squares\" > prediction: answer: 'maybe' is not one of the choices",
    ),
    (
        "duplicate choices",
        lambda d: d["steps"][0]["prediction"].update(choices=["a", "a"], answer="a"),
        "two choices are the same",
    ),
    (
        "myth answer not yes/no",
        lambda d: d["myths"][0].update(answer="perhaps"),
        "myths[1] > answer: Input should be 'yes' or 'no'",
    ),
    ("no steps", lambda d: d.update(steps=[]), "steps: List should have at least 1 item"),
    (
        "step without insight",
        lambda d: d["steps"][0].pop("insight"),
        'steps[1] "Squares" > insight: Field required',
    ),
    ("bad slug", lambda d: d.update(slug="First Steps"), "slug: String should match pattern"),
    (
        "grad name not a variable",
        lambda d: d["steps"][0]["snippet"]["grads"].update({"1x": 1.0}),
        "'1x' is not a variable name",
    ),
    (
        "pitfall fixed code identical",
        lambda d: d["pitfalls"][0]["correct"].update(code=d["pitfalls"][0]["wrong"]["code"]),
        "the corrected code is the same as the wrong code",
    ),
    (
        "value prediction without code",
        lambda d: d["steps"][0].pop("snippet"),
        "a value prediction needs a snippet",
    ),
    (
        "requires itself",
        lambda d: d.update(prerequisites=["first-steps"]),
        "a lesson cannot require itself",
    ),
    ("wrong format", lambda d: d.update(format=2), "this gradlab reads lesson format 1"),
]


@pytest.mark.parametrize(
    ("mutate", "message"), [(m, msg) for _, m, msg in BROKEN], ids=[name for name, _, _ in BROKEN]
)
def test_broken_lesson_is_rejected_with_a_precise_message(tmp_path: Path, mutate, message) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "first-steps.yaml"
    path.write_text(yaml.safe_dump(_broken(mutate), allow_unicode=True))
    with pytest.raises(LessonError) as caught:
        load_lesson(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


RAW_BROKEN = [
    ("not yaml", "title: [unclosed", "not valid YAML at line 1"),
    ("a list", "- 1\n- 2\n", "must be a mapping of fields, not list"),
    ("duplicate key", "format: 1\ntitle: a\ntitle: b\n", "duplicate key 'title'"),
    ("binary", b"\xff\xfe\x00".decode("latin-1"), "not UTF-8"),
]


@pytest.mark.parametrize(
    ("text", "message"), [(t, m) for _, t, m in RAW_BROKEN], ids=[name for name, _, _ in RAW_BROKEN]
)
def test_unparseable_lesson_file_is_rejected(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.yaml"
    path.write_bytes(text.encode("latin-1") if message == "not UTF-8" else text.encode())
    with pytest.raises(LessonError, match=r"broken\.yaml") as caught:
        load_lesson(path)
    assert message in str(caught.value)


def test_slug_must_match_file_name(tmp_path: Path) -> None:
    path = tmp_path / "other-name.yaml"
    path.write_text(yaml.safe_dump(_fixture()))
    with pytest.raises(LessonError, match="must match the file name 'other-name'"):
        load_lesson(path)


def test_yes_and_no_stay_words_not_booleans(tmp_path: Path) -> None:
    lesson = load_lesson(FIXTURE_LESSONS / "first-steps.yaml")
    assert lesson.myths[0].answer == "no"


def test_catalog_reports_every_broken_file_and_dangling_links(tmp_path: Path) -> None:
    data = _fixture()
    data["next"] = "nowhere"
    (tmp_path / "first-steps.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(LessonError, match="first-steps: next: no lesson 'nowhere'"):
        load_catalog(tmp_path)
    (tmp_path / "zz-broken.yaml").write_text("format: 1\n")
    with pytest.raises(LessonError) as caught:
        load_catalog(tmp_path)
    assert "zz-broken.yaml" in str(caught.value)


def test_app_refuses_to_start_on_a_broken_lesson(tmp_path: Path) -> None:
    from app.main import create_app
    from tests.conftest import make_settings

    (tmp_path / "bad.yaml").write_text("format: 1\nslug: bad\n")
    with pytest.raises(LessonError, match=r"bad\.yaml"):
        create_app(make_settings(lessons_dir=tmp_path))


@pytest.mark.parametrize("path", lesson_files(BUNDLED), ids=lambda p: p.stem)
def test_bundled_lessons_name_the_schema_for_editors(path: Path) -> None:
    first = path.read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=lesson.schema.json"
