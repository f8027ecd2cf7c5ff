"""Practice after a lesson: the review queue (queue.py), the form each due item asks
(drawing.py) and the one record of what a learner was shown (seen.py), the recall a lesson
ends on (recall.py), drills, flashcards and pitfall fixes (practice.py), and code to write
(exercises.py).
"""
