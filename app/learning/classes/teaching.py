"""Classes as the routes see them: joining by link, the instructor's access, the dashboard
and its JSON, the export, and "report a problem".

An instructor is whoever opened the class's instructor link: their signed cookie keeps, per
class, the instructor hash the link had. Rotating the links changes the hash, so every cookie
made from the old link stops working too. Anyone else (a learner, another class's instructor,
no cookie at all) gets "no such class", never "forbidden": a class's existence is not told.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import replace

from app.errors import NotFound
from app.learning.answers.questions import find_lesson
from app.learning.class_schemas import (
    ChoiceOut,
    DashboardOut,
    FunnelOut,
    ItemOut,
    ItemsOut,
    JoinBody,
    Joined,
    LevelOut,
    MisconceptionOut,
    MyData,
    ReportBody,
    RosterOut,
)
from app.learning.classes.class_csv import export_csv
from app.learning.classes.dashboard import Dashboard, clean_display_name, clean_report, dashboard
from app.learning.classes.first_attempts import (
    answers_of,
    current_answers,
    find_question,
    first_attempts,
)
from app.learning.classes.question_figures import (
    InstanceStats,
    ItemRow,
    by_concern,
    instance_stats,
    item_rows,
)
from app.learning.inventory.inventory_tests import InventoryTests
from app.learning.inventory_schemas import ClassGainOut
from app.lessons.loader import Catalog
from app.progress.classes_store import ClassInfo
from app.progress.store import ProgressStore

NO_CLASS = "There is no such class, or this link is no longer valid."


class Teaching:
    def __init__(self, catalog: Catalog, store: ProgressStore) -> None:
        self.catalog = catalog
        self.store = store
        self.inventory = InventoryTests(catalog, store)

    # --- learners ----------------------------------------------------------------------------
    def class_to_join(self, token: str) -> ClassInfo:
        info = self.store.class_by_token(token, instructor=False)
        if info is None:
            raise NotFound(NO_CLASS)
        return info

    def join(self, token: str, learner: str, body: JoinBody) -> Joined:
        info = self.class_to_join(token)
        name = clean_display_name(body.display_name)
        self.store.join_class(info.id, learner, name)
        return Joined(class_id=info.id, name=info.name, display_name=name)

    def leave(self, class_id: str, learner: str) -> None:
        if not self.store.leave_class(class_id, learner):
            raise NotFound(NO_CLASS)

    def memberships(self, learner: str | None) -> list[tuple[ClassInfo, str]]:
        return self.store.memberships(learner) if learner else []

    def my_data(self, learner: str | None) -> MyData:
        if learner is None:
            return MyData(learner="", tables={})
        tables = self.store.everything_about(learner)
        return MyData.model_validate({"learner": learner, "tables": tables})

    def forget(self, learner: str | None) -> None:
        if learner is not None:
            self.store.forget_learner(learner)

    def report(self, learner: str, slug: str, body: ReportBody) -> None:
        question = find_question(
            self.catalog, find_lesson(self.catalog, slug).slug, body.kind, body.number
        )
        text = clean_report(body.text)
        self.store.add_report(learner, slug, body.kind, body.number, question.fingerprint, text)

    # --- instructors -------------------------------------------------------------------------
    def instructor_login(self, token: str) -> tuple[str, str]:
        """(class id, the key the instructor cookie keeps for it)."""
        info = self.store.class_by_token(token, instructor=True)
        key = self.store.instructor_key(info.id) if info else None
        if info is None or key is None:
            raise NotFound(NO_CLASS)
        return info.id, key

    def taught(self, class_id: str, keys: Mapping[str, str]) -> ClassInfo:
        """The class, if this cookie's key for it is the class's current one."""
        held = keys.get(class_id)
        kept = self.store.instructor_key(class_id) if isinstance(held, str) else None
        info = self.store.find_class(class_id) if kept else None
        if info is None or kept is None or not hmac.compare_digest(kept, str(held)):
            raise NotFound(NO_CLASS)
        return info

    def instance_stats(self, keys: Mapping[str, str]) -> InstanceStats:
        """The item analysis over every learner of this instance, for whoever teaches a class
        here (it shows which choice is right, so it is not for learners)."""
        if not any(self._holds(class_id, key) for class_id, key in keys.items()):
            raise NotFound(NO_CLASS)
        return instance_stats(self.catalog, self.store)

    def _holds(self, class_id: str, key: str) -> bool:
        kept = self.store.instructor_key(class_id)
        return kept is not None and hmac.compare_digest(kept, key)

    def dashboard(self, class_id: str, keys: Mapping[str, str]) -> Dashboard:
        info = self.taught(class_id, keys)
        board = dashboard(self.catalog, self.store, info)
        if (inventory := self.catalog.inventory) is None:
            return board
        teaches = {
            concept.id: [lesson for slug in concept.lessons if (lesson := self.catalog.get(slug))]
            for concept in inventory.concepts
        }
        return replace(board, gain=self.inventory.class_gain(info), teaches=teaches)

    def gain(self, class_id: str, keys: Mapping[str, str]) -> ClassGainOut:
        """The class's matched learning gain on the concept inventory."""
        return self.inventory.class_gain_out(self.taught(class_id, keys))

    def open_post_test(self, class_id: str, keys: Mapping[str, str], opened: bool) -> None:
        """Open (or close again) the inventory's post-test for the class's members."""
        self.inventory.inventory  # noqa: B018 - refuses (404) without an inventory
        if not self.store.open_post_test(self.taught(class_id, keys).id, opened):
            raise NotFound(NO_CLASS)

    def gain_csv(self, class_id: str, keys: Mapping[str, str]) -> str:
        info = self.taught(class_id, keys)
        self.inventory.inventory  # noqa: B018 - refuses (404) without an inventory
        return self.inventory.gain_csv(info)

    def dashboard_json(self, class_id: str, keys: Mapping[str, str]) -> DashboardOut:
        return dashboard_out(self.dashboard(class_id, keys))

    def items(self, class_id: str, keys: Mapping[str, str]) -> ItemsOut:
        info = self.taught(class_id, keys)
        answered, left_out = current_answers(self.catalog, first_attempts(self.store, info.id))
        return ItemsOut(
            items=[
                item_out(row) for row in by_concern(item_rows(self.catalog, answers_of(answered)))
            ],
            left_out=left_out,
        )

    def export(self, class_id: str, keys: Mapping[str, str]) -> str:
        return export_csv(self.catalog, self.store, self.taught(class_id, keys))


