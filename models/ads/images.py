"""Ad images: judged by decoding the content (never the file name), size-limited,
re-encoded without metadata, stored under an unguessable name.

Storage is an interface (`ImageStorage`) with one implementation on the local disk
(UPLOAD_DIR), served under /uploads/.
"""

from __future__ import annotations

import io
import re
import secrets
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypedDict
from urllib.parse import urlsplit

from PIL import ExifTags, Image, ImageOps, UnidentifiedImageError

from models.db import db, is_postgres, write_transaction
from models.errors import DomainError, ValidationError
from models.problems import Problem
from models.settings import get_settings
from models.tables import AdImage, AdReservation

MAX_BYTES = 500 * 1024
MIN_SIZE = (640, 360)
RECOMMENDED_SIZE = (1280, 720)
FORMATS = {
    "JPEG": ("jpg", "image/jpeg"),
    "PNG": ("png", "image/png"),
    "WEBP": ("webp", "image/webp"),
}
URL_PREFIX = "/uploads/"
# A 38-byte WebP can claim 6300 x 6300 px and take a gigabyte to decode and re-encode: the
# size is read from the header and checked before any pixel is decoded. An ad is shown at
# 1280 x 720 at most, so 4096 px a side and a 4K screen's pixels (3840 x 2160) in all are
# ample; Pillow holds colour at 4 bytes a pixel and a 1-bit or palette image is
# re-encoded in colour, so one decoded copy stays under DECODE_BUDGET (docs/ads.md,
# Images). Measured: the worst accepted file (a lossless WebP of that
# many pixels) decodes in a fresh process in 0.1 s and about 140 MB at its peak.
MAX_SIDE = 4096
MAX_PIXELS = 3840 * 2160
DECODED_BYTES_PER_PIXEL = 4
DECODE_BUDGET = MAX_PIXELS * DECODED_BYTES_PER_PIXEL  # 32 MiB
TOO_MANY_PIXELS = Problem("too_many_pixels")
# Uploads a member has not put in any reservation: the newest are kept for the purchase
# under way, older ones are removed as new ones come (docs/ads.md, Images).
KEEP_UNUSED = 20
NOT_UPLOADED = Problem("not_uploaded")
# The first key of the PostgreSQL advisory lock on a member's uploads and purchases (the
# second is the member id's hash); any constant not used by another lock.
UPLOADS_LOCK = 0x0AD1A6E5
# Pillow's own guard, behind the check above: the only images this service opens are
# uploads and its own drawings.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS


class ImageTooLarge(DomainError):
    code = "image_too_large"
    status = 413
    message = "The image is larger than 500 KB."


class ImageStorage(Protocol):
    def save(self, name: str, data: bytes) -> None: ...

    def exists(self, name: str) -> bool: ...

    def path(self, name: str) -> Path: ...

    def delete(self, name: str) -> None: ...


