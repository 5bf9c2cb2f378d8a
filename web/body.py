"""Reading request bodies and query values, with the contract's validation errors."""

from __future__ import annotations

from flask import request

from models.errors import ValidationError


def json_object() -> dict:
    """The JSON object body; a missing, malformed or non-object body is a 400."""
    if not request.is_json:
        raise ValidationError("Send the body as application/json.")
    data = request.get_json(silent=True)
    if data is None:
        raise ValidationError("The body is not valid JSON.")
    if not isinstance(data, dict):
        raise ValidationError("The body must be a JSON object.")
    return data


def required_text(data: dict, field: str, *, max_length: int = 200) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(fields={field: "required"})
    value = value.strip()
    if len(value) > max_length:
        raise ValidationError(fields={field: f"at most {max_length} characters"})
    return value


def email_field(data: dict, field: str = "email") -> str:
    value = required_text(data, field, max_length=254)
    local, _, domain = value.rpartition("@")
    if not local or "." not in domain or any(c.isspace() for c in value):
        raise ValidationError(fields={field: "not an e-mail address"})
    return value
