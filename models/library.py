"""A user's search history and favorite channels, and the search people make (page and
API alike), which goes into that history."""

from __future__ import annotations

from dataclasses import replace

from models.clock import now_iso
from models.errors import NotFound
from models.metrics import SEARCH_SECONDS, timed
from models.search import SearchQuery, SearchResults, VideoMoments, VideoResults, get_engine
from models.search.moments import merge_overlapping
from models.settings import get_settings
from models.tables import HIDDEN_STATUSES, Channel, FavoriteChannel, SearchHistory, Video

HISTORY_LIMIT = 100


def record_search(user_id: str, query: SearchQuery) -> None:
    """One row per search condition: a repeat updates searched_at and updated_at and
    keeps created_at (one upsert on uq_search_histories_condition)."""
    now = now_iso()
    (
        SearchHistory.insert(
            user=user_id,
            query=query.q,
            channels=",".join(query.channels),
            target=",".join(query.targets),
            sort=query.sort,
            semantic=int(query.semantic),
            sr=query.sr,
            searched_at=now,
            created_at=now,
            updated_at=now,
        )
        .on_conflict(
            conflict_target=[
                SearchHistory.user,
                SearchHistory.query,
                SearchHistory.channels,
                SearchHistory.target,
                SearchHistory.sort,
                SearchHistory.semantic,
                SearchHistory.sr,
            ],
            update={SearchHistory.searched_at: now, SearchHistory.updated_at: now},
        )
        .execute()
    )


def search(user_id: str | None, query: SearchQuery) -> SearchResults:
    """A search as the page and the API make it: run on the engine, and recorded in a
    signed-in user's history (docs/search.md, Search API). Hits of overlapping segments
    of one moment are merged, so a page may hold fewer than `per_page` hits."""
    with timed(SEARCH_SECONDS, engine=get_settings().search_backend, kind="moments"):
        results = get_engine().search(query)
    results = replace(results, hits=merge_overlapping(results.hits))
    if user_id is not None:
        record_search(user_id, query)
    return results


def search_videos(user_id: str | None, query: SearchQuery) -> VideoResults:
    """The same search grouped by video (docs/api.md, Search), recorded in the
    history like `search`."""
    with timed(SEARCH_SECONDS, engine=get_settings().search_backend, kind="videos"):
        results = get_engine().search_videos(query)
    if user_id is not None:
        record_search(user_id, query)
    return results


def video_moments(query: SearchQuery, video_id: str) -> VideoMoments:
    """Every moment of one video for a search, a page of them (docs/api.md, Moments of a
    video): what a grouped search counts as its `total_moments`, the moments it shows
    first. A video no search lists (unknown, deleted, of a channel deleted or opted out)
    is NotFound. Not recorded in the history: the search that found the video was."""
    found = (
        Video.select(Video.subtitle_status, Channel.subtitle_status.alias("channel_status"))
        .join(Channel)
        .where(Video.id == video_id)
        .dicts()
        .first()
    )
    statuses = {found["subtitle_status"], found["channel_status"]} if found else set()
    if found is None or not statuses.isdisjoint(HIDDEN_STATUSES):
        raise NotFound("No video has this id.")
    with timed(SEARCH_SECONDS, engine=get_settings().search_backend, kind="video_moments"):
        return get_engine().video_moments(query, video_id)


def history(user_id: str) -> list[SearchHistory]:
    return list(
        SearchHistory.select()
        .where(SearchHistory.user == user_id)
        .order_by(SearchHistory.searched_at.desc(), SearchHistory.id.desc())
        .limit(HISTORY_LIMIT)
    )


def delete_history_entry(user_id: str, entry_id: int) -> None:
    deleted = (
        SearchHistory.delete()
        .where((SearchHistory.id == entry_id) & (SearchHistory.user == user_id))
        .execute()
    )
    if not deleted:
        raise NotFound("No such search history entry.")


def clear_history(user_id: str) -> int:
    cleared: int = SearchHistory.delete().where(SearchHistory.user == user_id).execute()
    return cleared


def add_favorite(user_id: str, channel_id: str) -> None:
    """Idempotent: favoriting twice keeps the first row and its time."""
    if not Channel.select().where(Channel.id == channel_id).exists():
        raise NotFound("No channel has this id.")
    FavoriteChannel.insert(user=user_id, channel=channel_id).on_conflict_ignore().execute()


def remove_favorite(user_id: str, channel_id: str) -> None:
    FavoriteChannel.delete().where(
        (FavoriteChannel.user == user_id) & (FavoriteChannel.channel == channel_id)
    ).execute()


def favorites(user_id: str) -> list[tuple[FavoriteChannel, Channel]]:
    rows = (
        FavoriteChannel.select(FavoriteChannel, Channel)
        .join(Channel)
        .where(FavoriteChannel.user == user_id)
        .order_by(FavoriteChannel.created_at.desc())
    )
    return [(row, row.channel) for row in rows]


CHANNEL_CHOICES_LIMIT = 500


def channel_choices(limit: int = CHANNEL_CHOICES_LIMIT) -> list[Channel]:
    """The channels a search can be narrowed to (the search page's channel filter): live
    ones (neither deleted nor opted out), the `limit` largest by video count, by title."""
    largest = (
        Channel.select()
        .where(Channel.subtitle_status.not_in(HIDDEN_STATUSES))
        .order_by(Channel.video_count.desc(), Channel.id)
        .limit(limit)
    )
    return sorted(largest, key=lambda channel: (channel.title.casefold(), channel.id))


def channels_by_id(channel_ids: tuple[str, ...] | list[str]) -> dict[str, Channel]:
    """The known channels among `channel_ids` (a search's chosen channels)."""
    if not channel_ids:
        return {}
    return {c.id: c for c in Channel.select().where(Channel.id.in_(list(channel_ids)))}


def favorite_channel_ids(user_id: str) -> set[str]:
    """The ids of the user's favorite channels (to mark them on a page)."""
    return {
        row.channel_id
        for row in FavoriteChannel.select(FavoriteChannel.channel).where(
            FavoriteChannel.user == user_id
        )
    }
