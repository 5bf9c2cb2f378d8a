"""Users and sign-in: creating a user with its referral code, linking identities,
and the server-side sessions behind the signed cookie."""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta

from peewee import IntegrityError

from models.clock import iso, now_iso, now_ms, utcnow
from models.db import db
from models.errors import NotFound, SignInFailed
from models.settings import get_settings
from models.tables import Account, Session, User

log = logging.getLogger(__name__)

# Codes are read aloud and typed from a screen: capitals and digits without the ones
# people confuse (0/O, 1/I/L), and no lower case (l/I). Still within the spec's
# A-Za-z0-9_-, so codes drawn before (from all 64 symbols) keep working unchanged.
REFERRAL_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
REFERRAL_CODE_LENGTH = 8
REFERRAL_CODE_RETRIES = 3


def new_referral_code() -> str:
    return "".join(secrets.choice(REFERRAL_CODE_ALPHABET) for _ in range(REFERRAL_CODE_LENGTH))


def normalize_email(email: str) -> str:
    return email.strip().lower()


def _is_referral_code_collision(error: IntegrityError) -> bool:
    return "referral_code" in str(error)


def create_user(*, email: str, name: str, image: str | None = None, verified: bool = False) -> User:
    """Insert a user with a fresh referral code, drawing again on a collision (3 retries)."""
    for attempt in range(1 + REFERRAL_CODE_RETRIES):
        try:
            with db.atomic():
                return User.create(
                    id=str(uuid.uuid4()),
                    email=normalize_email(email),
                    name=name.strip() or normalize_email(email).split("@")[0],
                    image=image,
                    email_verified=verified,
                    referral_code=new_referral_code(),
                )
        except IntegrityError as error:
            if not _is_referral_code_collision(error) or attempt == REFERRAL_CODE_RETRIES:
                raise
            log.warning("referral code collision, drawing again (attempt %d)", attempt + 1)
    raise AssertionError("unreachable")


# Why a sign-in is refused (the pages say these in the reader's words: web/auth.py).
NO_EMAIL_SHARED = "The identity provider did not share an e-mail address."
EMAIL_TAKEN = "An account with this e-mail exists; sign in with the method used before."


def sign_in_with_identity(issuer: str, subject: str, claims: Mapping[str, object]) -> User:
    """The user linked to (issuer, subject); on first sign-in the user is created from claims.

    An existing user with the same e-mail is linked only when the provider says the
    address is verified, so an unverified address cannot take over an account.
    """
    account = Account.get_or_none(issuer=issuer, subject=subject)
    if account is not None:
        return User.get_by_id(account.user_id)

    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email:
        raise SignInFailed(NO_EMAIL_SHARED)
    verified = bool(claims.get("email_verified"))
    name = claims.get("name") or claims.get("preferred_username") or ""
    picture = claims.get("picture")
    image = picture if isinstance(picture, str) else None

    try:
        with db.atomic():
            user = User.get_or_none(User.email == normalize_email(email))
            if user is None:
                user = create_user(email=email, name=str(name), image=image, verified=verified)
            elif not verified:
                raise SignInFailed(EMAIL_TAKEN)
            Account.create(id=str(uuid.uuid4()), user=user, issuer=issuer, subject=subject)
            return user
    except IntegrityError:
        # A concurrent first sign-in of the same identity won; use its link.
        account = Account.get_or_none(issuer=issuer, subject=subject)
        if account is None:
            raise
        return User.get_by_id(account.user_id)


def dev_sign_in(email: str, name: str) -> User:
    """Development and test only: the user with this e-mail, created when missing."""
    user = User.get_or_none(User.email == normalize_email(email))
    if user is not None:
        return user
    try:
        return create_user(email=email, name=name, verified=True)
    except IntegrityError:
        return User.get(User.email == normalize_email(email))


def promote(email: str) -> User:
    changed = User.update(role="admin").where(User.email == normalize_email(email)).execute()
    if not changed:
        raise NotFound(f"No user has the e-mail {email}.")
    return User.get(User.email == normalize_email(email))


def _token_id(token: str) -> str:
    # Only a hash is stored, so a leaked table does not hand out live sessions.
    return hashlib.sha256(token.encode()).hexdigest()


def open_session(
    user: User, *, ip_address: str | None = None, user_agent: str | None = None
) -> str:
    token = secrets.token_urlsafe(32)
    Session.create(
        id=_token_id(token),
        user=user,
        expires_at=iso(utcnow() + timedelta(days=get_settings().session_days)),
        ip_address=ip_address,
        user_agent=(user_agent or "")[:500] or None,
    )
    user.session_token = token
    return token


def user_for_session(token: str | None) -> User | None:
    if not token:
        return None
    user: User | None = (
        User.select()
        .join(Session)
        .where(
            (Session.id == _token_id(token))
            & Session.revoked_at.is_null()
            & (Session.expires_at > now_iso())
        )
        .first()
    )
    if user is not None:
        user.session_token = token
    return user


def revoke_session(token: str | None) -> None:
    if token:
        Session.update(revoked_at=now_iso(), updated_at=now_iso()).where(
            (Session.id == _token_id(token)) & Session.revoked_at.is_null()
        ).execute()


def revoke_all_sessions(user_id: str) -> int:
    revoked: int = (
        Session.update(revoked_at=now_iso(), updated_at=now_iso())
        .where((Session.user == user_id) & Session.revoked_at.is_null())
        .execute()
    )
    return revoked


# Revoked sessions are kept a day so a support question about a sign-out can be answered.
REVOKED_SESSION_KEEP = timedelta(days=1)


def purge_expired_sessions(now: datetime | None = None) -> int:
    """Delete sessions past their expiry, and those revoked over REVOKED_SESSION_KEEP
    ago; returns how many. Safe to run at any time: a rerun finds nothing new."""
    now = now or utcnow()
    purged: int = (
        Session.delete()
        .where(
            (Session.expires_at <= iso(now))
            | (Session.revoked_at <= iso(now - REVOKED_SESSION_KEEP))
        )
        .execute()
    )
    return purged


def set_reading_preferences(user_id: str, *, locale: str | None, time_zone: str | None) -> None:
    """The user's language and time zone (None: follow the browser). The caller checks
    the values against the locales and zones it offers."""
    User.update(locale=locale, time_zone=time_zone, updated_at=now_ms()).where(
        User.id == user_id
    ).execute()
