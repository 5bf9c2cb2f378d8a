"""The API's declared shapes (pydantic v2): requests validated through them, answers
checked against them, and the OpenAPI document generated from them."""
