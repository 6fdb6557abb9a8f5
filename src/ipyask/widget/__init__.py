"""The question widget: every pending request shown as a card in the notebook.

:class:`QuestionWidget` holds the cards in a synced trait; views report what the person does
through the messages in :mod:`ipyask.widget._protocol` (documented in ``docs/protocol.md``).
"""

from ._card_store import CardStore
from ._cards import (
    ApprovalPresentation,
    Card,
    CardSettlement,
    CardSource,
    CardStatus,
    CardView,
    CountdownFrame,
    FormPresentation,
    GenericPresentation,
    NoticeCode,
    PlanReviewPresentation,
    Presentation,
    SettledStatus,
    ToolApprovalPresentation,
    ToolDecisionOption,
    WaitKind,
)
from ._markdown import render_markdown
from ._protocol import (
    PROTOCOL_VERSION,
    AnswerMessage,
    CancelMessage,
    CardsMessage,
    ClaimMessage,
    ErrorMessage,
    FrameMessage,
    HeartbeatMessage,
    HelloMessage,
    HoldMessage,
    KernelMessage,
    ReleaseMessage,
    TimedOutMessage,
    ViewErrorCode,
    ViewMessage,
    view_error_code,
)
from ._widget import QuestionWidget

__all__ = [
    "PROTOCOL_VERSION",
    "AnswerMessage",
    "ApprovalPresentation",
    "CancelMessage",
    "Card",
    "CardSettlement",
    "CardSource",
    "CardStatus",
    "CardStore",
    "CardView",
    "CardsMessage",
    "ClaimMessage",
    "CountdownFrame",
    "ErrorMessage",
    "FormPresentation",
    "FrameMessage",
    "GenericPresentation",
    "HeartbeatMessage",
    "HelloMessage",
    "HoldMessage",
    "KernelMessage",
    "NoticeCode",
    "PlanReviewPresentation",
    "Presentation",
    "QuestionWidget",
    "ReleaseMessage",
    "SettledStatus",
    "TimedOutMessage",
    "ToolApprovalPresentation",
    "ToolDecisionOption",
    "ViewErrorCode",
    "ViewMessage",
    "WaitKind",
    "render_markdown",
    "view_error_code",
]
