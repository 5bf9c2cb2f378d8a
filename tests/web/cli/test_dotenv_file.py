"""`make run` (subsearch dev) keeps one SECRET_KEY in `.env`: written on the first start,
kept after, so a member signed in before a restart is still signed in after it."""

from __future__ import annotations

import threading
from dataclasses import replace

from click.testing import CliRunner
from dotenv import dotenv_values

from models.settings import load_settings
from tests.factories import sign_in
from web.app import create_app
from web.cli import main
from web.cli.dotenv_file import prepare_dotenv

SAMPLE = "# comment kept\nAPP_ENV=development\nSECRET_KEY=\nDATABASE_URL=sqlite:///var/x.db\n"


def _dev_settings(monkeypatch, folder):
    monkeypatch.chdir(folder)
    for name in ("APP_ENV", "SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    return load_settings()


def test_the_first_start_makes_env_from_the_sample_with_a_random_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env.sample").write_text(SAMPLE)
    done = prepare_dotenv(environ={})
    written = (tmp_path / ".env").read_text()
    key = dotenv_values(tmp_path / ".env")["SECRET_KEY"]
    assert key and len(key) >= 32
    assert "# comment kept" in written and "DATABASE_URL=sqlite:///var/x.db" in written
    assert done == [
        "made .env from .env.sample",
        "wrote a random SECRET_KEY into .env (kept from now on)",
    ]
    assert prepare_dotenv(environ={}) == []  # the second start changes nothing
    assert dotenv_values(tmp_path / ".env")["SECRET_KEY"] == key


def test_a_key_already_there_or_in_the_environment_is_left_as_it_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SECRET_KEY=mine\n")
    assert prepare_dotenv(environ={}) == []
    assert (tmp_path / ".env").read_text() == "SECRET_KEY=mine\n"
    (tmp_path / ".env").write_text("SECRET_KEY=\n")
    assert prepare_dotenv(environ={"SECRET_KEY": "from-the-environment"}) == []
    assert (tmp_path / ".env").read_text() == "SECRET_KEY=\n"


def test_two_starts_at_once_end_with_one_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env.sample").write_text(SAMPLE)
    barrier = threading.Barrier(4)

    def start():
        barrier.wait()
        prepare_dotenv(environ={})

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    text = (tmp_path / ".env").read_text()
    assert text.count("SECRET_KEY=") == 1
    assert dotenv_values(tmp_path / ".env")["SECRET_KEY"]


def test_dev_writes_the_key_before_the_settings_read_it(tmp_path, monkeypatch):
    """`subsearch dev` prepares .env first; the command then fails here on purpose (no
    processes are started in a test) but the key is already written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env.sample").write_text(SAMPLE)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("APP_ENV", "development")
    started = []
    monkeypatch.setattr("web.cli.processes.ensure_redis", lambda *_: started.append(1) or 1 / 0)
    result = CliRunner().invoke(main, ["dev"])
    assert "wrote a random SECRET_KEY into .env" in result.output
    assert started  # it went on to start the rest
    assert dotenv_values(tmp_path / ".env")["SECRET_KEY"]


def test_a_member_signed_in_before_a_restart_is_signed_in_after_it(tmp_path, monkeypatch, settings):
    (tmp_path / ".env").write_text(SAMPLE)
    prepare_dotenv(tmp_path / ".env", environ={})
    before = _dev_settings(monkeypatch, tmp_path)
    after = _dev_settings(monkeypatch, tmp_path)  # the next start reads the file again
    assert before.secret_key == after.secret_key
    first = create_app(replace(settings, secret_key=before.secret_key)).test_client()
    member = sign_in(first, "stays@example.jp")
    cookie = first.get_cookie("subsearch_session")
    assert cookie is not None
    second = create_app(replace(settings, secret_key=after.secret_key)).test_client()
    second.set_cookie("subsearch_session", cookie.value)
    assert second.get("/api/me").get_json()["id"] == member["id"]
    # What a start with an empty key did: a new key, and the member signed out.
    fresh = create_app(replace(settings, secret_key="another-start")).test_client()
    fresh.set_cookie("subsearch_session", cookie.value)
    assert fresh.get("/api/me").status_code == 401
