"""The TypedDicts of mediagen.types against the OpenAPI document of the running service: every field
a class names exists in its schema, the required fields are the schema's required fields, and each
Literal lists exactly the schema's enum. A field the document gains that is optional may be absent
here (older SDKs keep working); a required one may not."""

import re
import typing
import unittest
from pathlib import Path

import httpx

import mediagen
from mediagen import types as t

from support import BASE_URL, needs_stack

CLASSES = {
    t.VideoGenerateParams: "VideoSubmitBody",
    t.ImageGenerateParams: "ImageSubmitBody",
    t.MediaItem: "MediaItem",
    t.SubmitResponse: "SubmitResponse",
    t.Task: "PollResponse",
    t.TaskListItem: "TaskListItem",
    t.TaskPage: "TaskListResponse",
    t.CancelResult: "CancelResponse",
    t.Balance: "BalanceResponse",
    t.Quote: "QuoteResponse",
    t.ErrorDetail: "ErrorDetail",
    t.WebhookEvent: "WebhookEvent",
}


def literal_values(tp):
    """The values of the Literal inside Optional[...] / List[...], or None when the type has none."""
    if typing.get_origin(tp) is typing.Literal:
        return set(typing.get_args(tp))
    for arg in typing.get_args(tp):
        found = literal_values(arg)
        if found is not None:
            return found
    return None


def schema_enum(prop, schemas):
    if "$ref" in prop:
        prop = schemas[prop["$ref"].rsplit("/", 1)[1]]
    if "enum" in prop:
        return {v for v in prop["enum"] if v is not None}
    if "const" in prop:
        return {prop["const"]}
    for key in ("anyOf", "oneOf"):
        for p in prop.get(key, []):
            e = schema_enum(p, schemas)
            if e:
                return e
    if prop.get("type") == "array" or "items" in prop:
        return schema_enum(prop.get("items", {}), schemas)
    return None


class Models(unittest.TestCase):
    def test_version_matches_pyproject(self):
        text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
        self.assertEqual(re.search(r'^version = "([^"]+)"', text, re.M).group(1), mediagen.__version__)

    @needs_stack
    def test_typed_dicts_match_the_openapi_document(self):
        doc = httpx.get(f"{BASE_URL}/openapi.json", timeout=30).json()
        schemas = doc["components"]["schemas"]
        pairs = [(cls, schemas[name], name) for cls, name in CLASSES.items()]
        pairs.append((t.WebhookEventData, schemas["WebhookEvent"]["properties"]["data"], "WebhookEvent.data"))
        problems = []
        for cls, schema, name in pairs:
            props = schema.get("properties", {})
            hints = typing.get_type_hints(cls)
            for field in hints:
                if field not in props:
                    problems.append(f"{cls.__name__}.{field}: not in {name}")
            if set(cls.__required_keys__) != set(schema.get("required", [])):
                problems.append(f"{cls.__name__}: required {sorted(cls.__required_keys__)} != {name} required {sorted(schema.get('required', []))}")
            for field, tp in hints.items():
                ours = literal_values(tp)
                if ours is None or field not in props:
                    continue
                theirs = schema_enum(props[field], schemas)
                if theirs is not None and ours != theirs:
                    problems.append(f"{cls.__name__}.{field}: {sorted(map(str, ours))} != {name} enum {sorted(map(str, theirs))}")
        self.assertEqual(problems, [])


if __name__ == "__main__":
    unittest.main()
