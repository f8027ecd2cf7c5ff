"""A result kept per object is computed once for that object, never shared with another object
that merely looks the same (a reloaded lesson is a new object), and goes when its object goes."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from app.lessons.memo import per_object
from app.lessons.variants import instances
from tests.catalogs import BUNDLED


@dataclass
class Thing:
    name: str


def test_a_result_is_computed_once_per_object_by_identity() -> None:
    calls: list[str] = []

    @per_object
    def shout(thing: Thing) -> str:
        calls.append(thing.name)
        return thing.name.upper()

    first, twin = Thing("a"), Thing("a")
    assert first == twin
    assert shout(first) == shout(first) == "A"
    assert calls == ["a"]
    twin.name = "b"  # an equal object is not the same object: its own result
    assert shout(twin) == "B"
    assert calls == ["a", "b"]


def test_a_result_goes_with_its_object() -> None:
    @per_object
    def echo(thing: Thing) -> str:
        return thing.name

    for number in range(50):
        thing = Thing(str(number))
        assert echo(thing) == str(number)  # never an earlier object's result at a reused id
        gone = weakref.ref(thing)
        del thing  # freed at once (no cycle holds it), so the next object may take its id
        assert gone() is None  # the cache does not keep an old catalog's objects alive


def test_a_steps_instances_are_the_same_on_every_call_and_cannot_be_changed() -> None:
    steps = [step for lesson in BUNDLED.lessons for step in lesson.steps if instances(step)]
    assert steps, "the bundled lessons have steps with variants"
    for step in steps:
        assert instances(step) is instances(step)
        assert isinstance(instances(step), tuple)
