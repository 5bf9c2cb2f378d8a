"""Japanese first, English too: the catalogs are complete, the reader's language and
time zone are chosen as documented, and a Japanese page carries no English source
sentence."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from babel.messages.pofile import read_po
from flask_login import login_user

from models.ads.profiles import BUSINESS_CATEGORIES
from models.payments import get_provider, plan_price_id
from models.problems import ENGLISH, Problem
from models.tables import User
from tests.factories import make_admin, make_user, sign_in
from web import i18n

TRANSLATIONS = Path(__file__).resolve().parents[2] / "web" / "translations"


def catalog(locale: str):
    with open(TRANSLATIONS / locale / "LC_MESSAGES" / "messages.po", "rb") as file:
        return read_po(file, locale=locale)


def test_the_japanese_catalog_translates_every_sentence_and_nothing_is_fuzzy():
    ja = catalog("ja")
    assert len(ja) > 100
    untranslated = [m.id for m in ja if m.id and not m.string]
    fuzzy = [m.id for m in ja if m.id and m.fuzzy]
    assert untranslated == [] and fuzzy == []


def test_the_catalogs_hold_what_the_code_asks_for():
    """Every msgid of the template (extracted from the code) is in both catalogs: a
    sentence added to a page without `make messages` fails here."""
    with open(TRANSLATIONS / "messages.pot", "rb") as file:
        wanted = {m.id for m in read_po(file) if m.id}
    for locale in ("ja", "en"):
        held = {m.id for m in catalog(locale) if m.id}
        assert wanted <= held, (locale, sorted(wanted - held)[:10])


def test_the_compiled_catalogs_are_newer_than_their_sources():
    for locale in ("ja", "en"):
        folder = TRANSLATIONS / locale / "LC_MESSAGES"
        assert (folder / "messages.mo").stat().st_mtime >= (folder / "messages.po").stat().st_mtime


def test_every_field_problem_has_japanese_words_of_its_own(app):
    """Each code of models/problems.py has the reader's words (web/i18n.py PROBLEMS),
    and the Japanese catalog holds them."""
    assert set(i18n.PROBLEMS) == set(ENGLISH)
    with app.test_request_context(headers={"Accept-Language": "ja"}):
        words = {code: str(said) for code, said in i18n.PROBLEMS.items()}
    assert [code for code, said in words.items() if not any(ord(c) > 0x3000 for c in said)] == []


def form_token(client, path="/") -> str:
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def english_sentences() -> list[str]:
    """The catalog's English source strings that a Japanese page must not show: those
    the Japanese differs from, long enough to be words (not `API` or a placeholder)."""
    found = []
    for message in catalog("ja"):
        if not message.id or message.id == message.string:
            continue
        forms = message.id if isinstance(message.id, tuple) else (message.id,)  # plurals
        for form in forms:
            text = re.sub(r"%\(\w+\)s|\{\w+\}", "", form).strip()
            if len(text) >= 4 and re.search(r"[A-Za-z]{3}", text):
                found.append(text)
    return found


def visible_text(html: str) -> str:
    html = re.sub(r"<script\b.*?</script>", " ", html, flags=re.S)
    html = re.sub(r"<style\b.*?</style>", " ", html, flags=re.S)
    html = re.sub(r"<[^>]+>", "\n", html)
    return html.replace("&#39;", "'").replace("&amp;", "&").replace("&quot;", '"')


def english_on(html: str) -> list[str]:
    lines = {line.strip() for line in visible_text(html).splitlines() if line.strip()}
    return sorted({s for s in english_sentences() if s in lines})


@pytest.fixture
def member(client):
    user = make_user(email="reader@example.com")
    sign_in(client, user)
    return user


MAIN_PAGES = ["/", "/search?q=大阪", "/account", "/ads", "/ads/new", "/no-such-page"]


@pytest.mark.parametrize("path", MAIN_PAGES)
def test_main_pages_in_japanese_show_no_english_source_sentence(client, member, path):
    page = client.get(path, headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert english_on(page) == []
    assert '<html lang="ja">' in page


def test_admin_pages_in_japanese_show_no_english_source_sentence(client):
    sign_in(client, make_admin())
    for path in ("/admin", "/admin/ads", "/admin/revenue"):
        page = client.get(path, headers={"Accept-Language": "ja"}).get_data(as_text=True)
        assert english_on(page) == [], path


def test_signed_out_pages_in_japanese_show_no_english_source_sentence(client):
    for path in ("/login", "/logout", "/api/docs"):
        page = client.get(path, headers={"Accept-Language": "ja"}).get_data(as_text=True)
        assert english_on(page) == [], path
        assert '<html lang="ja">' in page, path


def test_the_local_checkout_and_portal_pages_speak_japanese(client):
    """The offline provider's pages stand in for the provider's own, which speak the
    buyer's language: so do these, refusals included."""
    provider = get_provider()
    member = make_user(email="portal-ja@example.com")
    customer = provider.create_customer(
        email=member.email, name="", user_id=member.id, idempotency_key="portal-ja"
    )
    session = provider.create_subscription_checkout(
        customer_id=customer,
        price_id=plan_price_id("plus"),
        reference_id=member.id,
        success_url="http://127.0.0.1/account",
        cancel_url="http://127.0.0.1/account",
        idempotency_key="portal-ja-checkout",
    )
    path = urlsplit(session.url).path
    pages = [client.get(path, headers={"Accept-Language": "ja"}).text]
    refused = client.post(f"{path}/konbini", headers={"Accept-Language": "ja"})
    assert refused.status_code == 409  # konbini pays one-time checkouts only
    pages.append(refused.text)
    provider.complete(session.id)
    portal = urlsplit(
        provider.create_portal_session(customer_id=customer, return_url="http://127.0.0.1/")
    ).path
    pages.append(client.get(portal, headers={"Accept-Language": "ja"}).text)
    assert "毎月 500 クレジット · ¥" in pages[-1]
    for page in pages:
        assert english_on(page) == []


JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e]+")


def japanese_on(html: str) -> list[str]:
    """Japanese words on a page, but the language switcher's own name (日本語)."""
    text = visible_text(html).replace("日本語", "")
    return sorted(set(JAPANESE.findall(text)))


ENGLISH_PAGES = ["/", "/search?q=osaka", "/account", "/ads", "/ads/new", "/no-such-page"]


@pytest.mark.parametrize("path", [*ENGLISH_PAGES, "/login", "/logout", "/api/docs"])
def test_pages_in_english_show_no_japanese_of_ours(client, path):
    """Every sentence is in the catalogs: an English reader sees no Japanese left
    written into a template or a view (the pages here show no videos' own words)."""
    if path not in ("/login", "/logout", "/api/docs"):
        sign_in(client, make_user(email="english@example.com", name="Reader"))
    page = client.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert japanese_on(page) == []
    assert '<html lang="en">' in page


def test_admin_and_payment_pages_in_english_show_no_japanese_of_ours(client):
    sign_in(client, make_admin())
    for path in ("/admin", "/admin/ads", "/admin/revenue", "/admin/report"):
        page = client.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert japanese_on(page) == [], path


def test_english_readers_get_english_and_everyone_else_japanese(client):
    assert "Sign in" in client.get("/", headers={"Accept-Language": "en-US,en;q=0.9"}).text
    assert "ログイン" in client.get("/", headers={"Accept-Language": "fr"}).text
    assert "ログイン" in client.get("/").text
    assert "ログイン" in client.get("/", headers={"Accept-Language": "en;q=0.3,ja"}).text


def test_a_visitor_chooses_a_language_that_outlasts_the_browser_header(client):
    # A signed-out page starts no session, so the visitor's form carries no token.
    answer = client.post("/language", data={"locale": "en", "next": "/search?q=x"})
    assert answer.status_code == 302 and answer.headers["Location"] == "/search?q=x"
    assert "Sign in" in client.get("/", headers={"Accept-Language": "ja"}).text
    assert client.get_cookie("subsearch_session") is None