class LocalImageStorage:
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def save(self, name: str, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.folder / f".{name}.part"
        temporary.write_bytes(data)
        temporary.replace(self.folder / name)  # never a half-written file under its name

    def exists(self, name: str) -> bool:
        # Only a name this storage could have made reaches the file system (a long or
        # odd one would fail there, not answer "no").
        return STORED_NAME.fullmatch(name) is not None and (self.folder / name).is_file()

    def path(self, name: str) -> Path:
        return self.folder / name

    def delete(self, name: str) -> None:
        if STORED_NAME.fullmatch(name):
            (self.folder / name).unlink(missing_ok=True)


# What store_ad_image names a file: 24 random bytes, URL-safe base64, and the format.
STORED_NAME = re.compile(r"[A-Za-z0-9_-]{32}\.(jpg|png|webp)")


def storage() -> ImageStorage:
    return LocalImageStorage(get_settings().upload_dir)


class Recommendation(TypedDict):
    """A way the image differs from the recommended 1280 x 720 px, 16:9."""

    code: str
    message: str


@dataclass(frozen=True)
class StoredImage:
    name: str
    url: str
    format: str
    width: int
    height: int
    bytes: int
    recommendations: list[Recommendation]


def decoded_size_problem(width: int, height: int) -> Problem | None:
    """Why an image of this size is not decoded at all, or None. Any mode counts at
    DECODED_BYTES_PER_PIXEL: what the re-encoding may make of a 1-bit or palette image."""
    if width > MAX_SIDE or height > MAX_SIDE:
        return TOO_MANY_PIXELS
    if width * height * DECODED_BYTES_PER_PIXEL > DECODE_BUDGET:
        return TOO_MANY_PIXELS
    return None


def _decode(data: bytes) -> tuple[Image.Image, str]:
    """The decoded image and its format, one of FORMATS. Image.open reads the header
    only; the size it claims is judged before verify() or load() touch the pixels."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            probe = Image.open(io.BytesIO(data))
            problem = decoded_size_problem(probe.width, probe.height)
            if problem:
                raise ValidationError(fields={"file": problem})
            probe.verify()
            image = Image.open(io.BytesIO(data))
            image.load()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            # Pillow's guard (MAX_IMAGE_PIXELS) can speak first, from Image.open.
            raise ValidationError(fields={"file": TOO_MANY_PIXELS}) from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
            raise ValidationError(fields={"file": Problem("unreadable_image")}) from None
    if image.format == "MPO":
        # Phones write JPEGs with extra frames (depth, gain maps): keep the photo.
        image.seek(0)
        image.format = "JPEG"
    if image.format is None or image.format not in FORMATS:
        raise ValidationError(fields={"file": Problem("not_an_image_format")})
    return image, image.format


def _reencode(image: Image.Image) -> bytes:
    """The pixels only: EXIF, ICC text chunks, comments and the like are dropped; the
    EXIF orientation is applied first so the picture still shows the right way up."""
    source_format = image.format
    transparency = image.info.get("transparency")
    # In place: the image is this upload's own, and a copy would double the memory.
    ImageOps.exif_transpose(image, in_place=True)
    # Pillow's writers copy some of `info` (a JPEG comment, ICC and XMP data) into the
    # new file: start from none of it. Transparency is pixels, not metadata: kept.
    image.info = {}
    if image.mode.startswith("I"):
        # 16-bit grey: scale to 8 bits rather than clip everything above 255 to white.
        image = image.convert("I").point(lambda v: v / 257).convert("L")
    if transparency is not None and image.mode in ("P", "L", "RGB"):
        image.info["transparency"] = transparency
        image = image.convert("RGBA") if source_format != "PNG" else image
    out = io.BytesIO()
    if source_format == "JPEG":
        image.convert("RGB").save(out, "JPEG", quality=90, optimize=True)
    elif source_format == "PNG":
        mode = image.mode if image.mode in ("RGB", "RGBA", "L", "LA", "P") else "RGBA"
        image = image.convert(mode)
        extra = (
            {"transparency": transparency}
            if transparency is not None and mode in ("P", "L", "RGB")
            else {}
        )
        image.save(out, "PNG", optimize=True, **extra)
    else:
        mode = "RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB"
        image.convert(mode).save(out, "WEBP", quality=90)
    return out.getvalue()


def _shown_size(image: Image.Image) -> tuple[int, int]:
    """Width and height once the EXIF orientation is applied (5 to 8 turn the picture a
    quarter), read from the tag rather than from a turned copy of the pixels."""
    orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
    width, height = image.size
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def recommendations(width: int, height: int) -> list[Recommendation]:
    notes: list[Recommendation] = []
    if width * 9 != height * 16:
        notes.append({"code": "aspect_ratio", "message": "16:9 is recommended."})
    if width < RECOMMENDED_SIZE[0] or height < RECOMMENDED_SIZE[1]:
        notes.append({"code": "resolution", "message": "1280 x 720 px is recommended."})
    return notes


def store_ad_image(user_id: str, data: bytes) -> StoredImage:
    if len(data) > MAX_BYTES:
        raise ImageTooLarge()
    if not data:
        raise ValidationError(fields={"file": Problem("required")})
    image, source_format = _decode(data)
    # The size people will see: after the EXIF orientation is applied.
    width, height = _shown_size(image)
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        raise ValidationError(fields={"file": Problem("image_too_small")})
    extension, _ = FORMATS[source_format]
    encoded = _reencode(image)
    name = f"{secrets.token_urlsafe(24)}.{extension}"
    storage().save(name, encoded)
    with write_transaction():
        lock_member(user_id)
        AdImage.create(
            name=name,
            user=user_id,
            format=extension,
            width=width,
            height=height,
            bytes=len(encoded),
        )
        removed = _forget_unused(user_id, keep=name)
    for old in removed:  # after the commit: a file is gone only once its row is
        storage().delete(old)
    return StoredImage(
        name=name,
        url=f"{get_settings().public_base_url}{URL_PREFIX}{name}",
        format=extension,
        width=width,
        height=height,
        bytes=len(encoded),
        recommendations=recommendations(width, height),
    )


def _name_in(url: str) -> str | None:
    """The upload name a URL of ours points at, whatever base it was given with."""
    parts = urlsplit(url.strip())
    if not parts.path.startswith(URL_PREFIX) or parts.query or parts.fragment:
        return None
    return parts.path[len(URL_PREFIX) :]


def lock_member(user_id: str) -> None:
    """Until the transaction ends, the member's uploads and reservations are this
    transaction's to change: a lock on the member on PostgreSQL (SQLite's BEGIN IMMEDIATE
    already holds the only write lock). Uploads at once, and reservations placed at once
    (their count of unpaid holds, their image), take turns with each other and with the
    removal of unused uploads; each reads what the ones before it committed."""
    if is_postgres():
        db.execute_sql("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (UPLOADS_LOCK, user_id))


def _forget_unused(user_id: str, keep: str) -> list[str]:
    """Inside the upload's write transaction, under lock_member: remove the rows of
    the member's unused uploads beyond the newest KEEP_UNUSED (`keep`, the new one,
    always stays); returns their names, whose files go once this commits."""
    names = [
        row.name
        for row in AdImage.select(AdImage.name)
        .where(AdImage.user == user_id)
        .order_by(AdImage.created_at.desc(), AdImage.name)
    ]
    used = {
        _name_in(row.image_url)
        for row in AdReservation.select(AdReservation.image_url).where(
            AdReservation.user == user_id
        )
    }
    unused = [n for n in names if n not in used and n != keep]
    removed = unused[KEEP_UNUSED - 1 :]
    if removed:
        AdImage.delete().where(AdImage.name.in_(removed)).execute()
    return removed


def hold_uploaded_image(url: str, user_id: str) -> None:
    """Inside a reservation's write transaction: the image is still the member's upload,
    and is not removed before the transaction ends."""
    lock_member(user_id)
    name = _name_in(url)
    held = AdImage.select().where((AdImage.name == name) & (AdImage.user == user_id)).exists()
    if name is None or not held:
        raise ValidationError(fields={"image_url": NOT_UPLOADED})


def uploaded_image(url: object, user_id: str) -> AdImage | None:
    """The upload an image URL points at, when it is one of ours and the user's."""
    if not isinstance(url, str):
        return None
    parts = urlsplit(url.strip())
    base = urlsplit(get_settings().public_base_url)
    if parts.netloc and (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
        return None
    if not parts.path.startswith(URL_PREFIX) or parts.query or parts.fragment:
        return None
    name = parts.path[len(URL_PREFIX) :]
    image = AdImage.get_or_none((AdImage.name == name) & (AdImage.user == user_id))
    return image if image and storage().exists(name) else None
