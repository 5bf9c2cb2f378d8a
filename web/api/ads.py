"""Direct ads for advertisers: slots, profiles, image upload, pricing, inventory, purchase."""

from __future__ import annotations

from flask import jsonify, request
from flask_login import current_user

from models.ads import SLOT_IDS, slot_names
from models.ads.images import store_ad_image
from models.ads.inventory import fetch_ad_price, get_occupied_positions, next_position
from models.ads.months import add_months
from models.ads.profiles import create_profile, list_profiles, profile_json, update_profile
from models.ads.reservations import reservation_json, reserve
from models.errors import NotFound, ValidationError
from web.api import accepts_any_body, bp
from web.api.operation import MEMBER, MULTIPART, operation
from web.api.schemas import ads


@bp.get("/ads/slots")
@operation("The ad slots and their positions", responses={200: ads.Slots})
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
@operation("Own advertiser profiles", auth=MEMBER, responses={200: ads.Profiles})
def ad_profiles():
    return jsonify(profiles=[profile_json(p) for p in list_profiles(current_user.id)])


@bp.post("/ads/profiles")
@operation(
    "Add an advertiser profile", auth=MEMBER, body=ads.ProfileBody, responses={201: ads.Profile}
)
def create_ad_profile(body):
    return jsonify(profile_json(create_profile(current_user.id, _camel(body)))), 201


@bp.patch("/ads/profiles/<profile_id>")
@operation(
    "Change an own advertiser profile",
    auth=MEMBER,
    path=ads.ProfilePath,
    body=ads.ProfilePatch,
    responses={200: ads.Profile},
)
def edit_ad_profile(path, body):
    changed = update_profile(current_user.id, path.profile_id, _camel(body))
    return jsonify(profile_json(changed))


def _camel(body) -> dict:
    """The fields the caller sent, by their API names, for the domain's own checks."""
    return body.model_dump(by_alias=True, exclude_unset=True)


@bp.post("/uploads/ad-image")
@operation(
    "Upload an ad image (multipart part `file`, at most 500 KB)",
    auth=MEMBER,
    body_kind=MULTIPART,
    responses={201: ads.UploadedImage},
    errors=(413,),
)
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


def _price_json(price) -> dict:
    return {"currency": price.currency, "unitAmount": price.unit_amount, "priceId": price.id}


@bp.get("/ads/pricing")
@operation(
    "A country's monthly price of one ad position",
    auth=MEMBER,
    query=ads.PricingParams,
    responses={200: ads.Pricing},
    errors=(404, 502, 503),
)
def ad_pricing(query):
    country = query.country
    price = fetch_ad_price(country)
    if price is None:
        raise NotFound(f"Direct ads are not sold in {country}.")
    return jsonify(country=country, **_price_json(price))


@bp.get("/ads/inventory")
@operation(
    "Which positions of a slot are taken over some months, and the price",
    auth=MEMBER,
    query=ads.InventoryParams,
    responses={200: ads.Inventory},
    errors=(502, 503),
)
def ad_inventory(query):
    country = query.country
    end = add_months(query.month, query.months - 1)
    occupied = get_occupied_positions(query.slot, country, query.month, end)
    position = next_position(occupied)
    price = fetch_ad_price(country)
    return jsonify(
        slot=query.slot,
        country=country,
        month=query.month,
        months=query.months,
        occupiedPositions=occupied,
        nextPosition=position,
        full=position is None,
        price=_price_json(price) if price else None,
    )


@bp.post("/ads/reservations")
@operation(
    "Reserve an ad position and open its checkout",
    auth=MEMBER,
    body=ads.ReservationBody,
    responses={201: ads.ReservationCreated},
    errors=(409, 502, 503),
)
def create_reservation(body):
    reservation, checkout_url = reserve(current_user.id, _camel(body))
    return jsonify(reservation=reservation_json(reservation), checkoutUrl=checkout_url), 201
