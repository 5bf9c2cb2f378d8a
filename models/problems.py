"""Why a field is refused, as a code with its values: the API says it in English (a
Problem is that very sentence, as the error body's `fields` carry it), the pages in the
reader's words found by its code (web/i18n.py PROBLEMS). A sentence no page translates
(a date's, a plan's) stays plain text and reads as "please check this value"."""

from __future__ import annotations

# Each code's sentence, with its values in braces ({n}: the number or month it names).
ENGLISH = {
    # any text
    "required": "required",
    "too_long": "at most {n} characters",
    "unknown_field": "not a field of this request",
    "bad_format": "not in the expected format",
    "control_characters": "must not contain control characters",
    "invalid_unicode": "must be valid Unicode text",
    "not_an_email": "not an e-mail address",
    "not_a_choice": "one of {choices}",
    # pydantic's own sentences for the numbers and the consent it checks
    # (web/api/operation.py reads its errors by type)
    "too_small": "Input should be greater than or equal to {n}",
    "too_large": "Input should be less than or equal to {n}",
    "not_an_integer": "Input should be a valid integer",
    "unreadable_integer": "Input should be a valid integer, unable to parse string as an integer",
    "not_true": "Input should be True",
    # countries and months
    "not_a_country": "an ISO 3166-1 alpha-2 country code",
    "not_a_month": "a month as YYYY-MM",
    "too_early": "no earlier than {n}",
    "too_late": "no later than {n}",
    # an ad's image (models/ads/images.py)
    "not_an_image_format": "must be a JPG, PNG or WebP image",
    "unreadable_image": "not a readable image",
    "too_many_pixels": "the image has too many pixels",
    "image_too_small": "at least 640 x 360 px",
    "not_uploaded": "must be an image you uploaded to this service",
    # an ad's landing page (models/ads/creative.py, hosts.py)
    "invalid_url": "not a valid URL",
    "not_http": "must start with http:// or https://",
    "credentials_in_url": "must not contain a user name or password",
    "backslash_in_url": "must not contain a backslash",
    "no_host": "must name a host",
    "local_network": "must not point to a local or private network",
    "not_a_web_address": (
        "an http:// or https:// address with a host, without a user name, password or backslash"
    ),
    # an advertiser's display name (models/ads/creative.py)
    "multiple_lines": "must be a single line",
    "ad_label": "must not contain an ad label such as 広告, AD, PR or Sponsored",
    "affiliation_claim": "must not claim affiliation with the service (公式, 正規代理店)",
    "service_name": "must not contain the service's name",
    # a purchase (models/ads/reservations.py) and its advertiser profile (profiles.py)
    "not_sold_here": "direct ads are not sold in this country",
    "months_out_of_range": "a whole number from 1 to {n}",
    "before_next_month": "no earlier than next month ({n})",
    "too_far_ahead": "within {n} years",
    "no_profile": "choose an advertiser profile or send a new one",
    "not_your_profile": "not one of your advertiser profiles",
    "unconfirmed": "you must confirm that the ad follows the terms",
    "not_a_category": "one of the 15 business categories",
    "not_an_invoice_number": "T followed by 13 digits",
}


class Problem(str):
    """A field's problem: its English sentence (the text itself), with the `code` and
    `params` the pages translate it by. `Problem("too_long", n=30)` is
    "at most 30 characters"."""

    code: str
    params: dict[str, object]

    def __new__(cls, code: str, /, **params: object) -> Problem:
        problem = super().__new__(cls, ENGLISH[code].format(**params))
        problem.code, problem.params = code, params
        return problem

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, object]]:
        # copy and pickle make it again from its code, not from its sentence
        return (self.code,), self.params
