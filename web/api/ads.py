"""Direct ads for advertisers: slots, profiles, image upload, pricing, inventory, purchase."""

from __future__ import annotations

from flask import jsonify, request
from werkzeug.wrappers import Response as HttpResponse

from models.ads import slot_names
from models.ads.images import store_ad_image
from models.ads.inventory import availability, fetch_ad_price
from models.ads.profiles import create_profile, list_profiles, update_profile
from models.ads.reservations import reserve
from models.errors import NotFound, ValidationError
from web.api.blueprint import accepts_any_body, bp
from web.api.operation import MEMBER, MULTIPART, operation
from web.api.schemas import ads
from web.api.schemas.common import api_field_names
from web.urls import AD_PAGES
from web.visitor import member


@bp.get("/ads/slots")
@operation("The ad slots and their positions", responses={200: ads.Slots})
def ad_slots() -> HttpResponse:
    return jsonify(ads.Slots.of(slot_names()).as_json())


@bp.get("/ads/profiles")
@operation("Own advertiser profiles", auth=MEMBER, responses={200: ads.Profiles})
def ad_profiles() -> HttpResponse:
    profiles = [ads.Profile.of(p) for p in list_profiles(member().id)]
    return jsonify(ads.Profiles(profiles=profiles).as_json())


@bp.post("/ads/profiles")
@operation(
    "Add an advertiser profile", auth=MEMBER, body=ads.ProfileBody, responses={201: ads.Profile}
)
def create_ad_profile(body: ads.ProfileBody) -> tuple[HttpResponse, int]:
    with api_field_names():
        created = create_profile(member().id, body.fields())
    return jsonify(ads.Profile.of(created).as_json()), 201


@bp.patch("/ads/profiles/<profile_id>")
@operation(
    "Change an own advertiser profile",
    auth=MEMBER,
    path=ads.ProfilePath,
    body=ads.ProfilePatch,
    responses={200: ads.Profile},
)
def edit_ad_profile(path: ads.ProfilePath, body: ads.ProfilePatch) -> HttpResponse:
    with api_field_names():
        changed = update_profile(member().id, path.profile_id, body.changes())
    return jsonify(ads.Profile.of(changed).as_json())


@bp.post("/uploads/ad-image")
@operation(
    "Upload an ad image (multipart part `file`, at most 500 KB and 4096 px a side)",
    auth=MEMBER,
    body_kind=MULTIPART,
    responses={201: ads.UploadedImage},
    errors=(413,),
)
def upload_ad_image() -> tuple[HttpResponse, int]:
    upload = request.files.get("file")
    if upload is None:
        raise ValidationError(fields={"file": "send the image as the multipart part 'file'"})
    stored = store_ad_image(member().id, upload.read())
    return jsonify(ads.UploadedImage.of(stored).as_json()), 201


accepts_any_body("api.upload_ad_image")


@bp.get("/ads/pricing")
@operation(
    "A country's monthly price of one ad position",
    auth=MEMBER,
    query=ads.PricingParams,
    responses={200: ads.Pricing},
    errors=(404, 502, 503),
)
def ad_pricing(query: ads.PricingParams) -> HttpResponse:
    price = fetch_ad_price(query.country)
    if price is None:
        raise NotFound(f"Direct ads are not sold in {query.country}.")
    return jsonify(ads.Pricing.of(query.country, price).as_json())


@bp.get("/ads/inventory")
@operation(
    "Which positions of a slot are taken over some months, and the price",
    auth=MEMBER,
    query=ads.InventoryParams,
    responses={200: ads.Inventory},
    errors=(502, 503),
)
def ad_inventory(query: ads.InventoryParams) -> HttpResponse:
    found = availability(query.slot, query.country, query.month, query.months)
    return jsonify(ads.Inventory.of(query, found).as_json())


@bp.post("/ads/reservations")
@operation(
    "Reserve an ad position and open its checkout",
    auth=MEMBER,
    body=ads.ReservationBody,
    responses={201: ads.ReservationCreated},
    errors=(409, 502, 503),
    error_descriptions={
        409: "`slot_full`: no position is free in every month of the period;"
        " `too_many_unpaid_holds`: the member already holds AD_UNPAID_HOLDS_PER_MEMBER"
        " (default 2) reservations unpaid; pay one or wait until its checkout expires",
    },
)
def create_reservation(body: ads.ReservationBody) -> tuple[HttpResponse, int]:
    with api_field_names():
        placed = reserve(member().id, body.order(), AD_PAGES)
    return jsonify(ads.ReservationCreated.of(placed).as_json()), 201
