"""A learner's answers on a lesson's page: graded by the one grader, kept, queued for review.

grader.py grades every kind and builds its reveal; lesson_answers.py keeps a page's answers
(one commit path for a step's question); questions.py finds a lesson's questions and says
whether one is committed; completion.py is the one definition of a lesson done.
"""
