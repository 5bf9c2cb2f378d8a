"""Data and the business rules that read and write it."""
