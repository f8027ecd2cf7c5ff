"""A class's gain on the concept inventory as the dashboard's JSON, its CSV and `gradlab
inventory stats` give it: one rendering of `inventory_gain.ClassGain`, each gain with its n
and "too few to say" below its minimum (app/pedagogy/sample_size.py)."""

from __future__ import annotations

import csv
import io

from app.learning.inventory.inventory_gain import ClassGain
from app.learning.inventory_schemas import (
    BandOut,
    ClassGainOut,
    ConceptBeforeOut,
    ConceptGainOut,
    GainOut,
    HeldOut,
)
from app.pedagogy.sample_size import TOO_FEW, Figure


def rounded(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def class_gain_out(found: ClassGain, class_id: str = "", name: str = "") -> ClassGainOut:
    return ClassGainOut(
        id=class_id,
        name=name,
        learners=found.learners,
        matched=found.count,
        pre_only=found.pre_only,
        post_only=found.post_only,
        pre=rounded(found.pre),
        post=rounded(found.post),
        gain=GainOut.of(found.gain),
        interval=[round(x, 4) for x in found.interval] if found.interval else None,
        concepts=[
            ConceptGainOut(
                concept=c.concept,
                name=c.name,
                pre=round(c.pre, 2),
                post=round(c.post, 2),
                gain=GainOut.of(c.gain),
            )
            for c in found.concepts
        ],
        bands=[BandOut(label=b.label, learners=b.learners) for b in found.bands],
        no_gain=found.no_gain,
        held=[HeldOut(**vars(h)) for h in found.held],
        before=[
            ConceptBeforeOut(concept=c.concept, name=c.name, known=GainOut.of(c.known))
            for c in found.before
        ],
    )


CSV_HEADER = ["scope", "name", "learners", "pre", "post", "gain", "low", "high", "note"]


def gain_csv(found: ClassGain) -> str:
    """The class's gain as a spreadsheet: the class (learners with both tests), each
    concept, each band of individual gains, then how many members took which test. `learners`
    is each gain's n; `note` says "too few to say" where the gain is left empty for it."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    low, high = found.interval or (None, None)
    scores = [_cell(found.pre), _cell(found.post), _cell(found.gain.stated)]
    writer.writerow(["class", "", found.count, *scores, _cell(low), _cell(high), _note(found.gain)])
    for c in found.concepts:
        row = [c.concept, c.gain.n, _cell(c.pre), _cell(c.post), _cell(c.gain.stated)]
        writer.writerow(["concept", *row, "", "", _note(c.gain)])
    for band in found.bands:
        writer.writerow(["band", band.label, band.learners, "", "", "", "", "", ""])
    for label, count in (
        ("members", found.learners),
        ("pre-test only", found.pre_only),
        ("post-test only", found.post_only),
    ):
        writer.writerow(["count", label, count, "", "", "", "", "", ""])
    return out.getvalue()


def _note(figure: Figure) -> str:
    return f"{TOO_FEW} (n = {figure.n}, fewer than {figure.minimum})" if figure.too_few else ""


def _cell(value: float | None) -> str:
    return f"{value:.4f}" if value is not None else ""
