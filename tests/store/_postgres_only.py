"""What the tests of PostgreSQL-only behaviour share: their marks (the ``location`` fixture
parametrized to PostgreSQL alone) and a question."""

from __future__ import annotations

import pytest

POSTGRES_ONLY = [
    pytest.mark.postgres,
    pytest.mark.parametrize("location", ["postgres"], indirect=True),
]
"""A module's ``pytestmark``: its tests run on a fresh PostgreSQL database each."""

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}]
