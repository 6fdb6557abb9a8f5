// @ts-check
/**
 * The tool-approval card's second screens, one per decision that needs more than a click: Edit
 * (a form generated from the tool's flat schema, else a JSON editor checked as the person
 * types), Reject, Always reject and Reject and stop (an optional reason, with what the
 * decision does besides), Respond (the text the model gets instead of the tool's result) and, when
 * the kernel offers a rule, Always allow (for this session or saved as a rule, the rule shown and
 * editable; docs/rules.md). Each builds its fields, tells whether Submit may be pressed, and encodes the
 * answer: the decision's label with its payload in `custom` (docs/protocol.md).
 * Every function takes the card's controller as `c`.
 */

import { h } from "../dom.js";
import { fill } from "../strings.js";
import { focusFirstError, formFields, readField, readUnreadable, showErrors, visibleErrors } from "../fields/form-fields.js";
import { formDraft, formErrors, formValues } from "../fields/values.js";

/**
 * @import { CardController } from "../card/controller.js"
 * @import { AnswerItem, DecisionKind, Presentation } from "../types.js"
 * @import { FormDraft } from "../fields/values.js"
 * @import { Strings } from "../strings.js"
 */

/**
 * What the person has done on one tool-approval card.
 * @typedef {{questions: string, screen: "review" | "edit" | "reject" | "respond" | "never" | "stop" | "always", opener: string,
 *   expanded: Set<string>, edit: FormDraft | null, json: string, reason: string, reply: string,
 *   scope: "session" | "saved", rule: string}} ToolState
 * @typedef {Extract<Presentation, {kind: "tool-approval"}>} ToolPresentation
 */

/** @param {CardController} c */
export function toolPresentation(c) {
  return /** @type {ToolPresentation} */ (c.presentation);
}

/**
 * @param {CardController} c
 * @param {DecisionKind} kind
 */
export function labelOf(c, kind) {
  return toolPresentation(c).decisions.find((decision) => decision.kind === kind)?.label ?? null;
}

/**
 * The kernel's refusal of the edited arguments, by argument path (`""`: the whole answer).
 * @param {CardController} c
 * @returns {Record<string, string>}
 */
function refused(c) {
  const refusal = c.refusal;
  return refusal && refusal.questionId === c.card.questions[0].id ? refusal.fields : {};
}

/**
 * The refusal by form field: an argument path's first segment names the field.
 * @param {CardController} c
 */
function refusedByField(c) {
  /** @type {Record<string, string>} */
  const byField = {};
  for (const [path, text] of Object.entries(refused(c))) {
    const name = path.split("/")[0];
    if (name && !Object.hasOwn(byField, name)) byField[name] = text;
  }
  return byField;
}

/**
 * What is wrong with the JSON editor's text, or `null` when it is an object.
 * @param {string} text
 * @param {Strings} t
 */
function jsonProblem(text, t) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fill(t.invalidJson, { problem: error instanceof Error ? error.message : String(error) });
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? null : t.notAnObject;
}

/**
 * The edit screen's form draft, started from the proposed arguments.
 * @param {CardController} c
 * @param {ToolState} state
 */
function editDraft(c, state) {
  const schema = toolPresentation(c).editForm;
  if (!schema) return null;
  state.edit ??= formDraft(schema, toolPresentation(c).arguments);
  return state.edit;
}

/**
 * The open screen's fields.
 * @param {CardController} c
 * @param {ToolState} state
 * @returns {Node[]}
 */
export function screenFields(c, state) {
  const t = c.t;
  const p = toolPresentation(c);
  if (state.screen === "edit") {
    const headingId = c.view.nextId();
    const heading = h("h3", { class: "ipyask-screen__title", id: headingId }, t.editArguments);
    const draft = editDraft(c, state);
    if (p.editForm && draft) {
      const errors = visibleErrors(p.editForm, draft, refusedByField(c), t);
      return [heading, h("div", { role: "group", "aria-labelledby": headingId }, formFields(c, p.editForm, draft, errors))];
    }
    return [heading, jsonEditor(c, state)];
  }
  if (state.screen === "always") return alwaysFields(c, state);
  const id = c.view.nextId();
  const reply = state.screen === "respond";
  const area = /** @type {HTMLTextAreaElement} */ (
    h("textarea", {
      id,
      class: "ipyask-field__input ipyask-textarea",
      rows: 3,
      "data-action": reply ? "tool-reply" : "tool-reason",
      "data-focus": reply ? "tool-reply" : "tool-reason",
      "data-first": true,
      required: reply,
      disabled: c.busy,
    })
  );
  area.value = reply ? state.reply : state.reason;
  const label = h("label", { class: "ipyask-field__label", for: id }, reply ? t.respondText : t.rejectReason);
  const note = state.screen === "never" ? t.neverNote : state.screen === "stop" ? t.stopNote : null;
  if (note === null) return [h("div", { class: "ipyask-field" }, label, area)];
  // What the decision does besides rejecting, read with the reason field.
  const noteId = c.view.nextId();
  area.setAttribute("aria-describedby", noteId);
  return [h("div", { class: "ipyask-field" }, label, h("p", { class: "ipyask-field__desc", id: noteId, "data-role": "decision-note" }, note), area)];
}

