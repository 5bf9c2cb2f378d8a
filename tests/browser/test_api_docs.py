"""The API reference page: Swagger UI from this site's own files over the document,
and its "Try it out" works for a signed-in member, state-changing calls included."""

from __future__ import annotations

from models.tables import SearchHistory
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user


def test_a_member_clears_their_history_from_the_reference_page(page, site):
    user = make_user(email="docs@example.jp")
    SearchHistory.create(user=user.id, query="猫")
    sign_in(page, site, user.email)
    page.goto(f"{site}/api/docs")
    operation = page.locator("#operations-search-clear_search_history")
    operation.locator(".opblock-summary").click()
    operation.locator("button.try-out__btn").click()
    operation.locator("button.execute").click()
    status = operation.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip().startswith("204")
    assert SearchHistory.select().count() == 0
