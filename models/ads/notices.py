"""The stop notice an administrator sends (by hand) to the advertiser."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from babel import Locale

from models.ads import slot_names
from models.settings import get_settings
from models.tables import AdReservation


@dataclass(frozen=True)
class StopNotice:
    """Recipient, subject and body; `created_at` once it is kept."""

    to: str
    subject: str
    body: str
    created_at: str | None = None

    @property
    def mailto(self) -> str:
        """A ready mailto: link that opens the notice in the administrator's mailer."""
        return (
            f"mailto:{quote(self.to, safe='@')}"
            f"?subject={quote(self.subject)}&body={quote(self.body)}"
        )


def country_in_japanese(code: str) -> str:
    """A country code as the notice's Japanese reader names it: JP -> 日本."""
    name: str = Locale("ja").territories.get(code.upper(), code)
    return name


def build_stop_notification_email(
    reservation: AdReservation, reason: str, reservation_page: str
) -> StopNotice:
    """buildStopNotificationEmail: to the profile's contact, with the reason, the
    reservation's facts, the no-refund statement, where to ask (SUPPORT_EMAIL), and the
    address of the reservation's own page (`reservation_page`). The slot is named as the
    advertiser chose it, by its display name; its id means nothing to them."""
    settings = get_settings()
    slot = slot_names().get(reservation.slot_id, reservation.slot_id)
    subject = f"【{settings.service_name}】広告掲載停止のお知らせ（予約 {reservation.id}）"
    body = "\n".join(
        [
            f"{reservation.business_legal_name}",
            f"{reservation.contact_name} 様",
            "",
            f"{settings.service_name} をご利用いただきありがとうございます。",
            "以下の広告は、掲載基準に照らして管理者の判断により掲載を停止しました。",
            "",
            f"停止理由: {reason}",
            "",
            f"予約ID: {reservation.id}",
            f"広告枠: {slot}",
            f"掲載位置: {reservation.position}",
            f"配信国: {country_in_japanese(reservation.country)}",
            f"掲載期間: {reservation.start_month} 〜 {reservation.end_month}",
            f"表示名: {reservation.advertiser_name}",
            "",
            "利用規約に基づき、掲載停止に伴う返金はいたしません。",
            "",
            f"お問い合わせ: {settings.support_email}（件名に予約IDを記載してください）",
            reservation_page,
        ]
    )
    return StopNotice(reservation.contact_email, subject, body)
