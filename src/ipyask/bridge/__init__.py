"""The kernel bridge: a question panel that answers a ``UserQuestions`` service in a notebook."""

from ._panel import QuestionPanel

__all__ = ["QuestionPanel"]
