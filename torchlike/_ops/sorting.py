"""Sorting and searching."""
