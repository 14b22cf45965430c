"""Conventions of the reference tools that differ from divaleval's own, kept in one place."""
