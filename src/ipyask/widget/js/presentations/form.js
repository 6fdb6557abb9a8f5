// @ts-check
/**
 * A form (ipyask extension): typed fields checked as the person types and again on Submit, then
 * Submit, Decline and Cancel as the intent offers them. Submit sends the accept label with the
 * values' JSON text in `custom`; Decline and Cancel send their label alone (docs/protocol.md).
 * Every function takes the card's controller as `c`.
 */

import { h, isEditable, isNode } from "../dom.js";
import { markdownBlock } from "../sanitize.js";
import { wordFor } from "../strings.js";
import { button, feedbackLine, header, notice } from "../card/parts.js";
import { focusFirstError, formFields, readField, readUnreadable, showErrors, visibleErrors } from "../fields/form-fields.js";
import { formDraft, formErrors, formValues } from "../fields/values.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { Presentation } from "../types.js"
 * @import { FormDraft } from "../fields/values.js"
 */

/** @typedef {Extract<Presentation, {kind: "form"}>} FormPresentation */

/** @type {WeakMap<CardController, {questions: string, draft: FormDraft}>} per card, per question set */
const drafts = new WeakMap();

/** @type {Presenter} */
export const form = { build, act, input, key };

/** @param {CardController} c */
function presentation(c) {
  return /** @type {FormPresentation} */ (c.presentation);
}

/** @param {CardController} c */
function draftOf(c) {
  let state = drafts.get(c);
  if (!state || state.questions !== c.questionsJson) {
    state = { questions: c.questionsJson, draft: formDraft(presentation(c).form, null) };
    drafts.set(c, state);
  }
  return state.draft;
}

/** The kernel's refusal of this card's answer, by field. @param {CardController} c */
function refusedFields(c) {
  const refusal = c.refusal;
  return refusal && refusal.questionId === c.card.questions[0].id ? refusal.fields : {};
}

/** @param {CardController} c */
function build(c) {
  const t = c.t;
  const p = presentation(c);
  const question = c.card.questions[0];
  const draft = draftOf(c);
  const bodyId = c.view.nextId();
  const eyebrow = [h("span", { class: "ipyask-dot", "aria-hidden": "true" }), t.form];
  const head = header(c, { eyebrow, title: question.question, bodyId });
  const refused = refusedFields(c);
  const body = h("div", { class: "ipyask-body ipyask-form", id: bodyId, role: "group", "aria-labelledby": head.querySelector("h2")?.id ?? null });
  const detail = c.card.view.detailHtml[0];
  if (typeof detail === "string") body.append(markdownBlock(detail));
  if (p.form.title) body.append(h("h3", { class: "ipyask-form__title" }, p.form.title));
  if (p.form.description) body.append(h("p", { class: "ipyask-form__desc" }, p.form.description));
  body.append(formFields(c, p.form, draft, visibleErrors(p.form, draft, refused, t)));

  const feedback = feedbackLine(c);
  const names = p.form.fields.map((field) => field.name);
  const keys = Object.keys(refused);
  if (keys.length > 0 && keys.every((name) => names.includes(name))) feedback.textContent = t.fixFields;
  const buttons = h("div", { class: "ipyask-buttons" });
  // While an answer waits for the kernel, the button that sent it says so: never another one.
  const label = (/** @type {string} */ action, /** @type {string} */ text) => (c.busy && c.pressed === action ? t.submitting : text);
  if (p.cancel) buttons.append(button(c, "form-cancel", label("form-cancel", wordFor(t, "cancel", p.cancel))));
  if (p.decline) buttons.append(button(c, "form-decline", label("form-decline", wordFor(t, "decline", p.decline))));
  buttons.append(button(c, "form-accept", label("form-accept", wordFor(t, "accept", p.accept)), { primary: true, disabled: !c.canSubmit() }));
  return [head, notice(c), c.collapsed ? null : body, h("div", { class: "ipyask-foot" }, feedback, buttons)].filter(isNode);
}

/**
 * @param {CardController} c
 * @param {string} action
 */
function act(c, action) {
  const p = presentation(c);
  const id = c.card.questions[0].id;
  if (c.busy) return;
  c.pressed = action;
  if (action === "form-accept") submit(c);
  else if (action === "form-decline" && p.decline) c.sendAnswer([{ id, selected: [p.decline] }]);
  else if (action === "form-cancel" && p.cancel) c.sendAnswer([{ id, selected: [p.cancel] }]);
}

/** Send the values, or show what is wrong and go to the first field at fault. @param {CardController} c */
function submit(c) {
  if (c.busy || !c.canSubmit()) return;
  const p = presentation(c);
  const draft = draftOf(c);
  readUnreadable(c.el, p.form, draft);
  const errors = formErrors(p.form, draft, c.t);
  if (errors.size > 0) {
    draft.attempted = true;
    c.feedback = { text: c.t.fixFields, error: true };
    if (c.collapsed) {
      c.collapsed = false;
      c.render();
    }
    updateFeedback(c);
    showErrors(c.el, p.form, visibleErrors(p.form, draft, refusedFields(c), c.t), null, c.t.fieldError);
    focusFirstError(c.el, p.form, errors);
    return;
  }
  const values = formValues(p.form, draft);
  c.sendAnswer([{ id: c.card.questions[0].id, selected: [p.accept], custom: JSON.stringify(values) }]);
}

/** @param {CardController} c */
function updateFeedback(c) {
  const line = c.el.querySelector("[data-role=feedback]");
  if (!line) return;
  line.textContent = c.feedback?.text ?? "";
  line.classList.toggle("ipyask-feedback--error", Boolean(c.feedback?.error));
}

/**
 * Typing or choosing: update the draft and the errors in place.
 * @param {CardController} c
 * @param {Event} event
 */
function input(c, event) {
  const p = presentation(c);
  const draft = draftOf(c);
  const field = readField(p.form, draft, event.target);
  if (!field) return;
  c.countdown.engage();
  const refused = refusedFields(c);
  if (Object.hasOwn(refused, field.name)) delete refused[field.name];
  const shown = visibleErrors(p.form, draft, refused, c.t);
  // "Correct the marked fields" lasts as long as a field is marked, and no longer.
  const line = c.el.querySelector("[data-role=feedback]");
  if (shown.size === 0 && (c.feedback || line?.textContent === c.t.fixFields)) {
    c.feedback = null;
    updateFeedback(c);
  }
  showErrors(c.el, p.form, shown, field, c.t.fieldError);
  c.countdown.refresh();
}

/**
 * Enter in a one-line input submits; Escape (outside a field) cancels when Cancel is offered.
 * @param {CardController} c
 * @param {KeyboardEvent} event
 */
function key(c, event) {
  const target = /** @type {HTMLElement} */ (event.target);
  if (event.isComposing || event.keyCode === 229 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (event.key === "Enter" && isSingleLine(target)) {
    event.preventDefault();
    submit(c);
  } else if (event.key === "Escape" && !isEditable(target) && presentation(c).cancel) {
    event.preventDefault();
    act(c, "form-cancel");
  }
}

/**
 * A one-line text, number or date input (where Enter submits, as in a native form).
 * @param {HTMLElement} target
 */
export function isSingleLine(target) {
  return target instanceof HTMLInputElement && !/^(?:checkbox|radio|button|submit|reset|file|color|range)$/.test(target.type);
}
