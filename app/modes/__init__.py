"""The learning modes' content over one lesson: drills generated from verified snippets,
pitfall-fix verdicts and hints, code to write, flashcards, the cheat sheet, the quick read's
example. (The learning science review and the dashboard apply is in app/pedagogy.)

Pure logic: no web framework, no progress store. app/learning builds the modes' pages, and the
registry of modes, on top of it (see docs/architecture.md).
"""
