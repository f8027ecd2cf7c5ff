"""The nine learning modes over one lesson, and the spaced review of what a learner missed.

Pure logic: which parts of a lesson each mode shows, drills generated from verified snippets,
pitfall-fix checking and hints, flashcards, the cheat sheet, the review scheduler (FSRS) and
calibration. No web framework here; app/routes/modes.py is the HTTP side.
"""
