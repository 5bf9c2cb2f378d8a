"""The platform VIDEO_API_BACKEND names, built from the settings: the YouTube client
(its transcripts through the proxy the settings give) or the fixture files."""

from __future__ import annotations

from youtube_transcript_api import YouTubeTranscriptApi
from youtube_transcript_api.proxies import GenericProxyConfig, ProxyConfig, WebshareProxyConfig

from models.platform.base import VideoPlatform
from models.platform.fixture import FixturePlatform
from models.platform.quota import QuotaLedger
from models.platform.youtube import YouTubePlatform
from models.settings import Settings, get_settings


def get_platform() -> VideoPlatform:
    settings = get_settings()
    if settings.video_api_backend == "youtube":
        return YouTubePlatform(
            settings.video_api_key or "",
            api_base=settings.video_api_base,
            transcripts=YouTubeTranscriptApi(proxy_config=transcript_proxy(settings)),
            ledger=QuotaLedger(settings.video_api_daily_units),
        )
    return FixturePlatform(settings.video_fixture_dir)


def transcript_proxy(settings: Settings) -> ProxyConfig | None:
    """The proxy transcript fetches go through, and they alone (the Data API is not
    blocked and is not proxied): Webshare's rotating residential proxies, which the
    library retries through when a fetch is blocked, or any HTTP(S) proxy. Both of
    GenericProxyConfig's addresses are set: with only http_url the library would fetch
    youtube.com's https pages directly."""
    if settings.subtitle_proxy_webshare_username and settings.subtitle_proxy_webshare_password:
        return WebshareProxyConfig(
            proxy_username=settings.subtitle_proxy_webshare_username,
            proxy_password=settings.subtitle_proxy_webshare_password,
        )
    if settings.subtitle_proxy_url:
        return GenericProxyConfig(
            http_url=settings.subtitle_proxy_url, https_url=settings.subtitle_proxy_url
        )
    return None
