"""Code the core runs in the sandbox: a step's real `.grad` and the line a run waits in
(runs.py), known code answered from what is known (known_runs.py), and the gradient doctor's
words for a learner's own training code (doctor.py).
"""
