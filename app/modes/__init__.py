"""The learning modes' content over one lesson: drills generated from verified snippets,
pitfall-fix verdicts and hints, flashcards, the cheat sheet, the quick read's example, the FSRS
scheduler and calibration.

Pure logic: no web framework, no progress store. app/learning builds the modes' pages, the
review queue and the grading on top of it (see docs/architecture.md).
"""
