"""Advertiser profiles: a user's business details, several per user, own only."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from models.clock import now_iso
from models.errors import NotFound, ValidationError
from models.problems import Problem
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
# Each column of a profile and its longest value.
LIMITS = {
    "business_legal_name": 200,
    "business_address": 300,
    "contact_name": 100,
    "contact_email": 254,
    "business_category": 40,
    "invoice_registration_number": 14,
}


@dataclass(frozen=True)
class ProfileFields:
    """A whole profile as the advertiser gave it; None or "" for no invoice number."""

    business_legal_name: str
    business_address: str
    contact_name: str
    contact_email: str
    business_category: str
    invoice_registration_number: str | None = None


def is_regulated(category: str) -> bool:
    return category in REGULATED_CATEGORIES


def _problem(column: str, value: str | None) -> Problem | None:
    if column == "invoice_registration_number" and value in (None, ""):
        return None
    if value is None or not value.strip():
        return Problem("required")
    value = value.strip()
    if len(value) > LIMITS[column]:
        return Problem("too_long", n=LIMITS[column])
    if column == "contact_email" and not EMAIL.match(value):
        return Problem("not_an_email")
    if column == "business_category" and value not in BUSINESS_CATEGORIES:
        return Problem("not_a_category")
    if column == "invoice_registration_number" and not INVOICE_NUMBER.match(value):
        return Problem("not_an_invoice_number")
    return None


def profile_problems(values: Mapping[str, str | None], prefix: str = "") -> dict[str, Problem]:
    """Why each of the given columns is refused (docs/ads.md, Direct ads: purchase and
    review), keyed by `prefix` and the column's name."""
    found = {column: _problem(column, value) for column, value in values.items()}
    return {prefix + column: problem for column, problem in found.items() if problem}


def _stored(values: Mapping[str, str | None]) -> dict[str, str | None]:
    """Values as kept: stripped, and an empty invoice number is none."""
    return {column: (value or "").strip() or None for column, value in values.items()}


def new_profile_values(fields: ProfileFields) -> dict[str, str | None]:
    """The columns of a new profile, once checked (the caller raises the problems)."""
    return _stored(asdict(fields))


def create_profile(user_id: str, fields: ProfileFields) -> AdvertiserProfile:
    problems = profile_problems(asdict(fields))
    if problems:
        raise ValidationError(fields=problems)
    return AdvertiserProfile.create(
        id=str(uuid.uuid4()), user=user_id, **new_profile_values(fields)
    )


def own_profile(user_id: str, profile_id: str | None) -> AdvertiserProfile:
    profile = None
    if profile_id is not None:
        profile = AdvertiserProfile.get_or_none(
            (AdvertiserProfile.id == profile_id) & (AdvertiserProfile.user == user_id)
        )
    if profile is None:
        raise NotFound("No advertiser profile of yours has this id.")
    return profile


def update_profile(
    user_id: str, profile_id: str, changes: Mapping[str, str | None]
) -> AdvertiserProfile:
    """Change the given columns of this row only (None clears the invoice number):
    reservations keep the snapshot they were made with."""
    profile = own_profile(user_id, profile_id)
    values = {column: changes[column] for column in LIMITS if column in changes}
    problems = profile_problems(values)
    if problems:
        raise ValidationError(fields=problems)
    if values:
        AdvertiserProfile.update(**_stored(values), updated_at=now_iso()).where(
            AdvertiserProfile.id == profile.id
        ).execute()
    return AdvertiserProfile.get_by_id(profile.id)


def list_profiles(user_id: str) -> list[AdvertiserProfile]:
    return list(
        AdvertiserProfile.select()
        .where(AdvertiserProfile.user == user_id)
        .order_by(AdvertiserProfile.created_at)
    )
