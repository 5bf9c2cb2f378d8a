"""The time zones a member chooses from, as people name them: Japan time first, then one
group per region with each zone's city and country in the reader's language (babel's
CLDR names) and its current offset from UTC. The value stays the IANA name.

Aliases (`Japan`, `US/Pacific`) are not offered beside their zone, but stay accepted
(web/i18n.py time_zones) and are offered when they are the member's stored choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo

from babel import Locale
from babel.core import get_global
from babel.dates import get_timezone_location

from web.i18n import time_zones
from web.translation import force_locale, lazy_gettext

FIRST_ZONE = "Asia/Tokyo"

# The IANA areas, in the order the list shows them.
REGIONS = {
    "Asia": lazy_gettext("Asia"),
    "Europe": lazy_gettext("Europe"),
    "America": lazy_gettext("The Americas"),
    "Australia": lazy_gettext("Australia"),
    "Pacific": lazy_gettext("Pacific"),
    "Africa": lazy_gettext("Africa"),
    "Indian": lazy_gettext("Indian Ocean"),
    "Atlantic": lazy_gettext("Atlantic"),
    "Arctic": lazy_gettext("Arctic"),
    "Antarctica": lazy_gettext("Antarctica"),
    "Etc": lazy_gettext("Offsets from UTC"),
}
# Names in the zone database that are no place: a build's fallback and its own link.
NOT_PLACES = frozenset({"Factory", "localtime", "posixrules"})


class ZoneChoice(NamedTuple):
    value: str  # the IANA name, as stored
    label: str


class ZoneGroup(NamedTuple):
    label: str
    choices: list[ZoneChoice]


class ZoneChoices(NamedTuple):
    first: ZoneChoice
    groups: list[ZoneGroup]

    def values(self) -> set[str]:
        return {self.first.value} | {c.value for g in self.groups for c in g.choices}


def _minutes(zone: str, moment: datetime) -> int:
    offset = moment.astimezone(ZoneInfo(zone)).utcoffset()
    return int(offset.total_seconds() // 60) if offset else 0


def offset_text(zone: str, moment: datetime) -> str:
    """`UTC+09:00`, `UTC−05:00` (a true minus sign), `UTC` for none: as of `moment`."""
    minutes = _minutes(zone, moment)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "\u2212"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{rest:02d}"


def _city(zone: str, locale: Locale) -> str:
    """The zone's city in the reader's words; where CLDR has none, babel falls back to
    the IANA name (`Argentina/Buenos Aires`): its last part is the city."""
    city = get_timezone_location(zone, locale=locale, return_city=True)
    return city.rsplit("/", 1)[-1].replace("_", " ")


def _place_label(zone: str, locale: Locale, moment: datetime) -> str:
    city = _city(zone, locale)
    canonical = get_global("zone_aliases").get(zone, zone)
    territory = get_global("zone_territories").get(canonical)
    country = locale.territories.get(territory) if territory and territory != "001" else None
    place = city if not country or country == city else f"{country} — {city}"
    return f"{place} ({offset_text(zone, moment)})"


def _offered(zone: str, aliases: Mapping[str, str]) -> bool:
    return zone not in NOT_PLACES and zone not in aliases and "/" in zone


@lru_cache(maxsize=8)
def _choices(locale_code: str, today: date) -> ZoneChoices:
    """Made once a day per language: the offsets follow daylight saving time."""
    locale = Locale.parse(locale_code)
    moment = datetime(today.year, today.month, today.day, 12, tzinfo=UTC)
    aliases = get_global("zone_aliases")
    with force_locale(locale_code):
        first = ZoneChoice(
            FIRST_ZONE,
            f"{get_timezone_location(FIRST_ZONE, locale=locale)}"
            f" ({offset_text(FIRST_ZONE, moment)})",
        )
        grouped: dict[str, dict[str, ZoneChoice]] = {area: {} for area in REGIONS}
        utc = ZoneChoice("UTC", str(lazy_gettext("Coordinated Universal Time (UTC)")))
        grouped["Etc"]["UTC"] = utc
        for zone in sorted(time_zones()):
            if zone == FIRST_ZONE or not _offered(zone, aliases):
                continue
            area = zone.split("/", 1)[0]
            if area not in grouped:
                continue
            if area == "Etc":
                # Etc/GMT+5 is five hours *behind* UTC (POSIX signs): named by its offset.
                label = offset_text(zone, moment)
                if label == "UTC":
                    continue  # Etc/UTC, Etc/GMT, ...: the UTC choice above
            else:
                label = _place_label(zone, locale, moment)
            grouped[area].setdefault(label, ZoneChoice(zone, label))
        groups = [
            ZoneGroup(str(REGIONS[area]), _in_order(area, list(choices.values()), moment))
            for area, choices in grouped.items()
            if choices
        ]
    return ZoneChoices(first, groups)


def _in_order(area: str, choices: list[ZoneChoice], moment: datetime) -> list[ZoneChoice]:
    if area == "Etc":  # west to east
        return sorted(choices, key=lambda c: (c.value != "UTC", _minutes(c.value, moment)))
    return sorted(choices, key=lambda c: c.label)


def zone_choices(locale_code: str, stored: str | None = None) -> ZoneChoices:
    """The choices for a reader of `locale_code`; a stored zone that the groups do not
    offer (an alias such as `Japan`) is offered too, named like its place."""
    choices = _choices(locale_code, datetime.now(UTC).date())
    if not stored or stored in choices.values() or stored not in time_zones():
        return choices
    locale = Locale.parse(locale_code)
    moment = datetime.now(UTC)
    try:
        label = _place_label(stored, locale, moment)
    except LookupError:
        label = offset_text(stored, moment)
    extra = ZoneGroup(str(lazy_gettext("Your current choice")), [ZoneChoice(stored, label)])
    return ZoneChoices(choices.first, [extra, *choices.groups])
