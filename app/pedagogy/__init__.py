"""The learning science gradlab applies, as plain algorithms: when to ask an item again (the FSRS
scheduler), which due items a review sitting asks together (sitting), how well a learner's
confidence matches their answers (calibration), and how each question performs over a class
(item analysis).

Pure logic: no web framework, no progress store, no lesson. app/learning applies it to a
learner's records (see docs/architecture.md).
"""
