"""The concept inventory: a learner's forms, scores and gain (learner.py), the pre-test and
post-test as learners and teachers meet them (inventory_tests.py), what the pre-test tells a
learner about the path (inventory_guide.py), a class's gain (inventory_gain.py) as JSON and
CSV (inventory_report.py), and the items' statistics for their authors (inventory_item_stats.py).
"""