/**
 * Always allow's screen: how long (native radios), the rule as an editable line with what it
 * means, the rule it adds, and the kernel's refusal of it.
 * @param {CardController} c
 * @param {ToolState} state
 */
function alwaysFields(c, state) {
  const t = c.t;
  const offer = c.card.alwaysRule;
  const headingId = c.view.nextId();
  const heading = h("h3", { class: "ipyask-screen__title", id: headingId }, t.alwaysTitle);
  const scopes = h("div", { class: "ipyask-choices" });
  const name = c.view.nextId();
  /** @type {["session" | "saved", string][]} */
  const choices = [["session", t.forSession]];
  if (offer?.file) choices.push(["saved", fill(t.saveAsRule, { file: offer.file })]);
  for (const [value, text] of choices) {
    const id = c.view.nextId();
    const radio = /** @type {HTMLInputElement} */ (
      h("input", { type: "radio", class: "ipyask-checkbox", id, name, value, "data-action": "tool-scope", "data-focus": `tool-scope-${value}`, disabled: c.busy })
    );
    radio.checked = state.scope === value;
    scopes.append(h("label", { class: "ipyask-choice", for: id }, radio, h("span", {}, text)));
  }
  const how = h("fieldset", { class: "ipyask-field ipyask-field--group" }, h("legend", { class: "ipyask-field__label" }, t.alwaysHow), scopes);
  const id = c.view.nextId();
  const hintId = c.view.nextId();
  const errorId = c.view.nextId();
  const problem = refused(c).rule ?? refused(c)[""] ?? "";
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id,
      type: "text",
      class: "ipyask-field__input ipyask-code-input",
      spellcheck: "false",
      autocomplete: "off",
      "data-action": "tool-rule",
      "data-focus": "tool-rule",
      "data-first": true,
      "aria-describedby": `${hintId} ${errorId}`,
      "aria-invalid": problem ? "true" : null,
      required: true,
      disabled: c.busy,
    })
  );
  input.value = state.rule;
  const rule = h(
    "div",
    { class: "ipyask-field" },
    h("label", { class: "ipyask-field__label", for: id }, t.ruleLabel),
    h("p", { class: "ipyask-field__desc", id: hintId }, t.ruleHint),
    input,
    h("p", { class: "ipyask-field__desc", "data-role": "rule-preview" }, `${t.ruleAdds}: `, h("code", {}, `allow ${state.rule.trim()}`)),
    h("p", { class: "ipyask-field__error", id: errorId, "aria-live": "polite", "data-role": "rule-error" }, problem || (state.rule.trim() ? "" : t.ruleEmpty)),
  );
  return [heading, h("div", { role: "group", "aria-labelledby": headingId }, how, rule)];
}

/**
 * @param {CardController} c
 * @param {ToolState} state
 */
function jsonEditor(c, state) {
  const t = c.t;
  const id = c.view.nextId();
  const hintId = toolPresentation(c).hasSchema ? c.view.nextId() : null;
  const errorId = c.view.nextId();
  const problem = jsonProblem(state.json, t);
  const area = /** @type {HTMLTextAreaElement} */ (
    h("textarea", {
      id,
      class: "ipyask-field__input ipyask-textarea ipyask-code-input",
      rows: Math.min(16, Math.max(3, state.json.split("\n").length)),
      spellcheck: "false",
      autocomplete: "off",
      "data-action": "tool-json",
      "data-focus": "tool-json",
      "data-first": true,
      "aria-describedby": [hintId, errorId].filter(Boolean).join(" "),
      "aria-invalid": problem || Object.keys(refused(c)).length ? "true" : null,
      disabled: c.busy,
    })
  );
  area.value = state.json;
  return h(
    "div",
    { class: "ipyask-field" },
    h("label", { class: "ipyask-field__label", for: id }, t.argumentsJson),
    hintId ? h("p", { class: "ipyask-field__desc", id: hintId }, t.schemaChecked) : null,
    area,
    h("p", { class: "ipyask-field__error", id: errorId, "aria-live": "polite", "data-role": "json-error" }, problem ?? refusalText(c)),
  );
}

/** The kernel's refusal of the JSON, one "path: problem" per argument. @param {CardController} c */
function refusalText(c) {
  return Object.entries(refused(c))
    .map(([path, text]) => (path ? `${path}: ${text}` : text))
    .join("\n");
}

