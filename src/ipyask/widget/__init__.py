"""The question widget: every pending request shown as a card in the notebook.

:class:`QuestionWidget` holds the cards in a synced trait; views report what the person does
through the messages in :mod:`ipyask.widget._protocol` (documented in ``docs/protocol.md``).
The card models and the messages are exported here and from :mod:`ipyask.protocol` (one list,
``_wire_shapes``).
"""

from . import _wire_shapes
from ._card_store import CardStore
from ._markdown import render_markdown
from ._widget import QuestionWidget
from ._wire_shapes import *  # noqa: F403  (the card models and the messages)

__all__ = ["CardStore", "QuestionWidget", "render_markdown"]
__all__ += _wire_shapes.__all__
