"""Real Chromium, real headers: gradlab's own forms and fetches pass the cross-site check
(app/web/cross_site.py), and a form on another site that posts to gradlab is refused with the
error page, the learner's progress kept."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.conftest import goto_ready
from tests.live import LiveServer

pytestmark = pytest.mark.browser

EVIL = "http://evil.example"


def _forms_to(server: LiveServer) -> str:
    """Another site's page: a plain form and a text/plain one, both aimed at gradlab."""
    return f"""<!doctype html><html lang="en"><head><title>Win a prize</title></head><body>
<form id="form" method="post" action="{server.url}/progress/reset">
  <button type="submit">Claim your prize</button></form>
<form id="text" method="post" enctype="text/plain" action="{server.url}/api/progress/reset">
  <input type="hidden" name="a" value="b"><button type="submit">Or this one</button></form>
</body></html>"""


def test_another_sites_forms_are_refused_and_gradlabs_own_pass(
    page: Page, server: LiveServer
) -> None:
    # gradlab's own form (read ahead) and the progress it leaves.
    goto_ready(page, f"{server.url}/lessons/first-steps/cheat-sheet")
    page.get_by_role("button", name="Read ahead: show every answer").click()
    expect(page.locator(".read-ahead-on")).to_be_visible()

    def evil(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body=_forms_to(server))

    page.route(f"{EVIL}/**", evil)
    for button in ("Claim your prize", "Or this one"):
        page.goto(f"{EVIL}/prize")
        with page.expect_navigation() as posted:
            page.get_by_role("button", name=button).click()
        answer = posted.value
        assert answer is not None and answer.status == 403, button
        # Chromium's network stack adds the header (Playwright's view of the request lacks
        # it): the refusal names it.
        assert "Sec-Fetch-Site: cross-site" in answer.text(), button
    expect(page.locator("body")).to_contain_text("cross-site-request")  # the API's answer
    goto_ready(page, f"{server.url}/lessons/first-steps/cheat-sheet")
    expect(page.locator(".read-ahead-on")).to_be_visible()  # nothing was reset

    # gradlab's own reset form, on the catalog: passes, and resets.
    goto_ready(page, f"{server.url}/")
    with page.expect_navigation() as reset:
        page.get_by_role("button", name="Reset my progress").click()
    assert reset.value is not None and reset.value.status == 200
    goto_ready(page, f"{server.url}/lessons/first-steps/cheat-sheet")
    expect(page.locator(".read-ahead-on")).to_have_count(0)


def test_another_sites_form_gets_the_error_page(page: Page, server: LiveServer) -> None:
    page.route(
        f"{EVIL}/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=_forms_to(server)),
    )
    page.goto(f"{EVIL}/prize")
    page.get_by_role("button", name="Claim your prize").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "A request from another site was refused"
    )
    expect(page.locator(".error-page")).to_contain_text("Sec-Fetch-Site: cross-site")
