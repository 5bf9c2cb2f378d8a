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
        self.invoice_payments: list[dict] = []
        self.refunds: list[dict] = []
        self.disputed: set[str] = set()  # payment intents charged back: not refundable
        # Checkout sessions and invoices tests put here (GET answers them as stored).
        self.checkout_sessions: dict[str, dict] = {}
        self.invoices: dict[str, dict] = {}  # in creation order, oldest first
        self.customers: dict[str, dict] = {}
        self.tax_rates: list[dict] = []  # in creation order
        # A POST's answer kept under its Idempotency-Key, as the provider keeps one for
        # at least 24 hours; clear it to play a repeat after the keys were pruned.
        self.answers: dict[str, tuple[str, dict, int, dict]] = {}

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
        status, payload = self.answer(request.method, request.path, self.requests[-1])
        response = Response(json.dumps(payload), status=status, mimetype="application/json")
        return response(environ, start_response)

    def answer(self, method, path, req):
        """The provider's idempotency layer: a POST repeated with the same key and the same
        parameters gets the first answer again; with other parameters, an error."""
        key = req["headers"].get("Idempotency-Key")
        if method != "POST" or not key:
            return self.route(method, path, req)
        if key in self.answers:
            first_path, first_form, status, payload = self.answers[key]
            if (first_path, first_form) != (path, req["form"]):
                return 400, error(
                    "idempotency_error",
                    None,
                    "Keys for idempotent requests can only be used with the same parameters "
                    "they were first used with.",
                )
            return status, payload
        status, payload = self.route(method, path, req)
        if status == 200:
            self.answers[key] = (path, req["form"], status, payload)
        return status, payload

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
        if (
            method == "GET"
            and parts[:3] == ["v1", "checkout", "sessions"]
            and len(parts) == 4
            and parts[3] in self.checkout_sessions
        ):
            session = dict(self.checkout_sessions[parts[3]])
            expand = [v for k, v in req["query"].items() if k.startswith("expand[")]
            if "invoice" in expand and isinstance(session.get("invoice"), str):
                session["invoice"] = self.invoices[session["invoice"]]
            return 200, session
        if method == "GET" and path == "/v1/tax_rates":
            found = [
                rate
                for rate in self.tax_rates
                if req["query"].get("active") in (None, str(rate["active"]).lower())
                and req["query"].get("inclusive") in (None, str(rate["inclusive"]).lower())
            ]
            return 200, {"object": "list", "url": "/v1/tax_rates", "data": found, "has_more": False}
        if method == "POST" and path == "/v1/tax_rates":
            rate = {
                "id": f"txr_{len(self.tax_rates) + 1}",
                "object": "tax_rate",
                "active": True,
                "country": form.get("country"),
                "description": form.get("description"),
                "display_name": form["display_name"],
                "inclusive": form["inclusive"] == "true",
                "jurisdiction": form.get("jurisdiction"),
                "percentage": float(form["percentage"]),
                "tax_type": form.get("tax_type"),
                "metadata": _nested(form, "metadata"),
            }
            self.tax_rates.append(rate)
            return 200, rate
        if method == "GET" and path == "/v1/invoices":
            return 200, self.list_invoices(req["query"])
        if method == "GET" and parts[:2] == ["v1", "invoices"] and len(parts) == 3:
            found = self.invoices.get(parts[2])
            if not found:
                return 404, error(
                    "invalid_request_error", "resource_missing", f"No such invoice: '{parts[2]}'"
                )
            return 200, found
        if method == "POST" and parts[:2] == ["v1", "customers"] and len(parts) == 3:
            if parts[2] not in self.customers:
                return 404, error(
                    "invalid_request_error", "resource_missing", f"No such customer: '{parts[2]}'"
                )
            self.customers[parts[2]]["updates"] = self.customers[parts[2]].get("updates", 0) + 1
            return 200, {"id": parts[2], "object": "customer"}
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
        if method == "DELETE" and parts[:2] == ["v1", "subscriptions"] and len(parts) == 3:
            return self.cancel_subscription(parts[2])
        if method == "GET" and path == "/v1/invoice_payments":
            return 200, self.list_invoice_payments(req["query"])
        if method == "POST" and path == "/v1/refunds":
            return self.create_refund(form)
        if method == "GET" and path == "/v1/refunds":
            intent = req["query"].get("payment_intent")
            found = [r for r in self.refunds if intent in (None, r["payment_intent"])]
            return 200, {"object": "list", "url": "/v1/refunds", "data": found, "has_more": False}
        if method == "GET" and parts[:2] == ["v1", "payment_intents"] and len(parts) == 3:
            intent = next((i for i in self.intents if i["id"] == parts[2]), None)
            if intent is None:
                return 404, error("invalid_request_error", "resource_missing", "No such intent")
            return 200, intent
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

    def cancel_subscription(self, subscription_id):
        """DELETE /v1/subscriptions/:id: ended now; its invoices stay as they were."""
        found = self.subscriptions.get(subscription_id)
        if not found:
            return 404, error(
                "invalid_request_error",
                "resource_missing",
                f"No such subscription: '{subscription_id}'",
            )
        found.update(status="canceled", canceled_at=1_800_000_100, ended_at=1_800_000_100)
        return 200, found

    def list_invoices(self, query):
        """GET /v1/invoices?customer=...&status=...: newest first, a page of `limit` (10 by
        default) after `starting_after`."""
        matching = [
            i
            for i in reversed(self.invoices.values())
            if i["customer"] == query.get("customer", i["customer"])
            and i["status"] == query.get("status", i["status"])
        ]
        ids = [i["id"] for i in matching]
        after = query.get("starting_after")
        start = 0 if after is None else ids.index(after) + 1
        limit = int(query.get("limit", 10))
        return {
            "object": "list",
            "url": "/v1/invoices",
            "data": matching[start : start + limit],
            "has_more": start + limit < len(matching),
        }

    def list_invoice_payments(self, query):
        """GET /v1/invoice_payments?invoice=...&status=...: a page of `limit` (10 by
        default) after `starting_after`."""
        matching = [
            p
            for p in self.invoice_payments
            if p["invoice"] == query.get("invoice", p["invoice"])
            and p["status"] == query.get("status", p["status"])
        ]
        ids = [p["id"] for p in matching]
        after = query.get("starting_after")
        start = 0 if after is None else ids.index(after) + 1
        limit = int(query.get("limit", 10))
        return {
            "object": "list",
            "url": "/v1/invoice_payments",
            "data": matching[start : start + limit],
            "has_more": start + limit < len(matching),
        }

    def create_refund(self, form):
        """POST /v1/refunds for a payment intent: the whole amount received unless
        `amount` says less; refused for a payment charged back or refunded already."""
        intent_id = form.get("payment_intent")
        intent = next((i for i in self.intents if i["id"] == intent_id), None)
        if intent is None:
            return 404, error(
                "invalid_request_error",
                "resource_missing",
                f"No such payment_intent: '{intent_id}'",
            )
        charge = intent.get("latest_charge", f"ch_{intent_id}")
        if intent_id in self.disputed:
            return 400, error(
                "invalid_request_error",
                "charge_disputed",
                f"Charge {charge} has been charged back; cannot issue a refund.",
            )
        refunded = sum(r["amount"] for r in self.refunds if r["payment_intent"] == intent_id)
        left = int(intent["amount_received"]) - refunded
        if left <= 0:
            return 400, error(
                "invalid_request_error",
                "charge_already_refunded",
                f"Charge {charge} has already been refunded.",
            )
        amount = int(form.get("amount", left))
        if amount > left:
            return 400, error(
                "invalid_request_error",
                "amount_too_large",
                f"Refund amount ({amount}) is greater than unrefunded amount on charge ({left})",
            )
        refund = {
            "id": f"re_{len(self.refunds) + 1}",
            "object": "refund",
            "amount": amount,
            "currency": intent["currency"],
            "charge": charge,
            "payment_intent": intent_id,
            "reason": form.get("reason"),
            "status": "succeeded",
            "metadata": _nested(form, "metadata"),
        }
        self.refunds.append(refund)
        return 200, refund


def error(kind, code, message):
    return {"error": {"type": kind, "code": code, "message": message}}


def _nested(form, prefix):
    start = f"{prefix}["
    return {
        k[len(start) : -1]: v for k, v in form.items() if k.startswith(start) and k.count("[") == 1
    }
