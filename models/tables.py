"""Peewee models over the tables that the migrations create (names as in the spec).

The schema itself lives in `models/migrations/`; these classes only read and
write it. Timestamps are ISO 8601 UTC text, except `users` (Unix milliseconds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from peewee import (
    AutoField,
    BigIntegerField,
    BlobField,
    CompositeKey,
    Field,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from models.clock import now_iso, now_ms
from models.db import db


class BaseModel(Model):
    """Each foreign key `x` also reads as `x_id`, the bare id, without a query: those
    accessors are declared (`x_id: ClassVar[Field[...]]`) for the type checker only."""

    class Meta:
        database = db
        legacy_table_names = False


# peewee's fields are generic (in the value they hold) only to the type checker.
if TYPE_CHECKING:
    _FlagField = IntegerField[bool]
else:
    _FlagField = IntegerField


class IntBooleanField(_FlagField):
    """A flag stored as INTEGER 0/1, as the spec types it, on both databases."""

    def db_value(self, value: object) -> int | None:
        return None if value is None else int(bool(value))

    def python_value(self, value: object) -> bool | None:
        return None if value is None else bool(value)


def created() -> TextField[str]:
    return TextField(default=now_iso)


class User(BaseModel):
    id = TextField(primary_key=True)
    name = TextField()
    email = TextField(unique=True)
    email_verified = IntBooleanField(default=False)
    image = TextField(null=True)
    role = TextField(default="member")
    payment_customer_id = TextField(null=True)
    credit_balance = IntegerField(default=50)
    bonus_credit = IntegerField(default=0)
    referral_code = TextField(null=True, unique=True)
    referred_by: ForeignKeyField[User | None] = ForeignKeyField(
        "self", null=True, column_name="referred_by", on_delete="SET NULL", backref="referrals"
    )
    referred_by_id: ClassVar[Field[str | None]]
    referral_rewarded_at = TextField(null=True)
    country = TextField(null=True)
    locale = TextField(null=True)
    time_zone = TextField(null=True)
    created_at = BigIntegerField(default=now_ms)
    updated_at = BigIntegerField(default=now_ms)

    class Meta:
        table_name = "users"

    # flask-login: the id it keeps in the signed cookie is the server-side
    # session's token, so revoking the session row signs the browser out.
    session_token: str | None = None
    is_active = True
    is_anonymous = False

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def get_id(self) -> str | None:
        return self.session_token


class Account(BaseModel):
    id = TextField(primary_key=True)
    user = ForeignKeyField(User, column_name="user_id", on_delete="CASCADE")
    user_id: ClassVar[Field[str]]
    issuer = TextField()
    subject = TextField()
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "accounts"


class Session(BaseModel):
    id = TextField(primary_key=True)
    user = ForeignKeyField(User, column_name="user_id", on_delete="CASCADE")
    user_id: ClassVar[Field[str]]
    expires_at = TextField()
    revoked_at = TextField(null=True)
    ip_address = TextField(null=True)
    user_agent = TextField(null=True)
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "sessions"


class Verification(BaseModel):
    id = TextField(primary_key=True)
    identifier = TextField(unique=True)
    value = TextField()
    expires_at = TextField()
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "verifications"


# A video or channel in these states (subtitle_status) is listed by no search or page.
HIDDEN_STATUSES = ("deleted", "opted_out")


class Channel(BaseModel):
    id = TextField(primary_key=True)
    title = TextField()
    handle = TextField(null=True)
    thumbnail_url = TextField(null=True)
    subtitle_status = TextField(default="pending")
    video_count = IntegerField(default=0)
    country = TextField(null=True)
    subscriber_count = BigIntegerField(null=True)
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "channels"


class Video(BaseModel):
    id = TextField(primary_key=True)
    channel = ForeignKeyField(Channel, column_name="channel_id", backref="videos")
    channel_id: ClassVar[Field[str]]
    title = TextField()
    thumbnail_url = TextField(null=True)
    duration_seconds = IntegerField()
    view_count = BigIntegerField(null=True)
    like_count = BigIntegerField(null=True)
    published_at = TextField()
    category_id = TextField(null=True)
    # Kept so the index is rebuilt without the platform; null for videos imported before
    # it was kept, until the backfill fetches them again.
    description = TextField(null=True)
    subtitle_status = TextField(default="pending")
    subtitle_type = TextField(null=True)
    # Failed fetches in a row, and when the scheduler fetches again (docs/search.md,
    # Failed fetches heal); null when no retry is due.
    fetch_attempts = IntegerField(default=0)
    next_fetch_at = TextField(null=True)
    # How its last subtitle fetch failed (models.platform.base.FAILURE_KINDS) and when;
    # kept after a later success, null when none ever failed.
    last_failure_kind = TextField(null=True)
    last_failure_at = TextField(null=True)
    created_at = created()
    updated_at = created()
    # When the video first reached the search index (set once): alerts made before it
    # hear of it, alerts made after do not (models/alert_matching.py).
    first_indexed_at = TextField(null=True)

    class Meta:
        table_name = "videos"


class UserVideoAccess(BaseModel):
    user = ForeignKeyField(User, column_name="user_id")
    user_id: ClassVar[Field[str]]
    video = ForeignKeyField(Video, column_name="video_id")
    video_id: ClassVar[Field[str]]
    credits = IntegerField()
    created_at = created()
    updated_at = created()
    expires_at = TextField()

    class Meta:
        table_name = "user_video_access"
        primary_key = CompositeKey("user", "video")


class Subscription(BaseModel):
    id = TextField(primary_key=True)
    plan = TextField()
    reference_id = TextField()
    payment_customer_id = TextField(null=True)
    payment_subscription_id = TextField(null=True, unique=True)
    status = TextField(default="incomplete")
    period_start = BigIntegerField(null=True)
    period_end = BigIntegerField(null=True)
    trial_start = BigIntegerField(null=True)
    trial_end = BigIntegerField(null=True)
    cancel_at_period_end = IntBooleanField(default=False)
    cancel_at = BigIntegerField(null=True)
    canceled_at = BigIntegerField(null=True)
    ended_at = BigIntegerField(null=True)
    seats = IntegerField(null=True)
    billing_interval = TextField(null=True)
    payment_schedule_id = TextField(null=True)

    class Meta:
        table_name = "subscriptions"


class PaymentEvent(BaseModel):
    """A verified webhook event: its id dedupes redeliveries, its payload waits here
    until `processed_at` is set by the transaction that applies it (an outbox)."""

    id = TextField()
    endpoint = TextField()
    type = TextField()
    created_at = created()
    payload = TextField(null=True)
    processed_at = TextField(null=True)
    sent_at = TextField(null=True)
    send_count = IntegerField(default=0)

    class Meta:
        table_name = "payment_events"
        primary_key = CompositeKey("id", "endpoint")


class FavoriteChannel(BaseModel):
    user = ForeignKeyField(User, column_name="user_id", on_delete="CASCADE")
    user_id: ClassVar[Field[str]]
    channel = ForeignKeyField(Channel, column_name="channel_id")
    channel_id: ClassVar[Field[str]]
    created_at = created()

    class Meta:
        table_name = "favorite_channels"
        primary_key = CompositeKey("user", "channel")


DEFAULT_SEMANTIC_RATIO = 0.5
DEFAULT_TARGET = "description,subtitle,title"


class SearchHistory(BaseModel):
    id = AutoField()
    user = ForeignKeyField(User, column_name="user_id", on_delete="CASCADE")
    user_id: ClassVar[Field[str]]
    query = TextField()
    channels = TextField(default="")
    target = TextField(default=DEFAULT_TARGET)
    sort = TextField(default="relevance")
    semantic = IntegerField(default=0)
    sr = FloatField(default=DEFAULT_SEMANTIC_RATIO)
    searched_at = TextField(default=now_iso)
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "search_histories"


class AdSlot(BaseModel):
    id = TextField(primary_key=True)
    display_name = TextField()
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "ad_slots"


class BusinessDetails(BaseModel):
    """The advertiser's business data: a profile's own, or a reservation's snapshot of it."""

    business_legal_name = TextField()
    business_address = TextField()
    contact_name = TextField()
    contact_email = TextField()
    business_category = TextField()
    invoice_registration_number = TextField(null=True)


