"""docs/architecture.md's lists against the code: import-linter's contracts name every module of
app/, every route module is in "routes never import each other", the authoring tools and the
sandbox's two sides are listed in the docs as in the contracts, and "Where things are" names
every folder and module at the top of app/."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

from app.config.paths import PROJECT_ROOT
from app.learning.kinds import KINDS
from app.learning.pages.registry import MODES
from app.lessons.format import Step
from app.web.templates import templates

APP = PROJECT_ROOT / "app"
ARCHITECTURE = (PROJECT_ROOT / "docs" / "architecture.md").read_text()
CONTRACTS: list[dict[str, Any]] = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())[
    "tool"
]["importlinter"]["contracts"]


def _contract(name_starts: str) -> dict[str, Any]:
    (found,) = [c for c in CONTRACTS if c["name"].startswith(name_starts)]
    return found


def _top_level() -> set[str]:
    """The modules and packages directly under app/, as import paths."""
    names = {f"app.{path.stem}" for path in APP.glob("*.py") if path.stem != "__init__"}
    names |= {f"app.{path.name}" for path in APP.iterdir() if (path / "__init__.py").is_file()}
    return names


def _section(title: str) -> str:
    start = ARCHITECTURE.index(f"## {title}")
    end = ARCHITECTURE.find("\n## ", start + 1)
    return ARCHITECTURE[start : end if end != -1 else None]


def test_the_layers_contract_names_every_module_of_app() -> None:
    """A module no layer names is checked by no layer: import-linter would let it import
    anything and be imported by anything."""
    layers = _contract("The layers")["layers"]
    named = {part.strip() for layer in layers for part in layer.split("|")}
    assert _top_level() - named == set(), "add them to the layers in pyproject.toml"
    assert named - _top_level() == set(), "the layers name modules that do not exist"


def test_every_route_module_is_independent_of_the_others() -> None:
    routes = {
        f"app.routes.{path.stem}"
        for path in (APP / "routes").glob("*.py")
        if path.stem not in ("__init__", "deps")  # deps is what the routes share
    }
    assert set(_contract("Routes never import each other")["modules"]) == routes


def test_the_docs_list_the_authoring_tools_as_the_contract_does() -> None:
    tools = {
        m.removeprefix("app.lessons.")
        for m in _contract("The authoring tools")["forbidden_modules"]
    }
    for tool in tools:
        assert (APP / "lessons" / f"{tool}.py").is_file(), tool
    text = _section("What may import what")
    (listed,) = re.findall(r"\*\*The authoring tools\*\* \(([^)]*)\)", text)
    assert set(re.findall(r"`(?:app\.lessons\.)?([a-z_]+)`", listed)) == tools


def test_the_docs_list_the_sandbox_sides_as_the_contract_does() -> None:
    contract = _contract("The sandbox's server side")
    server = {m.removeprefix("app.sandbox.") for m in contract["source_modules"]}
    inside = {m.removeprefix("app.sandbox.") for m in contract["forbidden_modules"]}
    text = _section("What may import what")
    (sides,) = re.findall(r"\*\*The sandbox's two sides\.\*\*(.*?)(?:\n\n|\Z)", text, re.DOTALL)
    server_text, _, inside_text = sides.partition("imports none of the modules")
    assert set(re.findall(r"`([a-z_]+)`", server_text)) == server
    inside_named = set(re.findall(r"`([a-z_]+)`", inside_text.split("nothing outside")[0]))
    assert inside_named == inside
    sandbox = {path.stem for path in (APP / "sandbox").glob("*.py")} - {"__init__"}
    shared = set(re.findall(r"`([a-z_]+)`", sides.split("What both sides agree on")[1]))
    assert server | inside | shared == sandbox, "every sandbox module is on one side or shared"


def test_where_things_are_names_every_folder_and_module_of_app() -> None:
    text = _section("Where things are")
    for name in sorted(_top_level()):
        path = name.replace(".", "/")
        shown = f"{path}/" if (PROJECT_ROOT / path).is_dir() else f"{path}.py"
        assert shown in text or f"{Path(shown).name}" in text, shown


# --- what a new question kind touches ("Question kinds") --------------------------------------


def _kind_files(which: str) -> list[str]:
    """The files one list of "What a new kind touches" names, in order."""
    start = ARCHITECTURE.index(f"<!-- kind-files: {which} -->")
    end = ARCHITECTURE.index("<!-- /kind-files -->", start)
    return re.findall(r"^- `([^`]+)`", ARCHITECTURE[start:end], re.M)


def test_the_files_a_new_kind_touches_are_listed_and_exist() -> None:
    every_kind = _kind_files("every kind")
    every_widget = _kind_files("every widget")
    step_question = _kind_files("a step's question")
    assert (len(every_kind), len(every_widget), len(step_question)) == (2, 4, 4)
    for kind in KINDS:
        named = [
            path.replace("<kind>", kind.name).replace(
                "static/js/widgets/<widget>.js", _scripts()[kind.widget]
            )
            for path in every_kind + every_widget + (step_question if kind.step_field else [])
        ]
        missing = [path for path in named if not (PROJECT_ROOT / path).is_file()]
        assert missing == [], kind.name


def _code_names(path: Path, words: re.Pattern[str]) -> bool:
    """Does the code of `path` (not its comments nor docstrings) name one of `words`?"""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        text = re.sub(r"\{#.*?#\}|/\*.*?\*/|<!--.*?-->", "", text, flags=re.S)
        text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
        return bool(words.search(text))
    tree = ast.parse(text)
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docs.add(id(first.value))
    for node in ast.walk(tree):
        found = (
            node.id
            if isinstance(node, ast.Name)
            else node.attr
            if isinstance(node, ast.Attribute)
            else node.name
            if isinstance(node, ast.alias | ast.ClassDef | ast.FunctionDef)
            else node.value
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            else None
        )
        if isinstance(found, str) and id(node) not in docs and words.search(found):
            return True
    return False


def test_the_select_all_kind_touched_only_the_listed_files() -> None:
    # Every file outside tests, lessons and docs whose code names the kind (its name, its
    # question model, its widget, its reveal) is one the lists above give a new step question
    # with a new widget: 6 files, 10 with its widget.
    words = re.compile(r"select_all|SelectAll|select-all|SELECT_ALL|mountSelectAll")
    named = sorted(
        path.relative_to(PROJECT_ROOT).as_posix()
        for folder in ("app", "templates", "static")
        for path in (PROJECT_ROOT / folder).rglob("*")
        if path.suffix in (".py", ".html", ".js", ".css")
        and "vendor" not in path.parts
        and _code_names(path, words)
    )
    listed = [
        path.replace("<kind>", "select_all").replace("<widget>", "select-all")
        for path in _kind_files("every kind")
        + _kind_files("a step's question")
        + _kind_files("every widget")
    ]
    assert named == sorted(listed)
    assert len(listed) == 10


WIDGETS_JS = PROJECT_ROOT / "static" / "js" / "widgets"
# Widgets whose one macro is their page's own: code to write (`exercise_card`, _exercise.html,
# which the lesson page, the pitfall fixer and review call) and the flashcard deck.
OWN_TEMPLATE = {"code": "_exercise.html", "card": "modes/flashcards.html"}


def _scripts() -> dict[str, str]:
    """widget name -> its script, as widgets/registry.js maps it."""
    registry = (WIDGETS_JS / "registry.js").read_text()
    files = {
        name.strip(): file
        for names, file in re.findall(r'import \{([^}]+)\} from "\./([\w-]+\.js)";', registry)
        for name in names.split(",")
        if name.strip().startswith("mount")
    }
    table = registry[registry.index("export const WIDGETS") :]
    mapped = re.findall(r'"?([\w-]+)"?: (mount\w+)', table[: table.index("};")])
    return {name: f"static/js/widgets/{files[mount]}" for name, mount in mapped}


def test_every_kind_has_its_module_its_widget_and_its_place() -> None:
    widgets = templates.env.get_template("_widgets.html").module
    scripts = _scripts()
    for kind in KINDS:
        assert (APP / "learning" / "kinds" / f"{kind.name}.py").is_file(), kind.name
        drawn = callable(getattr(widgets, kind.macro, None))
        assert drawn or kind.widget in OWN_TEMPLATE, kind.name
        if kind.review is not None:
            assert callable(getattr(widgets, kind.review_macro, None)), kind.name
        assert (PROJECT_ROOT / scripts[kind.widget]).is_file(), kind.name
        assert any(kind in mode.asks for mode in MODES), kind.name
    # Every field of the lesson format that asks a step something is one kind's.
    assert sorted(k.step_field or "" for k in KINDS if k.step_field) == sorted(Step.QUESTIONS)


def test_no_two_test_files_share_a_name() -> None:
    """The test folders are not packages, so pytest imports each test file by its name alone:
    two files of one name in two folders fail the whole run that collects both."""
    names: dict[str, list[str]] = {}
    for path in sorted((PROJECT_ROOT / "tests").rglob("test_*.py")):
        names.setdefault(path.name, []).append(str(path.relative_to(PROJECT_ROOT)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_the_learning_cores_door_names_what_it_loads() -> None:
    import app.learning as door

    assert sorted(door.__all__) == sorted(door._DOOR)
    for name in door.__all__:
        assert getattr(door, name) is not None, name


def test_step_questions_are_drawn_and_mounted_by_their_kind_alone() -> None:
    """Every question a step asks is drawn by its widget's `<macro>_step` macro and mounted,
    restored and revealed through widgets/registry.js: no script outside static/js/widgets/
    selects a step question by its widget's name, its route's segment or its root's class."""
    widgets = templates.env.get_template("_widgets.html").module
    stepped = [kind for kind in KINDS if kind.step is not None]
    for kind in stepped:
        assert callable(getattr(widgets, f"{kind.macro}_step", None)), kind.name
    # A step question's root class, as the macros draw it (`prediction step-question`,
    # `value-prediction{% if kind %} step-question`).
    source = (PROJECT_ROOT / "templates" / "_widgets.html").read_text()
    classes = set(re.findall(r"([\w-]+)(?:\{% if kind %\})? step-question", source))
    assert {"prediction", "ordering", "select-all", "value-prediction"} <= classes, classes
    roots = "|".join(re.escape(name) for name in sorted(classes))
    selector = re.compile(
        r"""data-(?:widget|question|kind)=["']?\w"""  # by a name in an attribute selector
        + rf"""|["'][^"'\n]*\.(?:{roots})(?![\w-])"""  # by a root's class, in a string
    )
    found = [
        f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}"
        for path in sorted((PROJECT_ROOT / "static" / "js").rglob("*.js"))
        if WIDGETS_JS not in path.parents and "vendor" not in path.parts
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if not line.lstrip().startswith("//") and selector.search(line)
    ]
    assert found == []
