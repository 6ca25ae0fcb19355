"""Helpers shared by several test folders; not test modules (pytest collects nothing here)."""
