"""The JSON of every column and content hash is made by encoders built once (transcripts/db.py);
they must write exactly what ``json.JSONEncoder`` with the same settings writes, or content hashes
of new turns would stop matching those of stored ones."""

from __future__ import annotations

import enum
import json
from pathlib import Path

import numpy as np
import pytest

from agentkit.transcripts.db import canonical_json, dumps, json_default


class Colour(enum.Enum):
    GREEN = "green"


VALUES = [
    None,
    True,
    7,
    -0.1,
    float("nan"),
    float("-inf"),
    'é \u2028 "quoted" \\ \x00',
    {"b": 1, "a": [1, 2, {"z": None}], "c": {"y": "x"}},
    [np.int64(3), np.float32(0.5), np.arange(3), np.bool_(True)],
    {"path": Path("arena/task.yaml"), "colour": Colour.GREEN, "set": {3, 1}},
    {1: "int key", 2: (1, 2)},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_built_once_encoders_write_what_json_writes(value: object) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False, default=json_default)
    expected = json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=json_default
    )
    assert canonical_json(value) == expected.encode("utf-8")


def test_mixed_key_types_are_refused_by_the_canonical_form_as_by_json() -> None:
    with pytest.raises(TypeError):
        canonical_json({2: "a", "b": 1})
    with pytest.raises(TypeError, match="raw bytes"):
        dumps({"frame": b"\xff\xd8"})


@pytest.mark.parametrize("value", VALUES[:-1], ids=range(len(VALUES) - 1))
def test_the_turn_writer_writes_json_columns_as_sqlalchemy_would(tmp_path: Path, value: object) -> None:
    """The SQLite turn writer calls ``dumps`` itself for JSON columns (sqlite_turn_writer._json_text);
    SQLAlchemy's own JSON bind processor must give the same text for every value."""
    from agentkit.transcripts import TranscriptStore
    from agentkit.transcripts.sqlite_turn_writer import MESSAGES, TURNS, _bind_processor

    with TranscriptStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        dialect = store.engine.dialect
        for column in (TURNS.c.observation, MESSAGES.c.extra):  # JSON, and JSON(none_as_null=True)
            theirs = column.type.dialect_impl(dialect).bind_processor(dialect)
            ours = _bind_processor(column.type, dialect)
            assert theirs is not None and ours is not theirs
            assert ours(value) == theirs(value) and ours(None) == theirs(None)
