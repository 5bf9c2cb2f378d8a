"""Creative rules: the advertiser display name and the redirect URL (spec, ads table and
Errors 6)."""

from __future__ import annotations

import pytest

from models.ads.creative import advertiser_name_problem, redirect_url_problem

pytestmark = pytest.mark.database_independent

SERVICE_NAMES = ("subsearch",)


def name_problem(name):
    return advertiser_name_problem(name, service_names=SERVICE_NAMES)


# --- display name: required -------------------------------------------------------------


@pytest.mark.parametrize("name", [None, "", " ", "　", "\t", 42, ["山田商店"]])
def test_a_missing_or_blank_name_is_required(name):
    # Given a name that is absent, blank (half- or full-width spaces) or not text
    # When it is checked
    problem = name_problem(name)
    # Then it is refused as missing
    assert problem == "required"


# --- display name: length, in characters -------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "a" * 30,
        "山" * 30,  # 90 bytes in UTF-8: the limit counts characters
        "Ｋ" * 30,  # full-width Latin letters count one each
        "ｶ" * 30,  # half-width katakana
    ],
)
def test_thirty_characters_are_accepted(name):
    assert name_problem(name) is None


@pytest.mark.parametrize("name", ["a" * 31, "山" * 31, "Ｋ" * 31])
def test_thirty_one_characters_are_refused(name):
    assert name_problem(name) == "at most 30 characters"


def test_surrounding_spaces_do_not_count_towards_the_length():
    # Given 30 characters padded with spaces (the stored name is stripped)
    name = "  " + "山" * 30 + "  "
    # Then the name is accepted
    assert name_problem(name) is None


# --- display name: one line ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "山田\n商店",
        "山田\r商店",
        "山田\r\n商店",
        "山田\u2028商店",  # LINE SEPARATOR
        "山田\u2029商店",  # PARAGRAPH SEPARATOR
        "山田\u0085商店",  # NEXT LINE
        "山田\v商店",
        "山田\f商店",
    ],
)
def test_a_line_break_is_refused(name):
    assert name_problem(name) == "must be a single line"


def test_a_trailing_line_break_is_refused_too():
    assert name_problem("山田商店\n") == "must be a single line"


# --- display name: ad labels ---------------------------------------------------------------

AD_LABEL = "must not contain an ad label such as 広告, AD, PR or Sponsored"


@pytest.mark.parametrize(
    "name",
    [
        "広告",
        "山田商店の広告",
        "AD",
        "ＡＤ",  # full-width, folded by NFKC
        "ad",
        "Ad Corp",
        "Best Ads",
        "PR",
        "ｐｒ",
        "ＰＲ会社",
        "スポンサード",
        "ｽﾎﾟﾝｻｰﾄﾞ",  # half-width katakana, folded by NFKC
        "スポンサー募集",
        "Sponsored",
        "SPONSORED",
        "sponsored by x",
        "Promoted",
        "[AD] 山田商店",
        "山田商店(PR)",
    ],
)
def test_an_ad_label_is_refused(name):
    assert name_problem(name) == AD_LABEL


@pytest.mark.parametrize(
    "name",
    [
        "広\u200b告",  # ZERO WIDTH SPACE: shows as 広告
        "A\u200dD",  # ZERO WIDTH JOINER: shows as AD
        "Spon\u00adsored",  # SOFT HYPHEN: shows as Sponsored
        "P\u2060R",  # WORD JOINER: shows as PR
    ],
)
def test_an_ad_label_split_by_an_invisible_character_is_refused(name):
    assert name_problem(name) == AD_LABEL


@pytest.mark.parametrize(
    "name",
    ["ADVANCE", "Adobe", "PRIME", "Sprout", "Madrid", "Spring", "Broad Road", "Upright"],
)
def test_a_word_that_merely_contains_the_letters_is_accepted(name):
    # Given a Latin word with "ad" or "pr" inside it, not standing alone
    # Then it is not an ad label
    assert name_problem(name) is None


# --- display name: affiliation claims ------------------------------------------------------

AFFILIATION = "must not claim affiliation with the service (公式, 正規代理店)"


