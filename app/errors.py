"""Every refusal the learning core, the lessons, the modes and the sandbox raise toward the routes.

Each class names its problem: a `slug` (the problem type is `/problems/<slug>`, see
docs/http-contract.md), a short `title` that is the same for every instance, the HTTP `status`
it stands for, and for a refusal that passes with time, `retry_after` seconds. The message is
the `detail`: what went wrong this time, in words a learner can read. `app/web/problems.py`
turns them into answers (Problem Details for the API, the friendly error page for pages); this
module knows no web framework, so every layer may raise them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar

TYPE_PREFIX = "/problems/"
F = TypeVar("F", bound=Callable[..., object])


class Problem(Exception):
    """A refusal a client should see as it is: its status, type, title and detail."""

    slug: ClassVar[str] = "problem"
    title: ClassVar[str] = "The request was refused"
    status: ClassVar[int] = 400
    retry_after: ClassVar[int | None] = None

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail or self.title)

    @property
    def detail(self) -> str:
        return str(self)

    @classmethod
    def type_uri(cls) -> str:
        return f"{TYPE_PREFIX}{cls.slug}"

    def headers(self) -> dict[str, str]:
        wait = self.retry_after
        return {"Retry-After": str(wait)} if wait is not None else {}


# --- 404: nothing by that name ----------------------------------------------------------------
class NotFound(Problem):
    """No such lesson, or the lesson has no such step, myth, drill, card or pitfall."""

    slug = "not-found"
    title = "Not found"
    status = 404


class UnknownLesson(NotFound):
    slug = "unknown-lesson"
    title = "There is no lesson by that name"


class UnknownStep(NotFound):
    """No such step, or the step does not ask what was answered (no prediction, no value)."""

    slug = "unknown-step"
    title = "The lesson has no such step"


class UnknownMyth(NotFound):
    slug = "unknown-myth"
    title = "The lesson has no such myth"


class UnknownDrill(NotFound):
    slug = "unknown-drill"
    title = "The lesson has no such drill"


class UnknownFlashcard(NotFound):
    slug = "unknown-flashcard"
    title = "The lesson has no such flashcard"


class UnknownPitfall(NotFound):
    """No such pitfall, or no such hint of it."""

    slug = "unknown-pitfall"
    title = "The lesson has no such pitfall or hint"


class UnknownMode(NotFound):
    slug = "unknown-mode"
    title = "There is no such mode"


class UnknownReviewItem(NotFound):
    slug = "unknown-review-item"
    title = "There is no such review item"


# --- 409, 422: the answer does not fit ----------------------------------------------------------
class UnknownExercise(NotFound):
    """No such exercise, or no diagnosis to give for it."""

    slug = "unknown-exercise"
    title = "The lesson has no such exercise"


class NoInventory(NotFound):
    """This gradlab's lessons come without a concept inventory (no inventory.yaml)."""

    slug = "no-inventory"
    title = "There is no concept inventory here"


class AnswerError(Problem):
    """The answer does not fit the question (no rating, no value, not yes or no, ...)."""

    slug = "not-an-answer"
    title = "The answer does not fit the question"
    status = 422


class NotAChoice(AnswerError):
    slug = "not-a-choice"
    title = "That is not one of the choices"


class NotInThisForm(AnswerError):
    """An inventory answer to an item this learner's test does not ask (another form's, an
    unknown one, or the same item twice)."""

    slug = "not-in-this-form"
    title = "That item is not in this test"


class NotTheFormAsked(AnswerError):
    """A review answer to another form of the item's question (another variant instance or
    myth form) than the one its return asks: a forged form, or a page older than the item."""

    slug = "not-the-form-asked"
    title = "That is not the question this review item asks"


class InvalidText(Problem):
    """Text a learner typed that gradlab will not keep (a display name, a report)."""

    slug = "invalid-text"
    title = "That text cannot be kept"
    status = 422


class LtiRefused(Problem):
    """A login or launch from a course site (LTI 1.3) that gradlab will not accept; `check`
    names the check that failed (signature, issuer, audience, deployment, expiry, nonce,
    state, ...)."""

    slug = "lti-refused"
    title = "The launch from your course site was refused"
    status = 400

    def __init__(self, check: str, detail: str = "") -> None:
        super().__init__(f"The check that failed: {check}{'; ' + detail if detail else ''}.")
        self.check = check


class CrossSiteRequest(Problem):
    """A request that would change something, sent by a page of another site (a form or a
    script there, riding on the learner's cookie): refused before any route runs
    (app/web/cross_site.py); the detail names the header that told."""

    slug = "cross-site-request"
    title = "A request from another site was refused"
    status = 403


