"""The one blueprint of the pages for people, shared by the modules of web/pages, so
every page keeps its endpoint name (`pages.video`, `pages.own_ad`)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("pages", __name__)
