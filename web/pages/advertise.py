"""The public pages for advertisers: what one can buy and at what price (/advertise),
and the advertising terms the purchase form's consent cites (/terms); and the words
and prices of the house cards that fill unsold positions (templates/ads/_slot.html)."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Flask, render_template, url_for

from models.ads import MAX_MONTHS, POSITIONS, SLOT_IDS
from models.ads import images as ad_images
from models.ads.creative import MAX_NAME_LENGTH
from models.ads.delivery import MIDROLL_EVERY_HITS, PAGE_LIMIT
from models.ads.house import house_cards
from models.ads.price_list import ad_price, ad_prices
from models.countries import usable_country
from models.payments import Price
from models.settings import get_settings
from web.translation import lazy_gettext
from web.visitor import viewer, visitor_country

bp = Blueprint("advertise", __name__)

# Where each slot appears, as the page for advertisers says it beside its picture.
SLOT_PLACES = {
    "search-result-midroll": lazy_gettext(
        "Between the results of a search, after every %(n)s videos.", n=MIDROLL_EVERY_HITS
    ),
    "search-result-bottom": lazy_gettext("Below the last result of a search, above the pages."),
    "video-detail-below-player": lazy_gettext(
        "On a video's page, right below the player, where the video is watched."
    ),
    "video-detail-below-subtitle": lazy_gettext(
        "On a video's page, below the subtitles people read and search."
    ),
}


def _purchase_link() -> str:
    """Members go straight to the purchase form; visitors sign in first and come back."""
    form = url_for("pages.new_ad")
    if viewer() is not None:
        return form
    return url_for("auth.login", next=form)


@bp.get("/advertise")
def advertise() -> str:
    return render_template(
        "advertise.html",
        slots=[(slot, SLOT_PLACES[slot]) for slot in SLOT_IDS],
        prices=ad_prices(),
        positions=len(POSITIONS),
        max_months=MAX_MONTHS,
        page_limit=PAGE_LIMIT,
        purchase_link=_purchase_link(),
        max_name_length=MAX_NAME_LENGTH,
    )


@bp.get("/terms")
def terms() -> str:
    settings = get_settings()
    return render_template(
        "terms.html",
        service_name=settings.service_name,
        support_email=settings.support_email,
        max_name_length=MAX_NAME_LENGTH,
        images=ad_images,
    )


@bp.app_template_global()
def house_card_kinds(slot_id: str) -> list[str]:
    """What each position of an unsold slot says (models.ads.house)."""
    return house_cards(slot_id)


@dataclass(frozen=True)
class HouseOffer:
    """What the house cards say of the offer: the price per slot-month in the reader's
    country (where the card is shown, so where an ad in its place would be bought; None
    when that country is not sold), how many slots, and the longest purchase."""

    price: Price | None
    slots: int = len(SLOT_IDS)
    max_months: int = MAX_MONTHS


@bp.app_template_global()
def house_offer() -> HouseOffer:
    return HouseOffer(ad_price(usable_country(visitor_country())))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