class AdvertiserProfile(BusinessDetails):
    id = TextField(primary_key=True)
    user = ForeignKeyField(User, column_name="user_id")
    user_id: ClassVar[Field[str]]
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "advertiser_profiles"


class AdReservation(BusinessDetails):
    id = TextField(primary_key=True)
    user = ForeignKeyField(User, column_name="user_id")
    user_id: ClassVar[Field[str]]
    slot = ForeignKeyField(AdSlot, column_name="slot_id")
    slot_id: ClassVar[Field[str]]
    position = IntegerField()
    country = TextField()
    start_month = TextField()
    end_month = TextField()
    advertiser_name = TextField()
    image_url = TextField()
    redirect_url = TextField()
    advertiser_profile = ForeignKeyField(AdvertiserProfile, column_name="advertiser_profile_id")
    advertiser_profile_id: ClassVar[Field[str]]
    status = TextField(default="pending_review")
    stopped_at = TextField(null=True)
    stopped_reason = TextField(null=True)
    payment_intent_id = TextField(null=True)
    # A rejected unpaid reservation gives its position back (set when it was stopped).
    position_released_at = TextField(null=True)
    # A payment that arrived after the reservation was stopped: to be refunded.
    paid_after_stop_at = TextField(null=True)
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "ad_reservations"


