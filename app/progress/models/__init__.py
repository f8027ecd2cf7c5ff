"""The progress store's schema, one module per part: what gradlab remembers of a learner, one
row per fact, every attempt kept. Importing any of them imports them all, so that
`Base.metadata` (app/progress/models/declarative.py) always holds every table: the migrations
are compared with it, and forgetting a learner deletes their rows from each table it holds."""

from app.progress.models import (  # noqa: F401  every table on Base.metadata
    app_secrets,
    classes,
    inventory,
    learners,
    lti,
    modes,
    shares,
)
