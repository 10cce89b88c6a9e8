"""Operator tools run from the repository root (`python -m ops.<tool>`), never by a Lambda."""
