"""The panel answerer: :class:`QuestionPanel` shows requests as cards and settles them.

Inside: the panel (``_question_panel``), the requests it holds (``_held_request``), the loop it
answers on (``_answer_loop``), view-message dispatch (``_view_dispatch``) with its answer checks
(``_answer_checks``), continued cards (``_continued_cards``), claims of timed questions
(``_claims``), the views of only the cards one cell asked (``_cell_views``), the Markdown
transcript with each card's outcome (``_transcript``, ``_card_outcomes``), and every text the
kernel writes for a person, in each language (``_texts``). It knows nothing of how a cell waits
(:mod:`ipyask._notebook.cell_wait`).
"""

from ._cell_views import CellView
from ._question_panel import QuestionPanel

__all__ = ["CellView", "QuestionPanel"]
