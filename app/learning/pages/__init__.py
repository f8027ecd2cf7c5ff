"""What a page shows a learner: a lesson's page (lesson_page.py), each mode's page (mode_pages.py)
and the modes themselves (registry.py), where a lesson's address opens (guided.py), and the
terms a learner has been taught (jargon.py). Pure reads: a page never writes.
"""
