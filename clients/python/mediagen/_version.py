"""The SDK's version, sent in User-Agent (kept equal to pyproject.toml's by tests/test_models.py)."""

__version__ = "1.1.0"
