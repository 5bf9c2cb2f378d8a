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

from PIL import Image, ImageOps, UnidentifiedImageError

from models.errors import DomainError, ValidationError
from models.settings import get_settings
from models.tables import AdImage

MAX_BYTES = 500 * 1024
MIN_SIZE = (640, 360)
RECOMMENDED_SIZE = (1280, 720)
FORMATS = {
    "JPEG": ("jpg", "image/jpeg"),
    "PNG": ("png", "image/png"),
    "WEBP": ("webp", "image/webp"),
}
URL_PREFIX = "/uploads/"
# A small file can still claim huge dimensions; refuse before decoding pixels.
MAX_PIXELS = 40_000_000


class ImageTooLarge(DomainError):
    code = "image_too_large"
    status = 413
    message = "The image is larger than 500 KB."


class ImageStorage(Protocol):
    def save(self, name: str, data: bytes) -> None: ...

    def exists(self, name: str) -> bool: ...

    def path(self, name: str) -> Path: ...


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


def _decode(data: bytes) -> tuple[Image.Image, str]:
    """The decoded image and its format, one of FORMATS."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            probe = Image.open(io.BytesIO(data))
            if probe.width * probe.height > MAX_PIXELS:
                raise ValidationError(fields={"file": "the image has too many pixels"})
            probe.verify()
            image = Image.open(io.BytesIO(data))
            image.load()
        except (
            UnidentifiedImageError,
            OSError,
            SyntaxError,
            ValueError,
            Image.DecompressionBombError,
            Image.DecompressionBombWarning,
        ):
            raise ValidationError(fields={"file": "not a readable image"}) from None
    if image.format == "MPO":
        # Phones write JPEGs with extra frames (depth, gain maps): keep the photo.
        image.seek(0)
        image.format = "JPEG"
    if image.format is None or image.format not in FORMATS:
        raise ValidationError(fields={"file": "must be a JPG, PNG or WebP image"})
    return image, image.format


def _reencode(image: Image.Image) -> bytes:
    """The pixels only: EXIF, ICC text chunks, comments and the like are dropped; the
    EXIF orientation is applied first so the picture still shows the right way up."""
    source_format = image.format
    transparency = image.info.get("transparency")
    image = ImageOps.exif_transpose(image)
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
        raise ValidationError(fields={"file": "required"})
    image, source_format = _decode(data)
    # The size people will see: after the EXIF orientation is applied.
    width, height = ImageOps.exif_transpose(image).size
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        raise ValidationError(fields={"file": "at least 640 x 360 px"})
    extension, _ = FORMATS[source_format]
    encoded = _reencode(image)
    name = f"{secrets.token_urlsafe(24)}.{extension}"
    storage().save(name, encoded)
    AdImage.create(
        name=name, user=user_id, format=extension, width=width, height=height, bytes=len(encoded)
    )
    return StoredImage(
        name=name,
        url=f"{get_settings().public_base_url}{URL_PREFIX}{name}",
        format=extension,
        width=width,
        height=height,
        bytes=len(encoded),
        recommendations=recommendations(width, height),
    )


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
