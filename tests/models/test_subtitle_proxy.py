"""Transcript fetches through a proxy (issue 44, CONTRACT §12.1): the youtube engine as
configured (`VIDEO_API_BASE` at a local fake of the Data API, `SUBTITLE_PROXY_URL` at a
local proxy that refuses). The proxy sees the transcript fetches and nothing else, the
refusal pauses fetching, and no video fails."""

from __future__ import annotations

from dataclasses import replace

import pytest

from models import ingest, platform_pause
from models.platform import get_platform, transcript_proxy
from models.settings import get_settings, load_settings, use_settings
from models.tables import Video
from tests.fakes.http import serve
from tests.fakes.refusing_proxy import refusing_proxy
from tests.fakes.youtube_server import API_KEY, FakeYouTube

CH = "UCprox0prox0prox0prox0p1"


@pytest.fixture
def through_a_refusing_proxy():
    fake = FakeYouTube()
    fake.add_channel(CH, title="Proxied", uploads=["proxyVideo1"])
    fake.add_video("proxyVideo1", channel_id=CH, title="Nara trip")
    previous = get_settings()
    with serve(fake) as api, refusing_proxy() as (proxy, seen):
        use_settings(
            replace(
                previous,
                video_api_backend="youtube",
                video_api_key=API_KEY,
                video_api_base=f"{api}/youtube/v3",
                subtitle_proxy_url=proxy,
            )
        )
        yield fake, seen
    use_settings(previous)


def test_a_refusing_proxy_sees_the_fetch_pauses_fetching_and_fails_no_video(
    through_a_refusing_proxy,
):
    fake, seen = through_a_refusing_proxy
    ingest.import_channel(CH)  # the Data API, directly

    with pytest.raises(ingest.FetchLater):
        ingest.fetch_subtitles("proxyVideo1")

    assert seen and all(line.startswith("CONNECT www.youtube.com:443") for line in seen), seen
    assert fake.requests, "the Data API was asked directly, not through the proxy"
    video = Video.get_by_id("proxyVideo1")
    assert (video.subtitle_status, video.last_failure_kind) == ("pending", "network")
    assert platform_pause.state().kind == "network"


def test_a_proxy_address_is_used_for_https_as_well_as_http():
    settings = replace(get_settings(), subtitle_proxy_url="http://user:pw@proxy.example:3128")
    proxies = transcript_proxy(settings).to_requests_dict()
    assert proxies == {
        "http": "http://user:pw@proxy.example:3128",
        "https": "http://user:pw@proxy.example:3128",
    }


def test_webshare_is_taken_over_a_plain_proxy_and_retries_when_blocked():
    settings = load_settings(
        {
            "SUBTITLE_PROXY_URL": "http://proxy.example:3128",
            "SUBTITLE_PROXY_WEBSHARE_USERNAME": "rotating-user",
            "SUBTITLE_PROXY_WEBSHARE_PASSWORD": "secret",
        },
        read_dotenv=False,
    )
    proxy = transcript_proxy(settings)
    assert proxy.retries_when_blocked > 0
    assert "rotating-user" in proxy.url and "p.webshare.io" in proxy.url


def test_without_a_proxy_transcripts_are_fetched_directly():
    assert transcript_proxy(get_settings()) is None
    assert get_platform().name == "fixture"
