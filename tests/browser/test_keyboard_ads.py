"""The ad purchase form with the keyboard alone, as a reader without a mouse meets it
after the page has loaded: every stop in a sensible order and drawn with a focus ring,
each choice made with the keys, the image chosen from the file chooser the keyboard
opens, the price said as it changes, and the payment page reached with Enter; sent
incomplete, what is missing is said at once and focus goes to the first field to fix."""

from __future__ import annotations

from tests.browser.test_purchase_form import NEXT, sign_in
from tests.factories import image_bytes, make_profile, make_reservation, make_user
from tests.fixtures import keep_screenshots_at

# What has focus, and whether a sighted keyboard user can see where it is: the element
# is drawn inside the window and has a focus indicator (an outline of at least 2 px, or
# a box shadow).
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    tag: el.tagName.toLowerCase(),
    name: el.getAttribute("name") || el.getAttribute("aria-label") || el.id ||
      el.textContent.trim().replace(/\\s+/g, " ").slice(0, 40),
    ring: (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2) ||
      (style.boxShadow !== "" && style.boxShadow !== "none"),
    inView: box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0 &&
      box.top < innerHeight && box.left < innerWidth &&
      el.checkVisibility({visibilityProperty: true, opacityProperty: true}),
  };
}"""


def focused(page) -> dict | None:
    return page.evaluate(FOCUSED)


def unseen(stop: dict | None) -> str | None:
    """Why the focus at STOP cannot be seen, or None when it can."""
    if stop is None:
        return "focus left the page's elements"
    if not stop["inView"]:
        return f"{stop['tag']} {stop['name']!r} has focus but is not drawn in the window"
    if not stop["ring"]:
        return f"{stop['tag']} {stop['name']!r} has focus but no visible focus indicator"
    return None


# Whether the element S comes before the focused one in the page's order.
BEFORE_FOCUS = """s => Boolean(document.activeElement
  .compareDocumentPosition(document.querySelector(s)) & Node.DOCUMENT_POSITION_PRECEDING)"""


def tab_until(page, arrived: str, key: str | None = None, limit: int = 60, stops=None) -> dict:
    """Press KEY (Tab, or Shift+Tab when ARRIVED is above the focus) until the focused
    element matches the selector ARRIVED, asserting at each stop that the focus can be
    seen; each stop is appended to STOPS."""
    key = key or ("Shift+Tab" if page.evaluate(BEFORE_FOCUS, arrived) else "Tab")
    found = []
    for _ in range(limit):
        page.keyboard.press(key)
        stop = focused(page)
        if stops is not None:
            stops.append(stop)
        if problem := unseen(stop):
            found.append(problem)
        if page.evaluate("s => document.activeElement.matches(s)", arrived):
            assert not found, "\n".join(found)
            return stop
    raise AssertionError(f"{arrived} never took focus in {limit} presses of {key}")


def open_file_chooser(page, key: str):
    """The file chooser the focused file field opens on `key`, as the system's dialog
    opens for a keyboard user. Chromium hands a chooser to Playwright only once it is
    told to (a listener on the page), which it may learn after a key pressed at once:
    the listener is set first, and the key pressed once it is in place."""
    chosen = []
    page.on("filechooser", lambda chooser: chosen.append(chooser))
    page.evaluate("() => new Promise(requestAnimationFrame)")  # a round trip after it
    page.keyboard.press(key)
    page.wait_for_function("() => true")  # let the event arrive
    for _ in range(100):
        if chosen:
            return chosen[0]
        page.wait_for_timeout(50)
    raise AssertionError(f"{key} on the file field opened no file chooser")


def has_focus(page, selector: str) -> bool:
    return page.evaluate("s => document.activeElement.matches(s)", selector)


def described_by(page, selector: str) -> str:
    """The text of what the control's aria-describedby points at."""
    return page.evaluate(
        """s => (document.querySelector(s).getAttribute("aria-describedby") || "")
             .split(/\\s+/).filter(Boolean)
             .map(id => document.getElementById(id)?.textContent.trim() || "").join(" ")""",
        selector,
    )


