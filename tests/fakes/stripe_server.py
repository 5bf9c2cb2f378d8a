"""A stand-in for the payment provider's HTTP API: records every request exactly as the
SDK sent it and answers with objects shaped like the provider's."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from werkzeug.wrappers import Request, Response


class FakeStripe:
    def __init__(self):
        self.requests: list[dict] = []
        self.prices = {
            "price_jp": {
                "id": "price_jp",
                "object": "price",
                "unit_amount": 50000,
                "currency": "jpy",
                "active": True,
                "product": "prod_ads",
                "recurring": None,
                "metadata": {},
            },
        }
        self.intents = []
        self.subscriptions = {}

    def last(self, method, path):
        return [r for r in self.requests if r["method"] == method and r["path"] == path][-1]

    def __call__(self, environ, start_response):
        request = Request(environ)
        body = request.get_data(as_text=True)
        self.requests.append(
            {
                "method": request.method,
                "path": request.path,
                "form": dict(parse_qsl(body, keep_blank_values=True)),
                "query": dict(parse_qsl(request.query_string.decode(), keep_blank_values=True)),
                "headers": dict(request.headers),
            }
        )
        status, payload = self.route(request.method, request.path, self.requests[-1])
        response = Response(json.dumps(payload), status=status, mimetype="application/json")
        return response(environ, start_response)

    def route(self, method, path, req):
        form = req["form"]
        auth = req["headers"].get("Authorization", "")
        if auth != "Bearer sk_test_fake":
            return 401, error("invalid_request_error", None, "Invalid API Key provided")
        parts = path.strip("/").split("/")
        if method == "POST" and path == "/v1/checkout/sessions":
            return 200, {
                "id": "cs_test_1",
                "object": "checkout.session",
                "mode": form["mode"],
                "status": "open",
                "url": "https://checkout.example/c/pay/cs_test_1",
                "expires_at": int(form.get("expires_at", 0)) or None,
                "customer": form.get("customer"),
                "payment_intent": None,
                "subscription": None,
                "metadata": _nested(form, "metadata"),
            }
        if (
            method == "POST"
            and parts[:3] == ["v1", "checkout", "sessions"]
            and parts[4:] == ["expire"]
        ):
            # As the provider does: only an open session can be expired.
            if parts[3] == "cs_complete":
                return 400, error(
                    "invalid_request_error",
                    None,
                    'Only Checkout Sessions with a status in ["open"] can be expired.',
                )
            return 200, {
                "id": parts[3],
                "object": "checkout.session",
                "mode": "payment",
                "status": "expired",
                "url": None,
                "payment_intent": None,
                "metadata": {},
            }
        if method == "GET" and parts[:3] == ["v1", "checkout", "sessions"] and len(parts) == 4:
            return 200, {
                "id": parts[3],
                "object": "checkout.session",
                "mode": "payment",
                "status": "complete",
                "url": None,
                "payment_intent": "pi_paid",
                "metadata": {"ad_reservation_id": "r-1"},
            }
        if method == "GET" and parts[:2] == ["v1", "prices"] and len(parts) == 3:
            found = self.prices.get(parts[2])
            if not found:
                return 404, error(
                    "invalid_request_error", "resource_missing", f"No such price: '{parts[2]}'"
                )
            return 200, found
        if method == "POST" and path == "/v1/prices":
            if int(form["unit_amount"]) <= 0:
                return 400, error(
                    "invalid_request_error", "parameter_invalid_integer", "Invalid unit_amount"
                )
            price = {
                "id": "price_new",
                "object": "price",
                "unit_amount": int(form["unit_amount"]),
                "currency": form["currency"],
                "active": True,
                "product": form.get("product", "prod_new"),
                "recurring": None,
                "metadata": _nested(form, "metadata"),
            }
            self.prices["price_new"] = price
            return 200, price
        if method == "POST" and parts[:2] == ["v1", "prices"] and len(parts) == 3:
            price = dict(self.prices[parts[2]])
            price["active"] = form.get("active") != "false"
            self.prices[parts[2]] = price
            return 200, price
        if method == "POST" and path == "/v1/customers":
            return 200, {"id": "cus_test_1", "object": "customer", "email": form.get("email")}
        if method == "GET" and parts[:2] == ["v1", "subscriptions"]:
            found = self.subscriptions.get(parts[2])
            if not found:
                return 404, error("invalid_request_error", "resource_missing", "No such sub")
            return 200, found
        if method == "GET" and path == "/v1/payment_intents":
            after = req["query"].get("starting_after")
            start = 0 if after is None else [i["id"] for i in self.intents].index(after) + 1
            page = self.intents[start : start + 2]
            return 200, {
                "object": "list",
                "url": "/v1/payment_intents",
                "data": page,
                "has_more": start + 2 < len(self.intents),
            }
        if path == "/v1/overloaded":
            return 500, error("api_error", None, "overloaded")
        return 404, error("invalid_request_error", "resource_missing", f"no route {path}")


def error(kind, code, message):
    return {"error": {"type": kind, "code": code, "message": message}}


def _nested(form, prefix):
    start = f"{prefix}["
    return {
        k[len(start) : -1]: v for k, v in form.items() if k.startswith(start) and k.count("[") == 1
    }
