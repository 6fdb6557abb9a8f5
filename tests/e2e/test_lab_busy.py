"""End to end in real JupyterLab 4: a click sent to a busy kernel never turns into another decision.

An agent task asks an approval; the next cell keeps the kernel busy (``time.sleep``) for longer
than a card used to wait before re-arming. The person clicks Approve meanwhile: the comm message
waits in the kernel's queue, so the card stays locked and says so until the kernel is free, and
then shows the decision the agent received. Only a kernel restart re-arms a queued card, and the
card then says the answer was not confirmed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import write_notebook

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Locator

    from ._pages import LabNotebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ASK_CELL = """\
import asyncio, time
import ipyask

ipyask.show_panel()


async def agent():
    return await ipyask.approve("Delete the build folder?", detail="`rm -r build`")


task = asyncio.ensure_future(agent())"""

# Longer than the 5 s after which a card used to re-arm while the kernel had not replied.
BUSY_SECONDS = 8
BUSY_CELL = f'time.sleep({BUSY_SECONDS})\nprint("slept")'
RESULT_CELL = 'print("agent got", task.result())'

QUEUED = "The kernel is busy; your answer is delivered when it is free."

# Start a cell without waiting for it, then wait until the kernel says it is busy.
_START_CELL = """async (index) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  panel.content.activeCellIndex = index;
  panel.content.deselectAll();
  void app.commands.execute("notebook:run-cell");
  const kernel = panel.sessionContext.session.kernel;
  const started = Date.now();
  while (kernel.status !== "busy") {
    if (Date.now() - started > 10000) throw new Error(`cell ${index} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}"""

# Record every moment a live card offers an enabled decision button (it must never while an
# answer it sent can still arrive).
_WATCH_ARMED = """(card) => {
  const armed = [];
  const note = () => {
    const live = /\\bipyask-is-pending\\b/.test(card.className);
    const open = Array.from(card.querySelectorAll("button[data-action]"))
      .filter((b) => ["approve", "reject", "always"].includes(b.dataset.action) && !b.disabled);
    if (live && open.length > 0) armed.push(open.map((b) => b.textContent).join(", "));
  };
  new MutationObserver(note).observe(card, { subtree: true, childList: true, attributes: true });
  card.__armed = armed;
}"""

_RESTART = """async () => {
  await window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart();
}"""


def _click_approve_while_busy(nb: LabNotebook) -> Locator:
    nb.run(0)
    card = nb.output(0).get_by_role("article", name="Delete the build folder?")
    expect(card.get_by_role("button", name="Approve")).to_be_enabled()
    nb.page.evaluate(_START_CELL, 1)
    card.get_by_role("button", name="Approve").click()
    card.evaluate(_WATCH_ARMED)
    return card


def test_a_click_sent_to_a_busy_kernel_stays_queued_and_reaches_the_agent(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(lab_root / "busy.ipynb", [ASK_CELL, BUSY_CELL, RESULT_CELL])
    nb = lab_notebook
    nb.open("busy.ipynb", workspace="busy")
    card = _click_approve_while_busy(nb)
    feedback = card.locator("[data-role=feedback]")
    expect(feedback).to_have_text(QUEUED)
    reject = card.get_by_role("button", name="Reject")
    expect(reject).to_be_disabled()
    expect(card.get_by_role("button", name="Submitting…")).to_be_disabled()
    expect(card).to_have_attribute("aria-busy", "")
    nb.screenshot("queued")

    # The kernel is free once the cell ends: it handles the queued click.
    expect(nb.output(1)).to_have_text("slept", timeout=BUSY_SECONDS * 1000 + 15_000)
    expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    expect(card.locator(".ipyask-summary__line")).to_have_text("Approved")
    assert card.evaluate("(card) => card.__armed") == []  # never a second decision offered
    nb.run(2)
    expect(nb.output(2)).to_have_text("agent got Approve")
    nb.screenshot("answered")
    assert nb.log.errors == []


def test_a_queued_click_lost_in_a_kernel_restart_says_so(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(lab_root / "busy-restart.ipynb", [ASK_CELL, BUSY_CELL])
    nb = lab_notebook
    nb.open("busy-restart.ipynb", workspace="busy-restart")
    card = _click_approve_while_busy(nb)
    expect(card.locator("[data-role=feedback]")).to_have_text(QUEUED)
    nb.page.evaluate(_RESTART)
    expect(card.locator(".ipyask-notice")).to_have_text(
        "The kernel restarted before it confirmed your answer; this question is no longer live.",
        timeout=20_000,
    )
    expect(card).not_to_have_attribute("aria-busy", "")
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    assert card.evaluate("(card) => card.__armed") == []
    nb.screenshot("lost")