class AdStopNotice(BaseModel):
    """The stop notice as generated when the reservation was stopped, kept to open again."""

    ad_reservation = ForeignKeyField(
        AdReservation, column_name="ad_reservation_id", primary_key=True
    )
    ad_reservation_id: ClassVar[Field[str]]
    recipient = TextField()
    subject = TextField()
    body = TextField()
    created_at = created()

    class Meta:
        table_name = "ad_stop_notices"


class AdClickLog(BaseModel):
    id = TextField(primary_key=True)
    ad_reservation = ForeignKeyField(AdReservation, column_name="ad_reservation_id")
    ad_reservation_id: ClassVar[Field[str]]
    country = TextField()
    user_agent = TextField(null=True)
    created_at = created()
    # The verified view token of the render the click came from; null when the click
    # URL carried none (not from an ad this service served).
    view_token = TextField(null=True)
    # A bot's click: kept in the log, left out of clicks and CTR in reports.
    is_bot = IntBooleanField(default=False)
    # A human click whose view token an earlier human click already carried: kept in the
    # log, left out of clicks and CTR in reports (a token counts once).
    is_repeat = IntBooleanField(default=False)
    # Why the click's view token does not count it (models/ads/counting.py's
    # INVALID_REASONS: missing, bad, expired, or unverified from before the reason was
    # kept); null for a valid one. A human's invalid click is logged, left out of clicks
    # and CTR, and shown apart in the admin report (a bot's is counted as a bot's).
    invalid_reason = TextField(null=True)

    class Meta:
        table_name = "ad_click_logs"


class AdImpressionDaily(BaseModel):
    id = TextField(primary_key=True)
    ad_reservation = ForeignKeyField(AdReservation, column_name="ad_reservation_id")
    ad_reservation_id: ClassVar[Field[str]]
    date = TextField()
    country = TextField()
    impressions = IntegerField(default=0)
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "ad_impression_daily"


class BatchRun(BaseModel):
    name = TextField()
    period = TextField()
    ran_at = created()

    class Meta:
        table_name = "batch_runs"
        primary_key = CompositeKey("name", "period")