@pytest.mark.parametrize(
    "name",
    ["公式ショップ", "山田商店 公式", "正規代理店", "公認ストア", "Official Store", "OFFICIAL"],
)
def test_an_affiliation_claim_is_refused(name):
    assert name_problem(name) == AFFILIATION


# --- display name: the service's own name ---------------------------------------------------

SERVICE = "must not contain the service's name"


@pytest.mark.parametrize(
    "name",
    ["subsearch", "SubSearch Japan", "SUBSEARCH", "ｓｕｂｓｅａｒｃｈ", "山田商店 x SubSearch"],
)
def test_the_service_name_is_refused(name):
    assert name_problem(name) == SERVICE


@pytest.mark.parametrize(
    "name",
    [
        "SubsearchJapan",
        "subsearch2027",
        "MySubsearch",
        "ＳＵＢＳＥＡＲＣＨＪＡＰＡＮ",  # full-width, folded by NFKC
        "Subsearchers Club",
        "Sub\u200bsearchJapan",  # ZERO WIDTH SPACE: shows as SubsearchJapan
    ],
)
def test_the_service_name_glued_to_other_words_is_refused(name):
    # Given the service's name with no word boundary around it
    # When it is checked
    problem = name_problem(name)
    # Then it is refused as the service's name, unlike a short ad label inside a word
    assert problem == SERVICE


def test_the_service_name_glued_to_an_affiliation_claim_is_refused():
    # Given the full-width service name glued to 公式 (the claim is checked first)
    assert name_problem("ＳＵＢＳＥＡＲＣＨ公式店") == AFFILIATION


def test_a_blank_service_name_refuses_nothing():
    # Given a service name of spaces only, which would otherwise match any space
    assert advertiser_name_problem("山田 商店", service_names=(" ",)) is None


def test_the_service_name_is_only_refused_when_configured():
    # Given no service names
    # When a name containing "subsearch" is checked
    problem = advertiser_name_problem("SubSearch Japan", service_names=())
    # Then nothing refuses it
    assert problem is None


def test_an_empty_service_name_refuses_nothing():
    assert advertiser_name_problem("山田商店", service_names=("",)) is None


def test_every_configured_service_name_is_refused():
    names = ("subsearch", "サブサーチ")
    assert advertiser_name_problem("サブサーチ商店", service_names=names) == SERVICE


# --- display name: ordinary names ------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "山田商店",
        "Kitchen & Code",
        "株式会社テスト",
        "カフェ・ド・パリ",
        "Tokyo Bakery 2027",
        "Sub Station",  # "sub" alone is not the service name
        "Search Party",
    ],
)
def test_an_ordinary_name_is_accepted(name):
    assert name_problem(name) is None


# --- redirect URL -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com",
        "https://example.com/",
        "https://shop.example.jp/landing?utm_source=subsearch#top",
        "HTTPS://EXAMPLE.COM/path",
        "https://example.com:8443/x",
        "https://xn--wgv71a119e.jp/",
        "http://93.184.216.34/",
        "https://example.jp./",  # a fully qualified name keeps its dot
        "  https://example.com/  ",  # surrounding spaces are stripped before storing
    ],
)
def test_an_http_or_https_url_with_a_host_is_accepted(url):
    assert redirect_url_problem(url) is None


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "ftp://example.com/file",
        "mailto:ads@example.com",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "//example.com/path",  # scheme-relative
        "example.com",
        "/local/path",
    ],
)
def test_another_scheme_is_refused(url):
    assert redirect_url_problem(url) == "must start with http:// or https://"


@pytest.mark.parametrize("url", ["https://", "http:///x", "https:///", "http://:80/"])
def test_a_url_without_a_host_is_refused(url):
    assert redirect_url_problem(url) == "must name a host"


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/a b",
        "https://exa mple.com/",
        "https://example.com/\ttab",
        "https://example.com/\nx",
        "https://example.com/\r\nLocation: https://evil.example/",
        "https://example.com/\x00",
        "https://example.com/\x7f",
        "https://example.com/a\u3000b",  # ideographic space
        "https://[::1/",  # unbalanced IPv6 bracket: urlsplit raises
    ],
)
def test_text_that_is_not_a_url_is_refused(url):
    assert redirect_url_problem(url) == "not a valid URL"


