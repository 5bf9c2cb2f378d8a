"""Domain errors: raised by business rules, mapped to HTTP once (web/errors.py)."""

from __future__ import annotations

from collections.abc import Mapping


class DomainError(Exception):
    """A rule said no. `code` and `status` follow the contract's error format."""

    code = "invalid_request"
    status = 400
    message = "The request is not valid."

    def __init__(self, message: str | None = None, fields: Mapping[str, str] | None = None):
        super().__init__(message or self.message)
        self.message = message or self.message
        self.fields = dict(fields or {})


class ValidationError(DomainError):
    code = "invalid_request"
    status = 400
    message = "Some fields are not valid."


class NotFound(DomainError):
    code = "not_found"
    status = 404
    message = "Not found."


class Forbidden(DomainError):
    code = "forbidden"
    status = 403
    message = "You do not have access to this."


class Conflict(DomainError):
    code = "conflict"
    status = 409
    message = "The request conflicts with the current state."


class SignInFailed(DomainError):
    code = "sign_in_failed"
    status = 400
    message = "Sign-in could not be completed."