class SubscriptionCheckout(BaseModel):
    """The plan checkout a member has open or being paid: one row per member, claimed by
    one conditional statement, so two checkouts cannot be opened at once (models/billing.py)."""

    user = ForeignKeyField(User, column_name="user_id", primary_key=True)
    user_id: ClassVar[Field[str]]
    token = TextField()  # this claim's; the provider's idempotency key
    plan = TextField()
    session_id = TextField(null=True)  # the provider's checkout, once created
    expires_at = TextField()
    created_at = created()

    class Meta:
        table_name = "subscription_checkouts"


class DuplicateSubscription(BaseModel):
    """A member's second paid subscription: cancelled and refunded through the provider
    (`refunded`), or left for the operator (`needs_operator`) when that failed."""

    payment_subscription_id = TextField(primary_key=True)
    reference_id = TextField()
    kept_subscription_id = TextField()
    plan = TextField()
    status = TextField()  # cancelling, refunded, needs_operator
    detail = TextField(null=True)
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "duplicate_subscriptions"


class SubscriptionRefill(BaseModel):
    payment_subscription_id = TextField()
    plan = TextField()
    period_start = BigIntegerField()
    created_at = created()

    class Meta:
        table_name = "subscription_refills"
        primary_key = CompositeKey("payment_subscription_id", "plan", "period_start")


class AdImage(BaseModel):
    name = TextField(primary_key=True)
    user = ForeignKeyField(User, column_name="user_id")
    user_id: ClassVar[Field[str]]
    format = TextField()
    width = IntegerField()
    height = IntegerField()
    bytes = IntegerField()
    created_at = created()

    class Meta:
        table_name = "ad_images"


class AdInventoryLock(BaseModel):
    slot = ForeignKeyField(AdSlot, column_name="slot_id")
    slot_id: ClassVar[Field[str]]
    country = TextField()

    class Meta:
        table_name = "ad_inventory_locks"
        primary_key = CompositeKey("slot", "country")


class AdCheckout(BaseModel):
    ad_reservation = ForeignKeyField(
        AdReservation, column_name="ad_reservation_id", primary_key=True, on_delete="CASCADE"
    )
    ad_reservation_id: ClassVar[Field[str]]
    checkout_session_id = TextField(unique=True)
    expires_at = TextField()
    created_at = created()
    # When the provider said the checkout completed with the money still to come (a
    # konbini voucher); null while open, paid at once, or never completed.
    payment_pending_at = TextField(null=True)

    class Meta:
        table_name = "ad_checkouts"


class OutboxMessage(BaseModel):
    """A message whose loss would cost money or a promise: written in the transaction
    that makes it necessary, sent after commit, sent again until its actor has run."""

    id = TextField(primary_key=True)
    actor = TextField()
    args = TextField()
    created_at = created()
    sent_at = TextField(null=True)
    send_count = IntegerField(default=0)
    processed_at = TextField(null=True)

    class Meta:
        table_name = "outbox_messages"


class AdImpressionEvent(BaseModel):
    id = TextField(primary_key=True)
    created_at = created()

    class Meta:
        table_name = "ad_impression_events"


class IdempotencyKey(BaseModel):
    """A member's Idempotency-Key: the request it was first sent with and, once that
    request finished, its answer (status and JSON body). Kept 24 hours."""

    user = ForeignKeyField(User, column_name="user_id")
    user_id: ClassVar[Field[str]]
    idempotency_key = TextField()
    request = TextField()
    response_status = IntegerField(null=True)
    response_body = TextField(null=True)
    created_at = TextField()

    class Meta:
        table_name = "idempotency_keys"
        primary_key = CompositeKey("user", "idempotency_key")


