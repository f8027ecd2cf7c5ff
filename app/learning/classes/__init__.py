"""A class as its teacher sees it: joining and the instructor's access (teaching.py), the roster and
funnels (dashboard.py), the first attempts its figures count (first_attempts.py), each
question's figures (question_figures.py) and the CSV export (class_csv.py).
"""
