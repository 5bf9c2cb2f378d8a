"""Advertiser profiles: a user's business details, several per user, own only."""

from __future__ import annotations

import re
import uuid

from models.clock import now_iso
from models.errors import NotFound, ValidationError
from models.tables import AdvertiserProfile

# Stored identifiers of the spec's 15 business categories, with their labels.
BUSINESS_CATEGORIES = {
    "it_saas": "IT/SaaS",
    "ec_retail": "EC・物販",
    "beauty_cosmetics": "美容・化粧品",
    "food_beverage": "飲食・食品",
    "media": "メディア",
    "entertainment_games": "エンタメ・ゲーム",
    "education": "教育",
    "hr_recruiting": "人材・求人",
    "automotive": "自動車",
    "real_estate": "不動産",
    "travel_tourism": "旅行・観光",
    "medical_healthcare": "医療・ヘルスケア",
    "finance": "金融",
    "gambling_gaming": "ギャンブル・ゲーミング",
    "other": "その他",
}
# May be asked for permit documents.
REGULATED_CATEGORIES = (
    "beauty_cosmetics",
    "food_beverage",
    "medical_healthcare",
    "finance",
    "gambling_gaming",
)
INVOICE_NUMBER = re.compile(r"^T[0-9]{13}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
FIELDS = {
    "businessLegalName": ("business_legal_name", 200),
    "businessAddress": ("business_address", 300),
    "contactName": ("contact_name", 100),
    "contactEmail": ("contact_email", 254),
    "businessCategory": ("business_category", 40),
    "invoiceRegistrationNumber": ("invoice_registration_number", 14),
}


def clean_profile(data, *, partial=False, prefix="") -> tuple[dict, dict]:
    """(column values, field errors) of a profile body in camelCase. With `partial`,
    absent fields are left out instead of required."""
    if not isinstance(data, dict):
        return {}, {prefix.rstrip(".") or "profile": "must be an object"}
    values, errors = {}, {}
    for field, (column, limit) in FIELDS.items():
        if field not in data:
            if not partial and field != "invoiceRegistrationNumber":
                errors[prefix + field] = "required"
            continue
        raw = data[field]
        if field == "invoiceRegistrationNumber" and raw in (None, ""):
            values[column] = None
            continue
        if not isinstance(raw, str) or not raw.strip():
            errors[prefix + field] = "required"
            continue
        value = raw.strip()
        if len(value) > limit:
            errors[prefix + field] = f"at most {limit} characters"
        elif field == "contactEmail" and not EMAIL.match(value):
            errors[prefix + field] = "not an e-mail address"
        elif field == "businessCategory" and value not in BUSINESS_CATEGORIES:
            errors[prefix + field] = "one of the 15 business categories"
        elif field == "invoiceRegistrationNumber" and not INVOICE_NUMBER.match(value):
            errors[prefix + field] = "T followed by 13 digits"
        else:
            values[column] = value
    return values, errors


def create_profile(user_id: str, data) -> AdvertiserProfile:
    values, errors = clean_profile(data)
    if errors:
        raise ValidationError(fields=errors)
    return AdvertiserProfile.create(id=str(uuid.uuid4()), user=user_id, **values)


def own_profile(user_id: str, profile_id) -> AdvertiserProfile:
    profile = None
    if isinstance(profile_id, str):
        profile = AdvertiserProfile.get_or_none(
            (AdvertiserProfile.id == profile_id) & (AdvertiserProfile.user == user_id)
        )
    if profile is None:
        raise NotFound("No advertiser profile of yours has this id.")
    return profile


def update_profile(user_id: str, profile_id: str, data) -> AdvertiserProfile:
    """Edit this row only: reservations keep the snapshot they were made with."""
    profile = own_profile(user_id, profile_id)
    values, errors = clean_profile(data, partial=True)
    if errors:
        raise ValidationError(fields=errors)
    if values:
        AdvertiserProfile.update(**values, updated_at=now_iso()).where(
            AdvertiserProfile.id == profile.id
        ).execute()
    return AdvertiserProfile.get_by_id(profile.id)


def list_profiles(user_id: str) -> list[AdvertiserProfile]:
    return list(
        AdvertiserProfile.select()
        .where(AdvertiserProfile.user == user_id)
        .order_by(AdvertiserProfile.created_at)
    )


def profile_json(profile: AdvertiserProfile) -> dict:
    return {
        "id": profile.id,
        "businessLegalName": profile.business_legal_name,
        "businessAddress": profile.business_address,
        "contactName": profile.contact_name,
        "contactEmail": profile.contact_email,
        "businessCategory": profile.business_category,
        "invoiceRegistrationNumber": profile.invoice_registration_number,
        "regulated": profile.business_category in REGULATED_CATEGORIES,
        "createdAt": profile.created_at,
        "updatedAt": profile.updated_at,
    }
