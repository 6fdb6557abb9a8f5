"""One-liners on a default service and panel: ``await ipyask.ask(...)`` and ``approve(...)``.

The first call in a cell shows the default panel in that cell's output; later calls in the same
cell reuse it. Outside a Jupyter kernel no panel exists and the default service answers only
through the answerers registered on it (``default_service().on_request(...)``), else
``NO_PROVIDER``. ``await`` in a cell goes through :func:`ipyask.bridge._blocking.in_cell`, which
makes it work (or fail clearly) on kernels that hold comm messages while a cell waits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._service import UserQuestions
from .._vocabulary import AskUserQuestionAnswerItem, AskUserQuestionRequest
from ._kernel_features import current_kernel
from ._panel import QuestionPanel

__all__ = ["approve", "ask", "default_panel", "default_service", "show_panel"]

_service: UserQuestions | None = None
_panel: QuestionPanel | None = None
_shown_in: set[str] = set()


def default_service() -> UserQuestions:
    """The service behind :func:`ask` and :func:`approve` (created on first use)."""
    global _service
    if _service is None or _service.closed:
        _service = UserQuestions()
    return _service


def default_panel() -> QuestionPanel:
    """The panel of the default service (created on first use)."""
    global _panel
    if _panel is None or _panel.closed:
        _panel = QuestionPanel(default_service())
        _shown_in.clear()
    return _panel


def _cell_id(kernel: Any) -> str | None:
    try:
        parent = kernel.get_parent("shell")
    except TypeError:  # ipykernel 6 takes no channel
        parent = kernel.get_parent()
    header = parent.get("header", {}) if isinstance(parent, dict) else {}
    msg_id = header.get("msg_id")
    return msg_id if isinstance(msg_id, str) else None


def _show() -> None:
    kernel = current_kernel()
    if kernel is None:  # plain Python: no panel would ever be answered
        return
    panel = default_panel()
    cell = _cell_id(kernel)
    if cell is not None and cell not in _shown_in:
        from IPython.display import display

        _shown_in.add(cell)
        display(panel)  # type: ignore[no-untyped-call]


def show_panel() -> QuestionPanel | None:
    """Show the default panel in this cell's output (once per cell) and return it.

    The one-liners do this themselves; call it in the cell that starts an agent task, so the
    panel belongs to that cell (Voila shows only what a cell displays while it runs). Outside a
    kernel there is nothing to show: returns ``None``.
    """
    _show()
    return _panel


def _value(item: AskUserQuestionAnswerItem, multi_select: bool) -> str | list[str] | None:
    custom = item.custom if item.custom is not None and item.custom.strip() else None
    if multi_select:
        return [*item.selected, *([custom] if custom is not None else [])]
    if custom is not None:
        return custom
    return item.selected[0] if item.selected else None


async def ask(
    question: str,
    options: Sequence[str] = (),
    *,
    multi_select: bool = False,
    header: str | None = None,
    detail: str | None = None,
) -> str | list[str] | None:
    """Ask one question on the default panel and return the person's answer.

    Single-select: the chosen label, or the typed "Other" text, or ``None`` when skipped.
    Multi-select: the chosen labels, with typed text last (``[]`` when skipped).
    """
    from ._blocking import in_cell

    item = _question_item(question, options, multi_select, header, detail)
    request = AskUserQuestionRequest.model_validate({"questions": [item]})
    answer = await in_cell(lambda: default_service().ask(request))
    return _value(answer.answers[0], multi_select)


def _question_item(
    question: str,
    options: Sequence[str],
    multi_select: bool,
    header: str | None,
    detail: str | None,
) -> dict[str, Any]:
    item: dict[str, Any] = {"id": "answer", "question": question, "multiSelect": multi_select}
    if options:
        item["options"] = [{"label": label} for label in options]
    if header is not None:
        item["header"] = header
    if detail is not None:
        item["detail"] = detail
    return item


async def approve(
    question: str,
    *,
    detail: str = "",
    subject: str | None = None,
    icon: str | None = None,
    approve: str = "Approve",
    reject: str = "Reject",
    always: str | None = None,
) -> str:
    """Ask for a permission decision on the default panel; returns the chosen label.

    The card offers Reject and Approve (allow once), and Always allow when ``always`` names a
    label for it. ``subject`` names who asks (``icon``: an https/http/data:image URL).
    """
    from ._blocking import in_cell

    item = _approval_item(question, detail, subject, icon, approve, reject, always)
    request = AskUserQuestionRequest.model_validate({"questions": [item]})
    answer = await in_cell(lambda: default_service().ask(request))
    return answer.answers[0].selected[0]


def _approval_item(
    question: str,
    detail: str,
    subject: str | None,
    icon: str | None,
    approve: str,
    reject: str,
    always: str | None,
) -> dict[str, Any]:
    labels = [reject, approve, *([always] if always is not None else [])]
    intent: dict[str, Any] = {"kind": "approval", "approve": approve, "reject": reject}
    if always is not None:
        intent["always"] = always
    if subject is not None:
        intent["subject"] = {"name": subject, **({"icon": icon} if icon else {})}
    item = {
        "id": "approval",
        "question": question,
        "detail": detail,
        "options": [{"label": label} for label in labels],
        "intent": intent,
    }
    return item