/**
 * Whether the open screen's Submit may be pressed (invalid JSON and an empty reply may not).
 * @param {CardController} c
 * @param {ToolState} state
 */
export function screenReady(c, state) {
  if (state.screen === "respond") return state.reply.trim() !== "";
  if (state.screen === "always") return state.rule.trim() !== "";
  if (state.screen === "edit" && !toolPresentation(c).editForm) return jsonProblem(state.json, c.t) === null;
  return true;
}

/**
 * Typing on the open screen: update its draft, errors and Submit in place.
 * @param {CardController} c
 * @param {ToolState} state
 * @param {Event} event
 */
export function screenInput(c, state, event) {
  const target = event.target;
  const p = toolPresentation(c);
  const draft = state.screen === "edit" ? editDraft(c, state) : null;
  if (p.editForm && draft) {
    const field = readField(p.editForm, draft, target);
    if (!field) return;
    const refusal = refused(c);
    for (const path of Object.keys(refusal)) if (path.split("/")[0] === field.name) delete refusal[path];
    showErrors(c.el, p.editForm, visibleErrors(p.editForm, draft, refusedByField(c), c.t), field, c.t.fieldError);
  } else if (state.screen === "always" && target instanceof HTMLInputElement) {
    if (target.dataset.action === "tool-scope" && (target.value === "session" || target.value === "saved")) state.scope = target.value;
    else if (target.dataset.action === "tool-rule") {
      state.rule = target.value;
      c.refusal = null; // the kernel judged the rule as it was
      const code = c.el.querySelector("[data-role=rule-preview] code");
      if (code) code.textContent = `allow ${state.rule.trim()}`;
      const line = c.el.querySelector("[data-role=rule-error]");
      const text = state.rule.trim() ? "" : c.t.ruleEmpty;
      if (line && line.textContent !== text) line.textContent = text;
      if (text) target.setAttribute("aria-invalid", "true");
      else target.removeAttribute("aria-invalid");
    } else return;
  } else if (target instanceof HTMLTextAreaElement) {
    const action = target.dataset.action;
    if (action === "tool-json") {
      state.json = target.value;
      c.refusal = null; // the kernel judged the text as it was
      target.rows = Math.min(16, Math.max(3, target.value.split("\n").length));
      const problem = jsonProblem(state.json, c.t);
      const line = c.el.querySelector("[data-role=json-error]");
      if (line && line.textContent !== (problem ?? "")) line.textContent = problem ?? "";
      if (problem) target.setAttribute("aria-invalid", "true");
      else target.removeAttribute("aria-invalid");
    } else if (action === "tool-reason") state.reason = target.value;
    else if (action === "tool-reply") state.reply = target.value;
    else return;
  } else return;
  c.countdown.engage();
  const submit = /** @type {HTMLButtonElement | null} */ (c.el.querySelector("[data-action=tool-submit]"));
  if (submit) submit.disabled = c.busy || !c.canSubmit() || !screenReady(c, state);
  c.countdown.refresh();
}

/**
 * Send the open screen's decision, or show what is wrong with the edit form.
 * @param {CardController} c
 * @param {ToolState} state
 */
export function submitScreen(c, state) {
  if (c.busy || !c.canSubmit() || !screenReady(c, state) || state.screen === "review") return;
  const p = toolPresentation(c);
  const id = c.card.questions[0].id;
  const label = labelOf(c, state.screen);
  if (label === null) return;
  /** @type {AnswerItem} */
  const item = { id, selected: [label] };
  const draft = state.screen === "edit" ? editDraft(c, state) : null;
  if (state.screen === "edit" && p.editForm && draft) {
    readUnreadable(c.el, p.editForm, draft);
    const errors = formErrors(p.editForm, draft, c.t);
    if (errors.size > 0) {
      draft.attempted = true;
      c.feedback = { text: c.t.fixFields, error: true };
      const line = c.el.querySelector("[data-role=feedback]");
      if (line) {
        line.textContent = c.t.fixFields;
        line.classList.add("ipyask-feedback--error");
      }
      showErrors(c.el, p.editForm, visibleErrors(p.editForm, draft, refusedByField(c), c.t), null, c.t.fieldError);
      focusFirstError(c.el, p.editForm, errors);
      return;
    }
    item.custom = JSON.stringify(formValues(p.editForm, draft, { base: p.arguments, omitUnset: true }));
  } else if (state.screen === "edit") item.custom = state.json.trim();
  else if (state.screen === "always") item.custom = JSON.stringify({ scope: state.scope, rule: state.rule.trim() });
  else {
    const text = (state.screen === "respond" ? state.reply : state.reason).trim();
    if (text) item.custom = text;
  }
  c.sendAnswer([item]);
}
