// @ts-check
/**
 * The generic question flow: what its controls do. Picks and typing go into the drafts of the
 * card's questions; Next, Skip and picking a single option move on; Submit sends every draft, or
 * goes back to the first question still without an answer.
 * Every function takes the card's controller as `c`.
 */

import { encode, isAnswered } from "../card/drafts.js";

/** @import { CardController } from "../card/controller.js" */

/**
 * @param {CardController} c
 * @param {string} action
 * @param {HTMLElement} target
 */
export function act(c, action, target) {
  if (action === "option") selectOption(c, Number(target.dataset.index));
  else if (action === "prev" || action === "next") go(c, c.index + (action === "prev" ? -1 : 1));
  else if (action === "skip") skip(c);
  else if (action === "primary") primary(c);
}

/**
 * Typing in the answer field: update the draft and the controls in place (no rebuild keeps the
 * caret and any IME composition).
 * @param {CardController} c
 * @param {Event} event
 */
export function input(c, event) {
  const field = event.target;
  if (!(field instanceof HTMLTextAreaElement) || field.dataset.action !== "custom") return;
  const question = c.card.questions[c.index];
  const draft = c.drafts[c.index];
  draft.custom = field.value;
  draft.skipped = false;
  if (!question.multiSelect && field.value !== "") draft.selected = [];
  field.rows = Math.min(8, field.value.split("\n").length);
  c.countdown.engage();
  c.feedback = null;
  syncControls(c);
}

/** @param {CardController} c */
function syncControls(c) {
  const question = c.card.questions[c.index];
  const draft = c.drafts[c.index];
  for (const option of c.el.querySelectorAll("[data-action=option]")) {
    const label = question.options?.[Number(/** @type {HTMLElement} */ (option).dataset.index)]?.label;
    option.setAttribute("aria-checked", String(label !== undefined && draft.selected.includes(label)));
  }
  c.el.querySelector("[data-role=custom-mark]")?.classList.toggle("ipyask-is-checked", draft.custom.trim() !== "");
  const primaryButton = /** @type {HTMLButtonElement | null} */ (c.el.querySelector("[data-action=primary]"));
  const last = c.index === c.card.questions.length - 1;
  if (primaryButton) primaryButton.disabled = c.busy || !isAnswered(draft) || (last && !c.canSubmit());
  const line = c.el.querySelector("[data-role=feedback]");
  if (line) {
    line.textContent = c.feedback?.text ?? "";
    line.classList.toggle("ipyask-feedback--error", Boolean(c.feedback?.error));
  }
  c.countdown.refresh();
}

/**
 * Pick (or, on a multi-select, toggle) an option; a single choice goes on to the next question.
 * @param {CardController} c
 * @param {number} index
 */
export function selectOption(c, index) {
  if (c.busy || !c.answerable) return;
  const question = c.card.questions[c.index];
  const option = question.options?.[index];
  if (!option) return;
  const draft = c.drafts[c.index];
  if (question.multiSelect) {
    const at = draft.selected.indexOf(option.label);
    if (at >= 0) draft.selected.splice(at, 1);
    else draft.selected.push(option.label);
    draft.skipped = false;
  } else {
    c.drafts[c.index] = { selected: [option.label], custom: "", skipped: false };
  }
  c.countdown.engage();
  c.feedback = null;
  if (!question.multiSelect && c.index < c.card.questions.length - 1) go(c, c.index + 1);
  else c.render();
}

/**
 * Enter on an option: a single choice picks that option and goes on, as a click does; then, or
 * on a multi-select, Enter is Next (Submit on the last question).
 * @param {CardController} c
 * @param {number} index
 */
export function enterOnOption(c, index) {
  if (c.busy || !c.answerable) return;
  const question = c.card.questions[c.index];
  const last = c.index === c.card.questions.length - 1;
  if (!question.multiSelect) {
    selectOption(c, index);
    if (last) submit(c);
  } else {
    primary(c);
  }
}

/**
 * @param {CardController} c
 * @param {number} index
 */
function go(c, index) {
  if (index < 0 || index >= c.card.questions.length || c.busy) return;
  c.index = index;
  c.feedback = null;
  c.render("first");
}

/** Next, or Submit on the last question. @param {CardController} c */
export function primary(c) {
  if (c.busy) return;
  if (!isAnswered(c.drafts[c.index])) {
    c.feedback = { text: c.t.incomplete, error: true };
    syncControls(c);
    return;
  }
  if (c.index < c.card.questions.length - 1) go(c, c.index + 1);
  else submit(c);
}

/** @param {CardController} c */
function skip(c) {
  if (c.busy) return;
  c.drafts[c.index] = { selected: [], custom: "", skipped: true };
  c.countdown.engage();
  if (c.index < c.card.questions.length - 1) go(c, c.index + 1);
  else submit(c);
}

/** Send every draft, or show the first question that still needs an answer. @param {CardController} c */
export function submit(c) {
  if (c.busy) return;
  const missing = c.drafts.findIndex((draft) => !draft.skipped && !isAnswered(draft));
  if (missing >= 0) {
    c.index = missing;
    c.feedback = { text: c.t.completeFirst, error: true };
    c.render("first");
    return;
  }
  if (!c.canSubmit()) {
    c.feedback = { text: c.t.noChannel, error: true };
    c.render();
    return;
  }
  c.sendAnswer(c.card.questions.map((question, i) => encode(question, c.drafts[i])));
}