def item_out(row: ItemRow) -> ItemOut:
    q, f = row.question, row.figures
    return ItemOut(
        lesson=q.lesson.slug,
        kind=q.kind.name,
        number=q.number,
        question=q.text,
        answered=f.answered,
        difficulty=f.difficulty,
        discrimination=f.discrimination,
        sure_wrong_share=f.sure_wrong_share,
        held_share=f.held_share,
        flags=list(f.flags),
        too_few_for_flags=f.too_few_for_flags,
        choices=[ChoiceOut(**vars(choice)) for choice in row.choices],
    )


def dashboard_out(board: Dashboard) -> DashboardOut:
    return DashboardOut(
        id=board.info.id,
        name=board.info.name,
        roster=[
            RosterOut(
                display_name=r.display_name,
                lessons_started=r.started,
                lessons_done=r.done,
                last_active=r.last_active,
            )
            for r in board.roster
        ],
        funnels=[
            FunnelOut(lesson=f.lesson.slug, title=f.lesson.title, reached=f.reached)
            for f in board.funnels
        ],
        misconceptions=[
            MisconceptionOut(
                lesson=m.question.lesson.slug,
                kind=m.question.kind.name,
                number=m.question.number,
                question=m.question.text,
                choice=m.choice,
                why=m.why,
                picked=m.picked,
                weight=m.weight,
                belief=m.belief,
            )
            for m in board.misconceptions
        ],
        calibration=[
            LevelOut(level=s.level, answered=s.answered, right=s.right) for s in board.calibration
        ],
        calibration_advice=board.calibration_advice,
        left_out=board.left_out,
    )
