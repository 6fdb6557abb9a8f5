// @ts-check
/**
 * The card's keyboard: on an approval, Enter approves and Escape rejects; in the question flow,
 * Enter in the answer field goes on, Enter on an option picks it and goes on (Submit on the last
 * question), Enter elsewhere on a card whose question has an answer goes on, arrows move
 * between options and 1–9 pick one. Never while composing text (IME), nor with modifier keys,
 * nor (Enter, Escape) just after the card took the focus on its arrival (arrival.js).
 */

import { inArrivalGrace } from "../arrival.js";
import { isEditable } from "../dom.js";
import { isAnswered } from "./drafts.js";
import { answerWith } from "../presentations/approval.js";
import { enterOnOption, primary, selectOption } from "../presentations/generic-flow.js";

/** @import { CardController } from "./controller.js" */

/**
 * @param {CardController} controller
 * @param {KeyboardEvent} event
 */
export function onKeyDown(controller, event) {
  if (event.defaultPrevented || !controller.answerable || controller.busy) return;
  if (inArrivalGrace(controller) && (event.key === "Enter" || event.key === "Escape")) {
    event.preventDefault(); // a key already on its way when the card took the focus
    return;
  }
  if (controller.presenter.key) {
    controller.presenter.key(controller, event);
    return;
  }
  const target = /** @type {HTMLElement} */ (event.target);
  if (controller.confirmingCancel && event.key === "Escape") {
    event.preventDefault();
    controller.keep();
    return;
  }
  if (target.closest("[data-role=confirm]")) return; // its buttons take Enter and Space
  const composing = event.isComposing || event.keyCode === 229;
  const modified = event.altKey || event.ctrlKey || event.metaKey;
  const kind = controller.presentation.kind;
  if (kind === "approval") {
    if (isEditable(target) || modified || event.shiftKey || event.repeat || composing) return;
    if (event.key === "Enter" && !target.closest("button, a")) {
      event.preventDefault();
      answerWith(controller, "approve", controller.card.questions[0]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      answerWith(controller, "reject", controller.card.questions[0]);
    }
    return;
  }
  if (kind !== "generic") return;
  const action = target.dataset.action;
  if (action === "custom") {
    if (event.key === "Enter" && !event.shiftKey && !composing && !modified) {
      event.preventDefault();
      primary(controller);
    }
    return;
  }
  if (isEditable(target) || modified || composing) return;
  if (action === "option" && event.key === "Enter") {
    event.preventDefault();
    enterOnOption(controller, Number(target.dataset.index));
  } else if (event.key === "Enter" && !event.shiftKey && !target.closest("button, a") && isAnswered(controller.drafts[controller.index])) {
    // After a digit picked an option the focus is still on the card: Enter goes on from there.
    event.preventDefault();
    primary(controller);
  } else if (action === "option" && /^Arrow(?:Up|Down|Left|Right)$/.test(event.key)) {
    event.preventDefault();
    const buttons = Array.from(controller.el.querySelectorAll("[data-action=option]"));
    const step = event.key === "ArrowUp" || event.key === "ArrowLeft" ? -1 : 1;
    const next = buttons[(buttons.indexOf(target) + step + buttons.length) % buttons.length];
    if (next instanceof HTMLElement) next.focus();
  } else if (/^[1-9]$/.test(event.key) && !event.shiftKey) {
    const index = Number(event.key) - 1;
    if (index < (controller.card.questions[controller.index].options?.length ?? 0)) {
      event.preventDefault();
      selectOption(controller, index);
    }
  }
}
