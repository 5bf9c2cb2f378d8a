"""The stop notice an administrator sends (by hand) to the advertiser."""

from __future__ import annotations

from urllib.parse import quote

from models.ads import slot_names
from models.settings import get_settings
from models.tables import AdReservation


def build_stop_notification_email(reservation: AdReservation, reason: str) -> dict:
    """buildStopNotificationEmail: recipient, subject, body and a ready mailto: link."""
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
            f"広告枠: {slot}（{reservation.slot_id}）",
            f"掲載位置: {reservation.position}",
            f"配信国: {reservation.country}",
            f"掲載期間: {reservation.start_month} 〜 {reservation.end_month}",
            f"表示名: {reservation.advertiser_name}",
            "",
            "利用規約に基づき、掲載停止に伴う返金はいたしません。",
            "",
            f"お問い合わせ: {settings.support_email}（件名に予約IDを記載してください）",
            f"{settings.public_base_url}/ads/{reservation.id}",
        ]
    )
    return notice_json(reservation.contact_email, subject, body)


def notice_json(to: str, subject: str, body: str, created_at: str | None = None) -> dict:
    """A notice as the API shows it, with a ready mailto: link."""
    mailto = f"mailto:{quote(to, safe='@')}?subject={quote(subject)}&body={quote(body)}"
    notice = {"to": to, "subject": subject, "body": body, "mailto": mailto}
    if created_at is not None:
        notice["createdAt"] = created_at
    return notice
