"""/admin/ads with the keyboard alone: an administrator approves a waiting ad and stops a
running one. Each result is said in a live region and shown as words in the row; the
stop dialog and the notice dialog take focus when they open, keep Tab and Shift+Tab
inside, close with Escape, and give focus back to the button that opened them (or,
when the action took that button away, to the row's next one)."""

from __future__ import annotations

from models.ads.months import add_months
from models.tables import AdReservation
from tests.browser.test_keyboard_ads import focused, has_focus, tab_until, unseen
from tests.browser.test_purchase_form import NEXT, sign_in
from tests.factories import make_admin, make_reservation
from tests.fixtures import keep_screenshots_at

INSIDE = "s => document.activeElement.closest(s) !== null"


def cycle(page, dialog: str, key: str, presses: int) -> list[str]:
    """Press KEY PRESSES times in the open DIALOG; each stop's name, after asserting it
    stayed inside the dialog and can be seen."""
    names = []
    for _ in range(presses):
        page.keyboard.press(key)
        assert page.evaluate(INSIDE, dialog), f"{key} took focus out of {dialog}"
        stop = focused(page)
        assert unseen(stop) is None, unseen(stop)
        names.append(stop["name"])
    return names


def test_an_admin_approves_and_stops_ads_with_the_keyboard_alone(page, site):
    waiting = make_reservation(
        slot="search-result-bottom",
        start_month=NEXT,
        end_month=add_months(NEXT, 2),
        payment_intent_id="pi_keys_waiting",
        advertiser_name="審査を待つ書店",
    )
    running = make_reservation(
        slot="search-result-midroll",
        status="active",
        start_month=NEXT,
        end_month=NEXT,
        payment_intent_id="pi_keys_running",
        advertiser_name="配信中の花屋",
    )
    admin = make_admin(email="keys-admin@example.jp")
    sign_in(page, site, admin.email)
    page.goto(f"{site}/admin/ads")
    said = page.locator("[data-result]")
    assert said.get_attribute("role") == "status"

    def row(reservation):
        return page.locator(f'tr[data-reservation-id="{reservation.id}"]')

    # Approve: the result is said, the row reads approved and scheduled (its period is
    # next month: not running yet), and focus is on the row's next action (its Approve
    # button is gone).
    tab_until(page, f'[data-approve="{waiting.id}"]')
    page.keyboard.press("Enter")
    said.filter(has_text="「審査を待つ書店」を承認しました。").wait_for()
    assert AdReservation.get_by_id(waiting.id).status == "active"
    assert row(waiting).locator("[data-status]").inner_text().startswith("承認済み · 配信予定")
    assert has_focus(page, f'[data-stop="{waiting.id}"]')

    # Stop: the dialog takes focus in its reason and holds it.
    stop_button = f'[data-stop="{running.id}"]'
    tab_until(page, stop_button)
    page.keyboard.press("Enter")
    dialog = page.locator("#stop-dialog")
    assert dialog.evaluate("d => d.open")
    assert has_focus(page, "#stop-dialog textarea[name=reason]")
    assert cycle(page, "#stop-dialog", "Tab", 3) == ["停止する", "キャンセル", "reason"]
    assert cycle(page, "#stop-dialog", "Shift+Tab", 2) == ["キャンセル", "停止する"]
    keep_screenshots_at(page, "admin-stop-dialog")

    # Escape closes it, nothing is stopped, and focus is back on the Stop button.
    page.keyboard.press("Escape")
    assert not dialog.evaluate("d => d.open")
    assert has_focus(page, stop_button)
    assert AdReservation.get_by_id(running.id).status == "active"

    # Again, with a reason, confirmed from the keyboard: the notice opens with focus in it.
    page.keyboard.press("Enter")
    assert has_focus(page, "#stop-dialog textarea[name=reason]")
    page.keyboard.type("利用規約に反する画像のため")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    notice = page.locator("#notice-dialog")
    notice.locator("[data-notice-said]").filter(
        has_text="「配信中の花屋」を停止しました。"
    ).wait_for()
    assert notice.evaluate("d => d.open")
    assert page.evaluate(INSIDE, "#notice-dialog")
    assert notice.locator("[data-notice-said]").get_attribute("role") == "status"
    assert AdReservation.get_by_id(running.id).status == "stopped"
    assert said.inner_text() == "「配信中の花屋」を停止しました。"  # kept on the page too
    assert row(running).locator("[data-status]").inner_text().startswith("停止")
    # Focus starts at its title, so its beginning is in sight, then goes round its three
    # buttons.
    assert has_focus(page, "#notice-dialog h2")
    assert unseen(focused(page)) is None
    assert cycle(page, "#notice-dialog", "Tab", 4) == [
        "メールを作成",
        "本文をコピー",
        "閉じる",
        "メールを作成",
    ]
    assert cycle(page, "#notice-dialog", "Shift+Tab", 1) == ["閉じる"]
    keep_screenshots_at(page, "admin-notice-dialog")

    # Escape closes the notice; the Stop button went with the stop, so focus is on the
    # row's Stop notice button, which opens the same notice again and gets focus back.
    page.keyboard.press("Escape")
    assert not notice.evaluate("d => d.open")
    notice_button = f'tr[data-reservation-id="{running.id}"] [data-show-notice]'
    assert has_focus(page, notice_button)
    assert unseen(focused(page)) is None
    page.keyboard.press("Enter")
    page.locator("#notice-dialog[open]").wait_for()
    assert page.evaluate(INSIDE, "#notice-dialog")
    assert notice.locator("[data-notice-body]").inner_text() != ""
    page.keyboard.press("Escape")
    assert has_focus(page, notice_button)

    # The timeline says the stop in words, not by a strike-through alone.
    assert "配信中の花屋（停止）" in page.locator("[data-timeline]").inner_text()