class SubtitleTrack(BaseModel):
    """A video's fetched subtitle track, the source of truth for its search documents
    and its transcript: the cues as the platform gave them, zlib-compressed JSON
    (models/subtitles.py reads and writes them)."""

    video = ForeignKeyField(Video, column_name="video_id", primary_key=True)
    video_id: ClassVar[Field[str]]
    language = TextField()
    type = TextField()  # "manual" or "auto"
    cues = BlobField()
    cue_count = IntegerField()
    fetched_at = TextField()
    created_at = created()
    updated_at = created()

    class Meta:
        table_name = "subtitle_tracks"


class VideoVectors(BaseModel):
    """A video's passage vectors for search by meaning (models/vectors.py): one per
    search document, in document order, as float16 rows, with an 8-byte digest of each
    passage's text, so a text that did not change keeps its vector."""

    video = ForeignKeyField(Video, column_name="video_id", primary_key=True)
    video_id: ClassVar[Field[str]]
    model = TextField()
    dims = IntegerField()
    digests = BlobField()
    vectors = BlobField()
    embedded_at = TextField()

    class Meta:
        table_name = "video_vectors"


class IndexCheck(BaseModel):
    """One comparison of the search index with the database (`subsearch search verify`):
    how many searchable videos, and how many were missing, extra or stale."""

    id = AutoField()
    engine = TextField()
    started_at = TextField()
    finished_at = TextField()
    videos = IntegerField()
    missing = IntegerField()
    extra = IntegerField()
    stale = IntegerField()
    repaired = IntBooleanField()
    examples = TextField()  # JSON: a few video ids of each kind, for the admin page

    class Meta:
        table_name = "index_checks"


class Alert(BaseModel):
    """A member's saved search, heard of whenever a video indexed after it was made says
    it (models/alerts.py; docs/alerts.md). Deleted alerts keep their row
    (`deleted_at`), so their feed answers 404 and their mails stop."""

    id = TextField(primary_key=True)
    user = ForeignKeyField(User, column_name="user_id")
    user_id: ClassVar[Field[str]]
    query = TextField()
    semantic = IntBooleanField(default=False)
    sr = FloatField()
    channels = TextField(default="[]")  # a JSON list of channel ids
    frequency = TextField()  # instant, daily
    feed_token = TextField(unique=True)
    unsubscribe_token = TextField(unique=True)
    created_at = created()
    deleted_at = TextField(null=True)
    # Paused after repeated hard mail failures (the account page says why); news still
    # shows in the app and the feed.
    paused_at = TextField(null=True)
    paused_reason = TextField(null=True)
    mail_failures = IntegerField(default=0)
    # The member's local date of the last daily digest sent (one a day).
    last_digest_on = TextField(null=True)

    class Meta:
        table_name = "alerts"


class AlertMatch(BaseModel):
    """A video an alert heard of, once: the first moment that says it."""

    alert = ForeignKeyField(Alert, column_name="alert_id", on_delete="CASCADE")
    alert_id: ClassVar[Field[str]]
    video_id = TextField()
    start_seconds = FloatField(null=True)
    end_seconds = FloatField(null=True)
    highlight = TextField(default="")
    found_at = created()
    # The mail that claimed it (sent again after a crash with the same matches), and
    # when that mail was sent; null until then.
    mail_batch = TextField(null=True)
    mailed_at = TextField(null=True)

    class Meta:
        table_name = "alert_matches"
        primary_key = CompositeKey("alert", "video_id")


ALL_MODELS = [
    User,
    Account,
    Session,
    Verification,
    Channel,
    Video,
    UserVideoAccess,
    Subscription,
    PaymentEvent,
    FavoriteChannel,
    SearchHistory,
    AdSlot,
    AdvertiserProfile,
    AdReservation,
    AdClickLog,
    AdImpressionDaily,
    BatchRun,
    SubscriptionRefill,
    SubscriptionCheckout,
    DuplicateSubscription,
    AdImage,
    AdInventoryLock,
    AdCheckout,
    AdImpressionEvent,
    OutboxMessage,
    AdStopNotice,
    IdempotencyKey,
    SubtitleTrack,
    IndexCheck,
    Alert,
    AlertMatch,
]
