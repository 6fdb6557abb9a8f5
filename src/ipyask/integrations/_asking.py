"""How a bridge asks: on the service it was given, or on the default service and panel."""

from __future__ import annotations

from .._service import UserQuestions
from .._vocabulary import AskUserQuestionAnswer, AskUserQuestionRequest
from ..bridge import ask_batch, default_service, show_panel

__all__ = ["ask", "chosen_service"]


async def ask(
    request: AskUserQuestionRequest, service: UserQuestions | None
) -> AskUserQuestionAnswer:
    """Ask ``request`` on ``service``; ``None`` means the default service, its panel shown in
    the running cell and the cell's wait helped as for :func:`ipyask.ask`."""
    if service is not None:
        return await service.ask(request)
    return await ask_batch(request)


def chosen_service(service: UserQuestions | None) -> UserQuestions:
    """``service``, or the default one with its panel shown in the running cell (for a bridge
    whose questions arrive later, from other tasks)."""
    if service is not None:
        return service
    show_panel()
    return default_service()
