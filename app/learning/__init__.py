"""The learning core: what a learner sees of a lesson, a mode and the review queue, and how
every answer is graded and revealed. Routes call one function here per request.

No web framework here (an import-linter contract holds it): app/routes is the HTTP side.
See docs/architecture.md.
"""