class NotDue(Problem):
    """The review item was answered already; it is scheduled for later."""

    slug = "not-due"
    title = "This item was answered already; it is scheduled for later"
    status = 409


class InventoryOutOfOrder(Problem):
    """The post-test was asked for before the pre-test was taken."""

    slug = "inventory-out-of-order"
    title = "Take the pre-test first"
    status = 409


class PostTestClosed(Problem):
    """The post-test was asked for before the path was finished and before the learner's
    teacher opened it for their class."""

    slug = "post-test-closed"
    title = "The post-test is not open yet"
    status = 409


class InventoryTaken(Problem):
    """This learner has taken this test already: each is taken once."""

    slug = "inventory-taken"
    title = "This test was taken already"
    status = 409


class PredictionNotCommitted(Problem):
    """Something that would answer a prediction was asked for before the prediction was
    committed (a value, a run of the step's code)."""

    slug = "prediction-not-committed"
    title = "Commit your prediction first"
    status = 409


# --- 413, 429, 503: limits and a server that cannot serve now ------------------------------------
class SnippetTooLarge(Problem):
    slug = "snippet-too-large"
    title = "The code is too long to run"
    status = 413


class BodyTooLarge(Problem):
    slug = "body-too-large"
    title = "The request body is too large"
    status = 413


class BodyTooSlow(Problem):
    """The request body took longer than GRADLAB_BODY_TIMEOUT_S to arrive."""

    slug = "body-too-slow"
    title = "The request body arrived too slowly"
    status = 408


class HeadersTooLarge(Problem):
    """A request's head over the server's caps (app/web/header_caps.py), refused as it arrives."""

    slug = "headers-too-large"
    title = "The request's headers are too large"
    status = 431


class TooManyRequests(Problem):
    """A limit on how often or how much: raise it with the seconds after which the same request
    would be accepted again."""

    slug = "too-many-requests"
    title = "Too many requests"
    status = 429

    def __init__(self, retry_after: int, detail: str | None = None) -> None:
        super().__init__(detail)
        self.wait = max(0, int(retry_after))

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.wait)}


class LearnerLimit(TooManyRequests):
    """This learner has as many runs in progress and waiting as they may."""

    slug = "learner-limit"
    title = "You have as many runs going as you may"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(retry_after, message)


class TooManyNewLearners(TooManyRequests):
    """This client address has created as many new learners as it may for now."""

    slug = "too-many-new-learners"
    title = "Too many new learners from one address"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(retry_after, message)


class SandboxBusy(Problem):
    """Every worker is busy and the queue is full."""

    slug = "sandbox-busy"
    title = "Every sandbox worker is busy"
    status = 503
    retry_after = 1


class SandboxUnavailable(Problem):
    """The sandbox is not running or refuses to run snippets; the message says why."""

    slug = "sandbox-unavailable"
    title = "The sandbox is not running snippets"
    status = 503
    retry_after = 5

    @property
    def detail(self) -> str:
        return f"{self.title}: {self}"


class SandboxDisabled(Problem):
    """This server runs no snippets (GRADLAB_SANDBOX_ENABLED is off); waiting will not help."""

    slug = "sandbox-disabled"
    title = "This server runs no code"
    status = 503


class StoreUnavailable(Problem):
    """The progress database cannot be reached; the request changed nothing."""

    slug = "store-unavailable"
    title = "Your progress cannot be reached right now"
    status = 503
    retry_after = 2


class NotReady(Problem):
    """GET /readyz: the progress database does not answer, or the sandbox cannot run snippets;
    the detail says which. For a readiness probe and a load balancer: /healthz reports both."""

    slug = "not-ready"
    title = "This server is not ready for learners"
    status = 503
    retry_after = 2

    @property
    def detail(self) -> str:
        return f"{self.title}: {self}"


# What operations of a kind may meet, for their OpenAPI entries (`app.web.problems.responses`).
STORE = (StoreUnavailable,)
RUNS = (SnippetTooLarge, LearnerLimit, SandboxBusy, SandboxUnavailable, SandboxDisabled)


def raises(*problems: type[Problem]) -> Callable[[F], F]:
    """Mark a dependency with the problems it may raise: every operation that uses it lists
    them in the API's schema (app/web/problems.py)."""

    def mark(function: F) -> F:
        function.problems = problems  # type: ignore[attr-defined]
        return function

    return mark