def test_a_member_language_choice_needs_the_form_token_and_is_kept(client, member):
    assert client.post("/language", data={"locale": "en"}).status_code == 400
    assert User.get_by_id(member.id).locale is None
    token = form_token(client)
    assert client.post("/language", data={"locale": "en", "csrf_token": token}).status_code == 302
    assert User.get_by_id(member.id).locale == "en"


def test_the_language_form_refuses_other_hosts_and_other_languages(client):
    away = client.post("/language", data={"locale": "ja", "next": "//evil.example/"})
    assert away.status_code == 302 and away.headers["Location"] == "/"
    assert client.post("/language", data={"locale": "xx"}).status_code == 400


def test_a_member_language_and_time_zone_are_kept_on_the_account(client, member):
    token = form_token(client, "/account")
    saved = client.post(
        "/account/preferences",
        data={"locale": "en", "time_zone": "Europe/Paris", "csrf_token": token},
    )
    assert saved.status_code == 302
    row = User.get_by_id(member.id)
    assert (row.locale, row.time_zone) == ("en", "Europe/Paris")
    # The confirmation is said in the language just chosen, not the one it replaced.
    assert "Your language and time zone are saved." in client.get("/account").text
    client.delete_cookie("lang")
    assert "Sign out" in client.get("/", headers={"Accept-Language": "ja"}).text
    refused = client.post(
        "/account/preferences", data={"time_zone": "Mars/Olympus", "csrf_token": token}
    )
    assert refused.status_code == 400
    assert User.get_by_id(member.id).time_zone == "Europe/Paris"


@pytest.mark.parametrize(
    ("language", "zone", "expected"),
    [
        ("ja", None, "2026/11/24 09:30"),
        ("en", None, "Nov 24, 2026 00:30"),
        ("ja", "America/New_York", "2026/11/23 19:30"),
    ],
)
def test_times_are_shown_in_the_reader_zone_and_words(app, language, zone, expected):
    user = make_user(email=f"zone-{language}-{zone}@example.com")
    User.update(time_zone=zone).where(User.id == user.id).execute()
    with app.test_request_context("/", headers={"Accept-Language": language}):
        login_user(User.get_by_id(user.id))
        assert i18n.when("2026-11-24T00:30:00.000Z") == expected


def test_prices_countries_and_codes_are_shown_as_people_say_them(app):
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        assert i18n.price(60000, "jpy", "month") == "¥60,000 / 月"
        assert i18n.price(1250, "usd") == "12.50 USD"
        assert i18n.country_name("JP") == "日本"
        assert i18n.country_name("us") == "米国"
        assert i18n.status_label("pending_review") == "審査待ち"
        assert i18n.plan_label("free") == "無料"
        assert i18n.slot_label("search-result-bottom") == "検索結果下部"
        assert i18n.day("2026-11") == "2026年11月"
        assert i18n.field_name("profile.businessAddress") == "所在地"
        # the spec's own labels for its 15 business categories
        labels = {code: i18n.category_label(code) for code in BUSINESS_CATEGORIES}
        assert labels == BUSINESS_CATEGORIES
        assert i18n.field_problem(Problem("too_long", n=80)) == "80 文字以内で入力してください"
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert i18n.price(60000, "jpy", "month") == "¥60,000 / month"
        assert i18n.country_name("JP") == "Japan"
        assert i18n.status_label("pending_review") == "In review"


def test_a_stored_moment_is_shown_as_the_day_it_was_in_the_readers_zone(app):
    # 15:05 UTC on the 29th is 00:05 on the 30th in Japan, still the 29th in UTC
    moment = "2026-11-29T15:05:00.000Z"
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        assert i18n.day(moment) == "2026年11月30日"
        assert i18n.when(moment).startswith("2026/11/30")
        assert i18n.day("2026-11-29") == "2026年11月29日"  # a calendar date stays itself
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert i18n.day(moment) == "November 29, 2026"
