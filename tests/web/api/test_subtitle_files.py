"""The transcript as a file (issue 47): `GET /api/videos/{id}/subtitles?format=srt|vtt|txt`
for a member with access, as a download named after the video; JSON stays the default;
a locked, unknown or badly asked video is refused as the JSON form is."""

from __future__ import annotations

from typing import get_args
from urllib.parse import unquote

import pytest

from models.credits import unlock_video
from models.platform.base import Cue, Subtitles
from models.subtitles import store_track
from models.tables import User, UserVideoAccess
from models.transcript_files import FILE_FORMATS
from tests.factories import make_admin, make_user, make_video, sign_in
from web.api.schemas.catalog import SubtitleFormat

CUES = [
    Cue(0.0, 2.5, "大阪の広告を見ました。"),
    Cue(2.5, 5.0, "<script>x</script> & --> です"),
    Cue(3725.25, 3727.0, "一時間と二分五秒"),
]
SRT = (
    "1\n00:00:00,000 --> 00:00:02,500\n大阪の広告を見ました。\n\n"
    "2\n00:00:02,500 --> 00:00:05,000\n<script>x</script> & --> です\n\n"
    "3\n01:02:05,250 --> 01:02:07,000\n一時間と二分五秒\n"
)
VTT = (
    "WEBVTT\n\n"
    "00:00:00.000 --> 00:00:02.500\n大阪の広告を見ました。\n\n"
    "00:00:02.500 --> 00:00:05.000\n&lt;script&gt;x&lt;/script&gt; &amp; --&gt; です\n\n"
    "01:02:05.250 --> 01:02:07.000\n一時間と二分五秒\n"
)
TXT = "大阪の広告を見ました。\n<script>x</script> & --> です\n\n一時間と二分五秒\n"
TYPES = {
    "srt": "application/x-subrip; charset=utf-8",
    "vtt": "text/vtt; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
}
BODIES = {"srt": SRT, "vtt": VTT, "txt": TXT}


def video_with_track(title: str):
    video = make_video(title=title)
    store_track(video.id, Subtitles(type="manual", language="ja", cues=CUES))
    return video


@pytest.fixture
def osaka():
    return video_with_track("大阪の旅")


@pytest.fixture
def reader(client, osaka):
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, osaka.id)
    return user


def disposition(response) -> str:
    return response.headers["Content-Disposition"]


@pytest.mark.parametrize("fmt", FILE_FORMATS)
def test_each_format_is_the_whole_transcript_as_a_file(client, osaka, reader, fmt):
    # Given a member who unlocked the video
    # When they ask for it as a file
    response = client.get(f"/api/videos/{osaka.id}/subtitles?format={fmt}")
    # Then the body is the file, in its media type, as UTF-8
    assert response.status_code == 200
    assert response.headers["Content-Type"] == TYPES[fmt]
    assert response.get_data().decode("utf-8") == BODIES[fmt]
    assert disposition(response).startswith("attachment;")


@pytest.mark.parametrize("fmt", FILE_FORMATS)
def test_a_japanese_title_names_the_file_in_utf_8_with_an_ascii_fallback(
    client, osaka, reader, fmt
):
    header = disposition(client.get(f"/api/videos/{osaka.id}/subtitles?format={fmt}"))
    # filename*: the title itself, percent-encoded UTF-8 (RFC 5987)
    assert f"filename*=UTF-8''{'%E5%A4%A7%E9%98%AA%E3%81%AE%E6%97%85'}.{fmt}" in header
    assert unquote(header.split("filename*=UTF-8''")[1]) == f"大阪の旅.{fmt}"
    # filename: what a client without RFC 5987 reads, the video id (ASCII cannot say 大阪)
    assert f"filename={osaka.id}.{fmt};" in header or header.endswith(f"filename={osaka.id}.{fmt}")
    header.encode("ascii")  # a header is ASCII


def test_an_ascii_title_is_the_plain_file_name(client):
    # Given a video whose title ASCII can spell, with characters no file name takes
    video = video_with_track('Osaka: street food / "night" walk')
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, video.id)
    # When downloaded
    header = disposition(client.get(f"/api/videos/{video.id}/subtitles?format=vtt"))
    # Then the title is the name, quoted, without what a file system refuses
    assert header == 'attachment; filename="Osaka street food night walk.vtt"'


def test_an_accented_title_is_spelled_in_ascii_for_the_fallback(client):
    video = video_with_track("Café ＴＯＫＹＯ")
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, video.id)
    header = disposition(client.get(f"/api/videos/{video.id}/subtitles?format=txt"))
    assert 'filename="Cafe TOKYO.txt"' in header
    assert "filename*=UTF-8''Caf%C3%A9%20%EF%BC%B4" in header


