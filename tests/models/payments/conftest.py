"""The stripe engine's tests: a local stand-in of the provider's API, and the engine
pointed at it."""

from __future__ import annotations

import pytest

from models.payments.stripe_engine import StripeProvider
from tests.fakes.http import serve
from tests.fakes.stripe_server import FakeStripe


@pytest.fixture
def fake():
    return FakeStripe()


@pytest.fixture
def provider(fake):
    with serve(fake) as url:
        yield StripeProvider("sk_test_fake", api_base=url)
