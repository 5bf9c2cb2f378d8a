"""Relative paths in the settings are taken from the working directory, once, so the
web front finds uploaded images under the default UPLOAD_DIR=var/uploads (Flask would
resolve a relative folder from the web package: web/var/uploads)."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.ads.images import store_ad_image
from models.settings import get_settings, load_settings, use_settings
from tests.factories import image_bytes, make_user
from web.app import create_app

MIME = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}


def test_relative_paths_are_made_absolute_against_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = load_settings({}, read_dotenv=False)
    assert settings.upload_dir == str(tmp_path / "var" / "uploads")
    assert settings.search_path == str(tmp_path / "var" / "search.db")
    monkeypatch.chdir(Path(tmp_path).parent)  # a later change of directory changes nothing
    assert settings.upload_dir == str(tmp_path / "var" / "uploads")


def test_an_absolute_path_is_kept():
    settings = load_settings({"UPLOAD_DIR": "/srv/ads"}, read_dotenv=False)
    assert settings.upload_dir == "/srv/ads"


@pytest.fixture
def default_upload_dir(tmp_path, monkeypatch):
    """The app with the default UPLOAD_DIR, started from tmp_path as `make run` starts
    from the checkout."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("UPLOAD_DIR")
    previous = get_settings()
    settings = load_settings(read_dotenv=False)
    app = create_app(settings)
    yield app
    use_settings(previous)


def test_an_uploaded_image_is_served_with_the_default_upload_dir(default_upload_dir, tmp_path):
    data = image_bytes(1280, 720)
    stored = store_ad_image(make_user().id, data)
    name = stored.url.rsplit("/", 1)[1]
    assert (tmp_path / "var" / "uploads" / name).is_file()
    with default_upload_dir.test_client().get(f"/uploads/{name}") as response:
        assert response.status_code == 200
        assert (
            response.mimetype
            == {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}[stored.format]
        )
        assert response.get_data() == (tmp_path / "var" / "uploads" / name).read_bytes()
