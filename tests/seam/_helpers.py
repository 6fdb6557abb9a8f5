"""Builders shared by the seam tests: questions, answer batches, a loop drain."""

from __future__ import annotations

import ipyask
from ipyask.testing import drain_loop

drain = drain_loop


def question(qid: str = "q1", *labels: str, **extra: object) -> dict[str, object]:
    item: dict[str, object] = {"id": qid, "question": f"Question {qid}?"}
    if labels:
        item["options"] = [{"label": label} for label in labels]
    item.update(extra)
    return item


def answer(*items: tuple[str, list[str]]) -> ipyask.protocol.AskUserQuestionAnswer:
    return ipyask.protocol.AskUserQuestionAnswer.model_validate(
        {"answers": [{"id": qid, "selected": selected} for qid, selected in items]}
    )