@pytest.mark.parametrize("fmt", ["json", *FILE_FORMATS])
def test_a_locked_video_is_403_locked_whatever_the_format(client, osaka, fmt):
    # Given a member who never unlocked the video, and one whose access ran out
    sign_in(client, make_user())
    # When they ask for any format
    response = client.get(f"/api/videos/{osaka.id}/subtitles?format={fmt}")
    # Then the contract's error, as JSON, and no file
    assert response.status_code == 403
    assert response.headers["Content-Type"] == "application/json"
    assert response.get_json()["error"]["code"] == "locked"
    assert "Content-Disposition" not in response.headers


def test_an_expired_access_is_locked_for_a_file_too(client, osaka, reader):
    UserVideoAccess.update(expires_at="2000-01-01T00:00:00.000Z").where(
        UserVideoAccess.user == reader.id
    ).execute()
    response = client.get(f"/api/videos/{osaka.id}/subtitles?format=srt")
    assert (response.status_code, response.get_json()["error"]["code"]) == (403, "locked")


@pytest.mark.parametrize("fmt", FILE_FORMATS)
def test_an_unknown_video_is_404_in_every_format(client, reader, fmt):
    response = client.get(f"/api/videos/noSuchVideo/subtitles?format={fmt}")
    assert (response.status_code, response.get_json()["error"]["code"]) == (404, "not_found")


def test_signed_out_is_401_for_a_file(client, osaka):
    response = client.get(f"/api/videos/{osaka.id}/subtitles?format=srt")
    assert (response.status_code, response.get_json()["error"]["code"]) == (401, "unauthenticated")


@pytest.mark.parametrize("bad", ["pdf", "SRT", "", "srt,vtt"])
def test_a_bad_format_is_400_listing_the_formats(client, osaka, reader, bad):
    response = client.get(f"/api/videos/{osaka.id}/subtitles?format={bad}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert set(error["fields"]) == {"format"}
    for allowed in ("json", "srt", "vtt", "txt"):
        assert f"'{allowed}'" in error["fields"]["format"]


def test_format_given_twice_or_another_parameter_is_refused(client, osaka, reader):
    twice = client.get(f"/api/videos/{osaka.id}/subtitles?format=srt&format=vtt")
    assert twice.get_json()["error"]["fields"] == {"format": "given more than once"}
    other = client.get(f"/api/videos/{osaka.id}/subtitles?download=1")
    assert set(other.get_json()["error"]["fields"]) == {"download"}


def test_json_stays_the_default_and_unchanged(client, osaka, reader):
    # Given the same video asked without a format and with format=json
    plain = client.get(f"/api/videos/{osaka.id}/subtitles")
    asked = client.get(f"/api/videos/{osaka.id}/subtitles?format=json")
    # Then both are the JSON answer of before, not a download
    for response in (plain, asked):
        assert response.status_code == 200
        assert response.headers["Content-Type"] == "application/json"
        assert "Content-Disposition" not in response.headers
        assert response.get_json() == {
            "videoId": osaka.id,
            "segments": [{"start": c.start, "end": c.end, "text": c.text} for c in CUES],
        }


def test_unlock_then_download_and_a_download_spends_nothing(client, osaka):
    # Given a member with credits who has not unlocked the video
    user = make_user(credit_balance=10)
    sign_in(client, user)
    assert client.get(f"/api/videos/{osaka.id}/subtitles?format=srt").status_code == 403
    # When they unlock it over the API, then download every format, twice
    unlocked = client.post(f"/api/videos/{osaka.id}/unlock", json={})
    assert unlocked.status_code == 200
    balance = unlocked.get_json()["creditBalance"]
    for fmt in FILE_FORMATS * 2:
        response = client.get(f"/api/videos/{osaka.id}/subtitles?format={fmt}")
        assert response.get_data(as_text=True) == BODIES[fmt]
    # Then the downloads charged nothing and granted nothing more
    assert User.get_by_id(user.id).credit_balance == balance
    assert UserVideoAccess.select().where(UserVideoAccess.user == user.id).count() == 1


def test_an_admin_downloads_without_unlocking(client, osaka):
    sign_in(client, make_admin())
    response = client.get(f"/api/videos/{osaka.id}/subtitles?format=vtt")
    assert response.get_data(as_text=True) == VTT


def test_the_document_lists_the_formats_and_the_file_types(client):
    document = client.get("/api/openapi.json").get_json()
    call = document["paths"]["/api/videos/{video_id}/subtitles"]["get"]
    [fmt] = [p for p in call["parameters"] if p["name"] == "format"]
    assert fmt["in"] == "query" and fmt["required"] is False
    assert fmt["schema"]["enum"] == ["json", "srt", "vtt", "txt"]
    assert fmt["schema"]["default"] == "json"
    ok = call["responses"]["200"]
    assert set(ok["content"]) == {
        "application/json",
        "application/x-subrip",
        "text/vtt",
        "text/plain",
    }
    assert ok["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Subtitles"}
    assert "Content-Disposition" in ok["headers"]
    assert {"400", "401", "403", "404"} <= set(call["responses"])


def test_the_schema_offers_json_and_exactly_the_domains_file_formats():
    assert get_args(SubtitleFormat) == ("json", *FILE_FORMATS)