def test_a_blank_reason_keeps_the_stop_dialog_open_with_the_error_beside_it(page, site):
    running = make_reservation(
        slot="search-result-midroll",
        status="active",
        start_month=NEXT,
        end_month=NEXT,
        payment_intent_id="pi_blank_reason",
        advertiser_name="理由のない停止",
    )
    sign_in(page, site, make_admin(email="blank-reason@example.jp").email)
    page.goto(f"{site}/admin/ads")
    dialog = page.locator("#stop-dialog")
    reason = dialog.locator("textarea[name=reason]")
    for blank in ["", "   \n "]:
        page.click(f'[data-stop="{running.id}"]')
        reason.fill(blank)
        dialog.get_by_role("button", name="停止する", exact=True).click()
        # The dialog stays open; the error is beside the reason, which has focus
        assert dialog.evaluate("d => d.open"), repr(blank)
        assert reason.get_attribute("aria-invalid") == "true"
        said = page.locator(f"#{reason.get_attribute('aria-describedby')}")
        assert said.inner_text() == "入力してください"
        assert said.evaluate("(e, d) => d.contains(e)", dialog.element_handle())
        assert has_focus(page, "#stop-dialog textarea[name=reason]")
        assert page.locator("[data-failure]").inner_text() == ""
        assert AdReservation.get_by_id(running.id).status == "active"
        page.keyboard.press("Escape")
    # A reason typed after the error clears it, and stops the ad
    page.click(f'[data-stop="{running.id}"]')
    assert reason.get_attribute("aria-invalid") is None
    reason.fill(" ")
    dialog.get_by_role("button", name="停止する", exact=True).click()
    reason.fill("規約違反の画像")
    assert reason.get_attribute("aria-invalid") is None
    dialog.get_by_role("button", name="停止する", exact=True).click()
    page.locator("#notice-dialog[open]").wait_for()
    assert AdReservation.get_by_id(running.id).status == "stopped"
