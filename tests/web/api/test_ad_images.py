"""POST /api/uploads/ad-image and GET /uploads/<name>: real images made with Pillow,
judged by their content, size-limited, re-encoded without metadata, stored under an
unguessable name (docs/ads.md, Images)."""

from __future__ import annotations

import io
import random
import re
import struct
import time
import zlib
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import pytest
from PIL import Image, ImageFile, PngImagePlugin
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from models.tables import AdImage
from tests.factories import csrf_token, make_user, sign_in

UPLOAD = "/api/uploads/ad-image"
LIMIT = 500 * 1024
MIME = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
EXTENSION = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}
EXIF_MAKE = 0x010F
EXIF_MODEL = 0x0110
EXIF_ORIENTATION = 0x0112
EXIF_GPS_IFD = 0x8825
GPS_LATITUDE_REF = 1


# --- helpers ------------------------------------------------------------------------------


def picture(width=1280, height=720) -> Image.Image:
    """A picture with some content, not a flat colour: a grey gradient from black at the
    top to white at the bottom, and a red block in the top-left corner."""
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    image.paste(Image.new("RGB", (width // 4, height // 4), "red"), (8, 8))
    return image


def noise(width, height, seed=1) -> Image.Image:
    """Random pixels: they do not compress, so the file is about 3 bytes a pixel."""
    return Image.frombytes(
        "RGB", (width, height), random.Random(seed).randbytes(width * height * 3)
    )


def encode(image: Image.Image, fmt: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def post_file(client, data: bytes, filename="ad.png", mimetype="application/octet-stream"):
    return post_parts(client, file=FileStorage(io.BytesIO(data), filename, content_type=mimetype))


def post_parts(client, **parts):
    """A multipart POST encoded up front: the test client would spool a body over 500 KB
    to a temporary file that it never closes."""
    boundary, body = encode_multipart(parts)
    return client.post(
        UPLOAD,
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
        headers={"X-CSRFToken": csrf_token(client)},
    )


def stored_name(body) -> str:
    path = urlsplit(body["url"]).path
    assert path.startswith("/uploads/"), path
    return PurePosixPath(path).name


def stored_file(settings, body) -> Path:
    return Path(settings.upload_dir) / stored_name(body)


def stored_image(settings, body) -> Image.Image:
    return Image.open(io.BytesIO(stored_file(settings, body).read_bytes()))


def upload_dir_listing(settings) -> set[str]:
    folder = Path(settings.upload_dir)
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def field_error(response) -> dict:
    body = response.get_json()
    assert body["error"]["code"] == "invalid_request", body
    return body["error"]["fields"]


@pytest.fixture
def user(client):
    user = make_user()
    sign_in(client, user)
    return user


# --- accepted formats ------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_a_1280x720_image_is_stored_and_described(client, user, settings, fmt):
    # Given a signed-in user and a 1280x720 image
    data = encode(picture(1280, 720), fmt)
    # When it is uploaded
    response = post_file(client, data, filename=f"banner.{EXTENSION[fmt]}")
    # Then it is stored and described, with nothing to recommend
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"url", "width", "height", "format", "bytes", "recommendations"}
    assert (body["width"], body["height"]) == (1280, 720)
    assert body["format"] == EXTENSION[fmt]
    assert body["recommendations"] == []
    assert urlsplit(body["url"]).path.startswith("/uploads/")
    assert body["bytes"] == stored_file(settings, body).stat().st_size


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_the_stored_image_is_served_in_its_format(client, user, fmt):
    # Given an uploaded image
    body = post_file(client, encode(picture(1280, 720), fmt)).get_json()
    # When its URL is fetched
    with client.get(urlsplit(body["url"]).path) as response:
        content = response.get_data()
    # Then the image comes back with its own content type and decodes as that format
    assert response.status_code == 200
    assert response.mimetype == MIME[fmt]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    served = Image.open(io.BytesIO(content))
    assert served.format == fmt
    assert served.size == (1280, 720)
    assert len(content) == body["bytes"]


def test_the_upload_is_recorded_as_the_users(client, user):
    # When a user uploads an image
    body = post_file(client, encode(picture(), "PNG")).get_json()
    # Then the row names the user and the stored file's description
    row = AdImage.get_by_id(PurePosixPath(urlsplit(body["url"]).path).name)
    assert row.user_id == user.id
    assert (row.format, row.width, row.height, row.bytes) == ("png", 1280, 720, body["bytes"])


def test_the_format_comes_from_the_content_not_the_file_name(client, user):
    # Given a PNG sent under a .jpg name with a JPEG content type
    data = encode(picture(), "PNG")
    # When it is uploaded
    response = post_file(client, data, filename="photo.jpg", mimetype="image/jpeg")
    # Then it is stored as the PNG it is
    assert response.status_code == 201
    assert response.get_json()["format"] == "png"
    assert response.get_json()["url"].endswith(".png")


def test_an_unknown_upload_name_is_not_found(client):
    assert client.get("/uploads/no-such-image.png").status_code == 404


# --- dimensions and recommendations ---------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "codes"),
    [
        ((800, 600), ["aspect_ratio", "resolution"]),  # 4:3 and under 1280x720
        ((1280, 960), ["aspect_ratio"]),  # 4:3, large enough
        ((640, 360), ["resolution"]),  # 16:9, small
        ((1920, 1080), []),  # 16:9, above the recommendation
        ((1280, 720), []),
    ],
)
def test_recommendations_name_what_differs_from_1280x720_16_9(client, user, size, codes):
    # When an image of this size is uploaded
    response = post_file(client, encode(picture(*size), "PNG"))
    # Then it is accepted, with a recommendation for each thing that differs
    assert response.status_code == 201
    body = response.get_json()
    assert (body["width"], body["height"]) == size
    assert [note["code"] for note in body["recommendations"]] == codes
    assert all(note["message"] for note in body["recommendations"])


def test_exactly_640x360_is_accepted(client, user):
    response = post_file(client, encode(picture(640, 360), "JPEG"), filename="small.jpg")
    assert response.status_code == 201
    assert (response.get_json()["width"], response.get_json()["height"]) == (640, 360)


@pytest.mark.parametrize("size", [(639, 360), (640, 359), (320, 180), (2000, 300)])
def test_under_640x360_is_refused_and_nothing_is_stored(client, user, settings, size):
    # Given an image too small in one dimension
    before = upload_dir_listing(settings)
    # When it is uploaded
    response = post_file(client, encode(picture(*size), "PNG"))
    # Then it is refused on the file field, and neither a file nor a row is left behind
    assert response.status_code == 400
    assert "file" in field_error(response)
    assert upload_dir_listing(settings) == before
    assert AdImage.select().count() == 0


# --- refused content ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "mode", "options"),
    [
        ("GIF", "P", {}),
        ("BMP", "P", {}),  # 8-bit, so it stays under 500 KB
        ("TIFF", "RGB", {"compression": "tiff_deflate"}),
    ],
)
def test_another_image_format_is_refused_even_when_named_png(client, user, fmt, mode, options):
    # Given a real image of another format, under 500 KB and large enough, named .png
    data = encode(picture(640, 360).convert(mode), fmt, **options)
    assert Image.open(io.BytesIO(data)).format == fmt
    assert len(data) <= LIMIT
    # When it is uploaded
    response = post_file(client, data, filename="ad.png", mimetype="image/png")
    # Then it is refused for its format
    assert response.status_code == 400
    assert field_error(response) == {"file": "must be a JPG, PNG or WebP image"}
    assert AdImage.select().count() == 0


def test_a_text_file_named_as_a_jpeg_is_refused(client, user):
    response = post_file(client, b"just some text, not a picture\n" * 50, filename="image.jpg")
    assert response.status_code == 400
    assert "file" in field_error(response)


def test_a_truncated_png_is_refused(client, user):
    # Given a PNG cut off half-way through its pixel data
    data = encode(picture(1280, 720), "PNG")
    # When the first half is uploaded
    response = post_file(client, data[: len(data) // 2])
    # Then it is refused as unreadable, not stored broken
    assert response.status_code == 400
    assert "file" in field_error(response)
    assert AdImage.select().count() == 0


def test_an_empty_part_is_refused(client, user):
    response = post_file(client, b"", filename="ad.png")
    assert response.status_code == 400
    assert "file" in field_error(response)


def test_a_missing_part_is_refused(client, user):
    # Given a multipart body whose image is under another name than "file"
    image = FileStorage(io.BytesIO(encode(picture(), "PNG")), "ad.png", content_type="image/png")
    # When it is posted
    response = post_parts(client, image=image)
    # Then the missing "file" part is named
    assert response.status_code == 400
    assert "file" in field_error(response)


def test_a_json_body_is_not_accepted(client, user):
    response = client.post(UPLOAD, json={"file": "aGVsbG8="})
    assert 400 <= response.status_code < 500
    assert AdImage.select().count() == 0


def test_an_anonymous_upload_is_refused(client, settings):
    # Given nobody signed in
    before = upload_dir_listing(settings)
    # When an image is uploaded
    response = post_file(client, encode(picture(), "PNG"))
    # Then sign-in is asked for and nothing is stored
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthenticated"
    assert upload_dir_listing(settings) == before


# --- size limit ----------------------------------------------------------------------------------


def png_of_exactly(total: int) -> bytes:
    """A valid 1280x720 PNG padded with a tEXt chunk to exactly `total` bytes."""
    base = encode(picture(), "PNG")
    keyword = "Comment"
    overhead = 12 + len(keyword) + 1  # length, type, CRC; keyword and its NUL
    info = PngImagePlugin.PngInfo()
    info.add_text(keyword, "x" * (total - len(base) - overhead))
    data = encode(picture(), "PNG", pnginfo=info)
    assert len(data) == total
    return data


def test_an_image_of_exactly_500_kb_is_accepted(client, user):
    response = post_file(client, png_of_exactly(LIMIT))
    assert response.status_code == 201, response.get_data(as_text=True)


def test_one_byte_over_500_kb_is_too_large(client, user):
    response = post_file(client, png_of_exactly(LIMIT + 1))
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "image_too_large"


def test_a_noisy_png_over_500_kb_is_too_large_and_not_stored(client, user, settings):
    # Given a valid 640x360 PNG of random pixels, well over 500 KB
    data = encode(noise(640, 360), "PNG")
    assert LIMIT < len(data) < 2 * 1024 * 1024
    before = upload_dir_listing(settings)
    # When it is uploaded
    response = post_file(client, data)
    # Then it is too large, and nothing is stored
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "image_too_large"
    assert upload_dir_listing(settings) == before
    assert AdImage.select().count() == 0


def test_a_small_jpeg_padded_over_500_kb_with_metadata_is_too_large(client, user):
    # Given a plain 1280x720 JPEG made larger than 500 KB by a comment, an EXIF block and
    # an ICC block (split over several APP2 markers): still a valid, decodable JPEG
    exif = Image.Exif()
    exif[EXIF_MODEL] = "x" * 60_000
    plain = encode(picture(), "JPEG")
    data = encode(picture(), "JPEG", comment=b"c" * 60_000, exif=exif, icc_profile=b"\0" * 450_000)
    assert len(plain) < 100 * 1024 < LIMIT < len(data)
    Image.open(io.BytesIO(data)).load()
    # When it is uploaded
    response = post_file(client, data, filename="photo.jpg")
    # Then it is too large: the limit is on the file's bytes, not its pixels
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "image_too_large"


def test_a_body_over_the_request_limit_still_answers_image_too_large(client, user):
    # Given a noisy 1280x720 PNG, larger than any request body the app reads (2 MB)
    data = encode(noise(1280, 720), "PNG")
    assert len(data) > 2 * 1024 * 1024
    # When it is uploaded
    response = post_file(client, data)
    # Then the answer is still the upload's own error
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "image_too_large"


# --- metadata is not kept --------------------------------------------------------------------


def test_a_jpeg_comes_back_without_its_exif(client, user, settings):
    # Given a JPEG carrying a camera make and a GPS position
    exif = Image.Exif()
    exif[EXIF_MAKE] = "SpyCam"
    exif[EXIF_MODEL] = "Model 7"
    exif.get_ifd(EXIF_GPS_IFD)[GPS_LATITUDE_REF] = "N"
    data = encode(picture(), "JPEG", exif=exif)
    sent = Image.open(io.BytesIO(data)).getexif()
    assert sent[EXIF_MAKE] == "SpyCam"
    assert sent.get_ifd(EXIF_GPS_IFD)
    # When it is uploaded
    body = post_file(client, data, filename="photo.jpg").get_json()
    # Then the stored file has no EXIF at all
    stored = stored_image(settings, body)
    assert stored.format == "JPEG"
    assert "exif" not in stored.info
    assert dict(stored.getexif()) == {}
    assert b"SpyCam" not in stored_file(settings, body).read_bytes()


def test_a_jpeg_comes_back_without_its_comment(client, user, settings):
    # Given a JPEG with a COM comment
    data = encode(picture(), "JPEG", comment=b"Taken at 35.6812,139.7671 by Taro")
    assert Image.open(io.BytesIO(data)).info["comment"]
    # When it is uploaded
    body = post_file(client, data, filename="photo.jpg").get_json()
    # Then the stored file carries no comment
    assert "comment" not in stored_image(settings, body).info
    assert b"Taro" not in stored_file(settings, body).read_bytes()


def test_a_png_comes_back_without_its_text_chunks(client, user, settings):
    # Given a PNG with tEXt, zTXt and iTXt chunks
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Taro Yamada")
    info.add_text("Comment", "secret note", zip=True)
    info.add_itxt("Description", "撮影場所: 自宅", lang="ja")
    data = encode(picture(), "PNG", pnginfo=info)
    assert Image.open(io.BytesIO(data)).text["Author"] == "Taro Yamada"
    # When it is uploaded
    body = post_file(client, data).get_json()
    # Then the stored PNG has no text at all
    stored = stored_image(settings, body)
    stored.load()
    assert stored.text == {}
    assert not {"Author", "Comment", "Description"} & set(stored.info)
    assert b"Taro" not in stored_file(settings, body).read_bytes()


def test_a_webp_comes_back_without_its_exif_and_xmp(client, user, settings):
    # Given a WebP with EXIF and XMP
    exif = Image.Exif()
    exif[EXIF_MAKE] = "SpyCam"
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">Taro</x:xmpmeta>'
    data = encode(picture(), "WEBP", exif=exif, xmp=xmp)
    assert Image.open(io.BytesIO(data)).getexif()[EXIF_MAKE] == "SpyCam"
    # When it is uploaded
    body = post_file(client, data, filename="ad.webp").get_json()
    # Then neither is kept
    stored = stored_image(settings, body)
    assert dict(stored.getexif()) == {}
    assert "exif" not in stored.info
    assert "xmp" not in stored.info
    raw = stored_file(settings, body).read_bytes()
    assert b"SpyCam" not in raw
    assert b"Taro" not in raw


def test_the_exif_orientation_is_applied_before_it_is_dropped(client, user, settings):
    # Given a 1280x720 JPEG whose EXIF says "upside down" (orientation 3)
    image = picture()
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = 3
    data = encode(image, "JPEG", exif=exif, quality=95)
    # When it is uploaded
    body = post_file(client, data, filename="photo.jpg").get_json()
    # Then the stored pixels are turned the right way up (the red block moves from the
    # top-left to the bottom-right) and no orientation is left to apply twice
    stored = stored_image(settings, body).convert("RGB")
    assert stored.size == (1280, 720)
    red_x, red_y = 1280 - 8 - 40, 720 - 8 - 40
    r, g, b = stored.getpixel((red_x, red_y))
    assert r > 200 and g < 60 and b < 60
    assert EXIF_ORIENTATION not in stored.getexif()


def test_the_reported_size_is_that_of_the_stored_rotated_image(client, user, settings):
    # Given a 1280x720 JPEG whose EXIF says "rotate 90" (orientation 6): it shows 720x1280
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = 6
    data = encode(picture(1280, 720), "JPEG", exif=exif)
    # When it is uploaded
    body = post_file(client, data, filename="photo.jpg").get_json()
    # Then the answer describes the picture as stored
    stored = stored_image(settings, body)
    assert stored.size == (720, 1280)
    assert (body["width"], body["height"]) == stored.size


def test_a_picture_under_640x360_as_shown_is_refused_even_if_its_pixels_are_not(client, user):
    # Given 640x360 pixels with "rotate 90" (orientation 6): people would see 360x640
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = 6
    data = encode(picture(640, 360), "JPEG", exif=exif)
    # When it is uploaded
    response = post_file(client, data, filename="photo.jpg")
    # Then it is too narrow
    assert response.status_code == 400
    assert field_error(response) == {"file": "at least 640 x 360 px"}


# --- pixels are kept -----------------------------------------------------------------------------


def half_transparent() -> Image.Image:
    """Red on the right half, fully transparent on the left half."""
    image = Image.new("RGBA", (1280, 720), (255, 0, 0, 255))
    image.paste((0, 0, 0, 0), (0, 0, 640, 720))
    return image


def alpha_at(image: Image.Image, xy) -> int:
    return image.convert("RGBA").getpixel(xy)[3]


@pytest.mark.parametrize(("fmt", "options"), [("PNG", {}), ("WEBP", {"lossless": True})])
def test_an_alpha_channel_is_kept(client, user, settings, fmt, options):
    # Given an image with an alpha channel, transparent on its left half
    data = encode(half_transparent(), fmt, **options)
    # When it is uploaded
    body = post_file(client, data, filename=f"ad.{EXTENSION[fmt]}").get_json()
    # Then the stored image is still transparent there, and opaque elsewhere
    stored = stored_image(settings, body)
    assert alpha_at(stored, (10, 10)) == 0
    assert alpha_at(stored, (1000, 10)) == 255


@pytest.mark.parametrize("mode", ["P", "RGB"])
def test_a_png_transparent_colour_is_kept(client, user, settings, mode):
    # Given a PNG whose transparency is a tRNS colour, not an alpha channel (a palette
    # PNG as pngquant or TinyPNG make them, or an RGB one with a key colour)
    image = Image.new("RGB", (1280, 720), (255, 0, 0))
    image.paste((0, 255, 0), (0, 0, 640, 720))
    if mode == "P":
        image = image.convert("P", palette=Image.Palette.ADAPTIVE, colors=2)
        key = image.getpixel((10, 10))
    else:
        key = (0, 255, 0)
    data = encode(image, "PNG", transparency=key)
    assert alpha_at(Image.open(io.BytesIO(data)), (10, 10)) == 0
    # When it is uploaded
    body = post_file(client, data).get_json()
    # Then the left half is still transparent
    stored = stored_image(settings, body)
    assert alpha_at(stored, (10, 10)) == 0
    assert alpha_at(stored, (1000, 10)) == 255


def test_a_16_bit_greyscale_png_keeps_its_grey_levels(client, user, settings):
    # Given a 16-bit greyscale PNG of mid grey (32768 of 65535)
    data = encode(Image.new("I;16", (1280, 720), 32768), "PNG")
    # When it is uploaded
    body = post_file(client, data).get_json()
    # Then it is still mid grey, not white
    red, green, blue = stored_image(settings, body).convert("RGB").getpixel((10, 10))
    assert 120 <= red <= 136
    assert red == green == blue


def test_a_jpeg_with_an_mpf_index_is_accepted_as_a_jpeg(client, user):
    # Given a JPEG carrying a second picture behind an MPF index (served as image/jpeg)
    data = encode(picture(), "MPO", save_all=True, append_images=[picture(640, 360)])
    assert data[:3] == b"\xff\xd8\xff"
    # When it is uploaded
    response = post_file(client, data, filename="IMG_0001.jpg", mimetype="image/jpeg")
    # Then it is stored as a JPEG
    assert response.status_code == 201
    assert response.get_json()["format"] == "jpg"


# --- names ---------------------------------------------------------------------------------------


def test_the_same_bytes_twice_get_two_unguessable_names(client, user, settings):
    # Given one image
    data = encode(picture(), "PNG")
    # When it is uploaded twice
    first = post_file(client, data, filename="same.png").get_json()
    second = post_file(client, data, filename="same.png").get_json()
    # Then each upload has its own random name, unrelated to the file name
    names = [stored_name(first), stored_name(second)]
    assert names[0] != names[1]
    for name in names:
        stem, extension = name.rsplit(".", 1)
        assert extension == "png"
        assert re.fullmatch(r"[A-Za-z0-9_-]{20,}", stem), name
        assert "same" not in stem
        assert (Path(settings.upload_dir) / name).is_file()
    assert AdImage.select().count() == 2


# --- decoded size is bounded before decoding (issue 26, finding 2) ---------------------------

# A lossless WebP of 6300 x 6300 white pixels: 38 bytes that decode to ~160 MB.
WEBP_6300 = bytes.fromhex(
    "524946461e000000574542505650384c110000002f9bd8260607d0fffef7bfff8188e87f0000"
)


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def one_bit_png(width: int, height: int) -> bytes:
    """A white 1-bit greyscale PNG, made without holding its pixels: ~15 KB at 6300 x 6300."""
    row = b"\x00" + b"\xff" * ((width + 7) // 8)
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(row * height, 9))
        + png_chunk(b"IEND", b"")
    )


@pytest.fixture
def decodes(monkeypatch):
    """Every time Pillow decodes pixels (loads an image), counted."""
    calls = []
    original = ImageFile.ImageFile.load

    def load(self):
        calls.append(self.size)
        return original(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    return calls


@pytest.mark.parametrize(
    "data",
    [WEBP_6300, one_bit_png(6300, 6300)],
    ids=["38-byte lossless webp", "15 KB 1-bit png"],
)
def test_a_small_file_of_6300x6300_px_is_refused_without_being_decoded(
    client, user, settings, decodes, data
):
    # Given a tiny file whose header claims 6300 x 6300 px (about 160 MB once decoded)
    assert len(data) < 20_000
    kept = upload_dir_listing(settings)
    # When it is uploaded
    started = time.monotonic()
    response = post_file(client, data)
    # Then it is refused at once, saying why, its pixels never decoded, and nothing kept
    # (`decodes` proves the pixels untouched; the bound only catches a hang,
    # on two cores busy with the other workers' tests)
    assert time.monotonic() - started < 5
    assert response.status_code == 400
    assert field_error(response) == {"file": "the image has too many pixels"}
    assert decodes == []
    assert upload_dir_listing(settings) == kept and AdImage.select().count() == 0


@pytest.mark.parametrize("size", [(4097, 720), (1280, 4097)])
def test_a_side_over_4096_px_is_refused(client, user, decodes, size):
    response = post_file(client, one_bit_png(*size))
    assert field_error(response) == {"file": "the image has too many pixels"}
    assert decodes == []


def test_an_image_of_a_4k_screens_pixels_is_accepted(client, user):
    response = post_file(client, one_bit_png(3840, 2160))
    assert response.status_code == 201
    assert (response.get_json()["width"], response.get_json()["height"]) == (3840, 2160)


def test_more_pixels_than_a_4k_screen_are_refused_though_each_side_fits(client, user, decodes):
    response = post_file(client, one_bit_png(4096, 4096))
    assert field_error(response) == {"file": "the image has too many pixels"}
    assert decodes == []
