"""Direct ads as they are served: the slot's ads for a visitor and the click and
impression beacons' parameters."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from models.ads.delivery import DirectAd
from web.api.schemas.ads import (
    Slot,
    WindowMonth,
)
from web.api.schemas.common import (
    Query,
    Response,
    text,
)
from web.urls import beacon_urls


class ServeParams(Query):
    slot: Slot
    month: WindowMonth | None = None
    country: Annotated[str, text(64, min_length=1)] | None = Field(
        default=None,
        description="ISO 3166-1 alpha-2; the visitor's own when absent; any other text "
        "(XX, T1) gives four empty positions",
    )


class ServedAd(Response):
    reservation_id: str
    advertiser_name: str
    image_url: str
    click_url: str
    impression_url: str

    @classmethod
    def of(cls, ad: DirectAd, render_id: bytes) -> ServedAd:
        """The ad as served in one render: its click and impression addresses carry the
        render's view token for this ad."""
        click_url, impression_url = beacon_urls(ad.reservation_id, ad.view_token(render_id))
        return cls(
            reservation_id=ad.reservation_id,
            advertiser_name=ad.advertiser_name,
            image_url=ad.image_url,
            click_url=click_url,
            impression_url=impression_url,
        )


class ServedPosition(Response):
    position: int
    ad: ServedAd | None


class Served(Response):
    slot: Slot
    country: str | None
    month: str
    ads_enabled: bool
    positions: list[ServedPosition]

    @classmethod
    def of(
        cls,
        slot: str,
        country: str | None,
        month: str,
        ads: list[DirectAd | None] | None,
        render_id: bytes,
    ) -> Served:
        """The positions in order, each with its direct ad or none (network fallback);
        `ads` None when this viewer gets no ads at all."""
        return cls(
            slot=slot,
            country=country,
            month=month,
            ads_enabled=ads is not None,
            positions=[
                ServedPosition(position=n, ad=ServedAd.of(ad, render_id) if ad else None)
                for n, ad in enumerate(ads or [], start=1)
            ],
        )


class BeaconParams(Query):
    """Only the view token is read; anything else a page adds is ignored, so a beacon
    never fails the visitor."""

    model_config = ConfigDict(extra="ignore")

    v: str | None = Field(default=None, description="The view token of the render")