def test_a_url_of_2048_characters_is_accepted():
    base = "https://example.com/"
    url = base + "a" * (2048 - len(base))
    assert len(url) == 2048
    assert redirect_url_problem(url) is None


def test_a_url_over_2048_characters_is_refused():
    base = "https://example.com/"
    url = base + "a" * (2049 - len(base))
    assert redirect_url_problem(url) == "not a valid URL"


@pytest.mark.parametrize("url", [None, "", "   ", 42])
def test_a_missing_url_is_required(url):
    assert redirect_url_problem(url) == "required"


@pytest.mark.parametrize(
    "url",
    [
        "https://user:pw@evil.example/",
        "https://user@evil.example/",
        "https://:pw@evil.example/",
        "https://good.example@evil.example/",  # reads as good.example, goes to evil.example
        "https://good.example%40evil.example@evil.example/",
    ],
)
def test_a_url_with_a_user_name_or_password_is_refused(url):
    assert redirect_url_problem(url) == "must not contain a user name or password"


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example\\@good.example",  # browsers go to evil.example
        "https://good.example\\evil",
        "https://good.example/path\\x",
        "https:\\\\evil.example/",
    ],
)
def test_a_url_with_a_backslash_is_refused(url):
    assert redirect_url_problem(url) == "must not contain a backslash"


def test_an_at_sign_in_the_path_or_the_query_is_no_user_name():
    assert redirect_url_problem("https://example.com/@shop?ref=a@b") is None


# --- redirect URL: nothing on the service's own network (issue 42) ----------------------

LOCAL = "must not point to a local or private network"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:6379/",
        "http://127.1/",
        "http://10.1.2.3/",
        "http://172.31.255.255/",
        "http://192.168.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
        "http://0/",
        "http://100.64.0.1/",
        "http://224.0.0.1/",  # multicast
        "http://255.255.255.255/",
        # decimal, hex and octal forms a browser reads as an IPv4 address
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0X7F000001/",
        "http://0177.0.0.1/",
        "http://0x7f.1/",
        "http://017700000001/",
        "http://127.0.0.1./",
        "http://%31%32%37.0.0.1/",
        "http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/",
        "http://127\u30020\u30020\u30021/",
        # IPv6, and IPv4 inside IPv6
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://[::]/",
        "http://[fd00::1]/",
        "http://[fd00:ec2::254]/",
        "http://[fe80::1%25eth0]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[::127.0.0.1]/",
        "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
        # names of the local network
        "http://localhost/",
        "http://localhost./",
        "http://LocalHost:8000/",
        "http://redis:6379/",
        "http://intranet/",
        "http://app.localhost/",
        "http://app.localhost./",
        "http://metadata.google.internal/",
        "http://METADATA.GOOGLE.INTERNAL./",
        "http://printer.local/",
        "http://router.home.arpa/",
        "http://host.localdomain/",
        "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/",  # fullwidth
    ],
)
def test_a_landing_page_on_a_local_or_private_network_is_refused(url):
    assert redirect_url_problem(url) == LOCAL


@pytest.mark.parametrize(
    "url",
    [
        "http://1.2.3.4.5/",  # five numbers: a browser refuses it
        "http://256.0.0.1/",
        "http://0x100000000/",
        "http://example.1/",  # a name ending in a number is read as an address
        "http://09.0.0.1/",  # not octal
        "http://%zz.example/",
        "http://[::ffff:1.2.3]/",
    ],
)
def test_a_host_a_browser_could_not_read_is_refused(url):
    assert redirect_url_problem(url) == "not a valid URL"


@pytest.mark.parametrize(
    "url",
    [
        "http://1.1.1.1/",
        "http://16843009/",  # 1.1.1.1 as one number: public, so accepted as sent
        "http://[2606:4700:4700::1111]/",
        "http://[::ffff:1.1.1.1]/",
        "https://localhost.example.jp/",
        "https://local.example/",
        "https://internal.example.com/",
    ],
)
def test_a_public_address_or_name_is_accepted(url):
    assert redirect_url_problem(url) is None
