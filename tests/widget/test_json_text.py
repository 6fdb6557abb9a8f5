from __future__ import annotations

import json

import pytest

from ipyask._json_text import one_pass

VALUES = [
    {"b": [1.5, None, True, "é\u2028"], "a": {"y": "x", "c": 1}},
    "a lone \ud800 surrogate",
    3,
    [],
    {"nan": float("nan")},
]


@pytest.mark.parametrize(
    "encoder",
    [
        json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False),
        json.JSONEncoder(ensure_ascii=True, check_circular=False),
        json.JSONEncoder(
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
            check_circular=False,
        ),
    ],
)
def test_one_pass_writes_what_the_encoder_writes(encoder: json.JSONEncoder) -> None:
    chunks = one_pass(encoder)
    for value in VALUES:
        if not encoder.allow_nan and value == VALUES[-1]:
            with pytest.raises(ValueError, match="Out of range float"):
                "".join(chunks(value, 0))
            continue
        assert "".join(chunks(value, 0)) == encoder.encode(value)
    with pytest.raises(TypeError, match="not JSON serializable"):
        "".join(chunks({"a": object()}, 0))


def test_one_pass_refuses_an_encoder_that_checks_for_cycles() -> None:
    with pytest.raises(ValueError, match="check_circular"):
        one_pass(json.JSONEncoder())
