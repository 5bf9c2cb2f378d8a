"""Direct ads for advertisers: slots, profiles, image upload, pricing, inventory, purchase."""

from __future__ import annotations

from flask import jsonify, request
from flask_login import current_user, login_required

from models.ads import SLOT_IDS, slot_names
from models.ads.images import store_ad_image
from models.ads.inventory import fetch_ad_price, get_occupied_positions, next_position
from models.ads.months import add_months, is_month
from models.ads.profiles import create_profile, list_profiles, profile_json, update_profile
from models.ads.reservations import reservation_json, reserve
from models.countries import usable_country
from models.errors import NotFound, ValidationError
from web.api import accepts_any_body, bp
from web.body import json_object


@bp.get("/ads/slots")
def ad_slots():
    names = slot_names()
    return jsonify(
        slots=[
            {
                "id": slot,
                "page": "/search" if slot.startswith("search") else "/videos/[videoId]",
                "displayName": names.get(slot, slot),
                "positions": 4,
            }
            for slot in SLOT_IDS
        ]
    )


@bp.get("/ads/profiles")
@login_required
def ad_profiles():
    return jsonify(profiles=[profile_json(p) for p in list_profiles(current_user.id)])


@bp.post("/ads/profiles")
@login_required
def create_ad_profile():
    return jsonify(profile_json(create_profile(current_user.id, json_object()))), 201


@bp.patch("/ads/profiles/<profile_id>")
@login_required
def edit_ad_profile(profile_id):
    return jsonify(profile_json(update_profile(current_user.id, profile_id, json_object())))


@bp.post("/uploads/ad-image")
@login_required
def upload_ad_image():
    upload = request.files.get("file")
    if upload is None:
        raise ValidationError(fields={"file": "send the image as the multipart part 'file'"})
    stored = store_ad_image(current_user.id, upload.read())
    return jsonify(
        url=stored.url,
        width=stored.width,
        height=stored.height,
        format=stored.format,
        bytes=stored.bytes,
        recommendations=stored.recommendations,
    ), 201


accepts_any_body("api.upload_ad_image")


def _country() -> str:
    raw = request.args.get("country")
    code = usable_country(raw)
    if code is None:
        raise ValidationError(fields={"country": "an ISO 3166-1 alpha-2 country code"})
    return code


def _price_json(price) -> dict:
    return {"currency": price.currency, "unitAmount": price.unit_amount, "priceId": price.id}


@bp.get("/ads/pricing")
@login_required
def ad_pricing():
    country = _country()
    price = fetch_ad_price(country)
    if price is None:
        raise NotFound(f"Direct ads are not sold in {country}.")
    return jsonify(country=country, **_price_json(price))


@bp.get("/ads/inventory")
@login_required
def ad_inventory():
    args = request.args
    errors = {}
    slot = args.get("slot")
    if slot not in SLOT_IDS:
        errors["slot"] = f"one of {', '.join(SLOT_IDS)}"
    country = usable_country(args.get("country"))
    if country is None:
        errors["country"] = "an ISO 3166-1 alpha-2 country code"
    month = args.get("month")
    if not is_month(month):
        errors["month"] = "a month as YYYY-MM"
    raw_months = args.get("months", "1")
    months = int(raw_months) if raw_months.isdigit() else 0
    if not 1 <= months <= 12:
        errors["months"] = "a whole number from 1 to 12"
    if errors:
        raise ValidationError(fields=errors)
    occupied = get_occupied_positions(slot, country, month, add_months(month, months - 1))
    position = next_position(occupied)
    price = fetch_ad_price(country)
    return jsonify(
        slot=slot,
        country=country,
        month=month,
        months=months,
        occupiedPositions=occupied,
        nextPosition=position,
        full=position is None,
        price=_price_json(price) if price else None,
    )


@bp.post("/ads/reservations")
@login_required
def create_reservation():
    reservation, checkout_url = reserve(current_user.id, json_object())
    return jsonify(reservation=reservation_json(reservation), checkoutUrl=checkout_url), 201
