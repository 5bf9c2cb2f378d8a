"""Alerts of the signed-in member (docs/alerts.md): save a search, list, delete, read its
news, renew its feed's address. The rules are in models/alerts.py."""

from __future__ import annotations

from flask import Response, jsonify

from models.alerts import (
    alert_matches,
    create_alert,
    delete_alert,
    feed_url,
    list_alerts,
    renew_feed_token,
    resume_mail,
)
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import alerts
from web.api.schemas.catalog import total_pages
from web.visitor import member


@bp.post("/alerts")
@operation(
    "Save a search as an alert",
    auth=MEMBER,
    body=alerts.NewAlert,
    responses={201: alerts.AlertCreated},
    error_descriptions={
        400: "`invalid_request`: `fields` names what is wrong (`query` that cannot be read,"
        " `frequency`, `channels` unknown, `sr`)",
        403: "`plan_limit`: the plan holds no more alerts (free 3, plus 20, pro 100); or a"
        " cross-site or non-JSON write (`forbidden`)",
    },
)
def save_alert(body: alerts.NewAlert) -> tuple[Response, int]:
    alert = create_alert(
        member().id,
        body.query,
        semantic=body.semantic,
        sr=body.sr,
        channels=body.channels,
        frequency=body.frequency,
    )
    return jsonify(alerts.AlertCreated(alert=alerts.Alert.of(alert)).as_json()), 201


@bp.get("/alerts")
@operation("Own alerts with their latest news", auth=MEMBER, responses={200: alerts.Alerts})
def own_alerts() -> Response:
    found = [alerts.Alert.listed(summary) for summary in list_alerts(member().id)]
    return jsonify(alerts.Alerts(alerts=found).as_json())


@bp.delete("/alerts/<alert_id>")
@operation(
    "Delete an own alert: no more news, mail or feed",
    auth=MEMBER,
    path=alerts.AlertPath,
    responses={204: None},
    error_descriptions={404: "`not_found`: no live alert of the caller's has this id"},
)
def remove_alert(path: alerts.AlertPath) -> tuple[str, int]:
    delete_alert(member().id, path.alert_id)
    return "", 204


@bp.get("/alerts/<alert_id>/matches")
@operation(
    "The videos an own alert heard of, newest first",
    auth=MEMBER,
    path=alerts.AlertPath,
    query=alerts.MatchesParams,
    responses={200: alerts.AlertMatches},
    error_descriptions={404: "`not_found`: no live alert of the caller's has this id"},
)
def alert_news(path: alerts.AlertPath, query: alerts.MatchesParams) -> Response:
    found = alert_matches(member().id, path.alert_id, query.page, query.per_page)
    return jsonify(
        alerts.AlertMatches(
            matches=[alerts.AlertMatch.of(news) for news in found.news],
            page=query.page,
            per_page=query.per_page,
            total=found.total,
            total_pages=total_pages(found.total, query.per_page),
        ).as_json()
    )


@bp.post("/alerts/<alert_id>/feed-token")
@operation(
    "A new private address for an own alert's feed (the old one answers 404)",
    auth=MEMBER,
    path=alerts.AlertPath,
    responses={200: alerts.FeedToken},
    error_descriptions={404: "`not_found`: no live alert of the caller's has this id"},
)
def renew_alert_feed(path: alerts.AlertPath) -> Response:
    token = renew_feed_token(member().id, path.alert_id)
    return jsonify(alerts.FeedToken(feed_url=feed_url(token)).as_json())


@bp.post("/alerts/<alert_id>/resume")
@operation(
    "Mail again for an own alert paused after repeated refusals of the address",
    auth=MEMBER,
    path=alerts.AlertPath,
    responses={200: alerts.AlertCreated},
    error_descriptions={404: "`not_found`: no live alert of the caller's has this id"},
)
def resume_alert_mail(path: alerts.AlertPath) -> Response:
    alert = resume_mail(member().id, path.alert_id)
    return jsonify(alerts.AlertCreated(alert=alerts.Alert.of(alert)).as_json())