def test_an_advertiser_buys_a_slot_with_the_keyboard_alone(page, site):
    user = make_user(email="keys@example.jp")
    make_profile(user)
    make_reservation(slot="search-result-bottom", position=1, start_month=NEXT, end_month=NEXT)
    sign_in(page, site, user.email)
    page.goto(f"{site}/ads/new")
    inventory = page.locator("[data-inventory]")
    inventory.filter(has_text="割り当て予定の掲載位置").wait_for()

    stops = []
    tab_until(page, "select[name=slot]", stops=stops)
    for _ in range(6):  # the arrow keys step through the slots, each choice asked about
        if page.locator("select[name=slot]").input_value() == "search-result-bottom":
            break
        page.keyboard.press("ArrowDown")
    assert page.locator("select[name=slot]").input_value() == "search-result-bottom"
    inventory.filter(has_text="割り当て予定の掲載位置: 2").wait_for()
    assert inventory.get_attribute("aria-live") == "polite"

    tab_until(page, "select[name=country]", stops=stops)
    tab_until(page, "input[name=startMonth]", stops=stops)
    tab_until(page, "input[name=months]", stops=stops)  # past the month's year and month
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    tab_until(page, "input[name=advertiserName]", stops=stops)  # leaving it: a change
    price = page.locator("[data-price]")
    price.filter(has_text="× 3 か月").wait_for()
    assert price.get_attribute("aria-live") == "polite"  # the new price is said
    page.keyboard.type("山田商店")

    tab_until(page, "input[name=image]", stops=stops)
    open_file_chooser(page, "Space").set_files(
        files=[{"name": "ad.png", "mimeType": "image/png", "buffer": image_bytes()}]
    )
    page.locator("[data-image-preview]").wait_for(state="visible")
    notes = page.locator("[data-image-notes]")
    assert notes.get_attribute("role") == "status"  # the upload's answer is said
    assert notes.inner_text() == "画像をアップロードしました: 1280×720 PNG"
    assert has_focus(page, "input[name=image]")  # the chooser gives focus back

    tab_until(page, "input[name=redirectUrl]", stops=stops)
    page.keyboard.type("https://example.jp/shop")
    tab_until(page, "select[name=profileId]", stops=stops)
    tab_until(page, "input[name=consent]", stops=stops)
    page.keyboard.press("Space")
    assert page.locator("input[name=consent]").is_checked()
    tab_until(page, "#ad-order button[type=submit]", stops=stops)
    assert page.locator("#ad-order button[type=submit]").get_attribute("aria-disabled") == "false"

    # The order of the stops is the form's own, top to bottom, the terms link where it
    # is read, and nothing else in between.
    form_stops = [
        s["name"] for s in stops[stops.index(next(s for s in stops if s["name"] == "slot")) :]
    ]
    assert [name for i, name in enumerate(form_stops) if i == 0 or name != form_stops[i - 1]] == [
        "slot",
        "country",
        "startMonth",
        "months",
        "advertiserName",
        "image",
        "redirectUrl",
        "profileId",
        "consent",
        "利用規約 （新しいタブで開きます）",  # the terms link, which says where it opens
        "お支払いへ進む",
    ]

    keep_screenshots_at(page, "ad-form-by-keyboard")
    page.keyboard.press("Enter")
    page.wait_for_url("**/_local-payments/checkout/**")


def test_sent_empty_the_form_says_what_is_missing_and_focus_goes_to_the_first(page, site):
    make_profile(make_user(email="empty@example.jp"))
    sign_in(page, site, "empty@example.jp")
    sent = []
    page.route("**/api/ads/reservations", lambda route: (sent.append(1), route.continue_()))
    page.goto(f"{site}/ads/new")
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置").wait_for()

    # The button says it is not ready, yet a keyboard reaches it and may press it.
    submit = page.locator("#ad-order button[type=submit]")
    assert submit.get_attribute("aria-disabled") == "true"
    tab_until(page, "#ad-order button[type=submit]")
    page.keyboard.press("Enter")

    errors = page.locator("[data-errors]")
    errors.wait_for(state="visible")
    assert errors.get_attribute("role") == "alert"  # said at once
    assert errors.locator("li").all_inner_texts() == [
        "表示名: 入力してください",  # each field named as its label names it
        "画像: 画像ファイルを選んでください",
        "リンク先 URL: 入力してください",
        "利用規約への同意: 広告が利用規約に沿っていることを確認し、チェックを入れてください",
    ]
    assert has_focus(page, "input[name=advertiserName]")  # the first field to fix
    assert unseen(focused(page)) is None
    for name, words in [
        ("advertiserName", "入力してください"),
        ("image", "画像ファイルを選んでください"),
        ("redirectUrl", "入力してください"),
        ("consent", "チェックを入れてください"),
    ]:
        field = f"input[name={name}]"
        assert page.locator(field).get_attribute("aria-invalid") == "true", name
        assert words in described_by(page, field), name
    assert sent == []  # nothing incomplete was sent
    keep_screenshots_at(page, "ad-form-sent-empty")

    # Typing a name takes back its message; the others stay.
    page.keyboard.type("山田商店")
    assert page.locator("input[name=advertiserName]").get_attribute("aria-invalid") is None
    assert page.locator("[data-field-error=advertiserName]").count() == 0
    assert page.locator("input[name=redirectUrl]").get_attribute("aria-invalid") == "true"


def test_a_refused_upload_is_said_at_once(page, site):
    make_profile(make_user(email="small@example.jp"))
    sign_in(page, site, "small@example.jp")
    page.goto(f"{site}/ads/new")
    tab_until(page, "input[name=image]")
    open_file_chooser(page, "Space").set_files(
        files=[{"name": "small.png", "mimeType": "image/png", "buffer": image_bytes(320, 180)}]
    )
    error = page.locator("[data-field-error=image]")
    error.wait_for()
    assert error.get_attribute("role") == "alert"
    assert "640 × 360 px 以上にしてください" in error.inner_text()
    assert page.locator("input[name=image]").get_attribute("aria-invalid") == "true"
    assert page.locator("[data-image-preview]").is_hidden()
