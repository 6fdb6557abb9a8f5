// @ts-check
/**
 * A form's fields as native inputs (text, email, URL, date and date-time pickers, numbers,
 * checkboxes, selects, checkbox groups), each with its label, description and error, and the
 * in-place updates as the person types: the draft, the errors, the polite announcement.
 * Titles, descriptions and option titles are untrusted: they only ever become text.
 */

import { h } from "../dom.js";
import { fill } from "../strings.js";
import { formErrors } from "./values.js";

/**
 * @import { CardController } from "../card/controller.js"
 * @import { FormField, FormSchema } from "../types.js"
 * @import { FormDraft } from "./values.js"
 * @import { Strings } from "../strings.js"
 */

const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/**
 * The fields, in schema order, and the live region that announces the error of the field being
 * edited.
 * @param {CardController} c
 * @param {FormSchema} schema
 * @param {FormDraft} draft
 * @param {Map<string, string>} errors the errors to show now, by field name
 */
export function formFields(c, schema, draft, errors) {
  const list = h("div", { class: "ipyask-fields" });
  schema.fields.forEach((field, i) => list.append(fieldNode(c, field, i, draft, errors.get(field.name) ?? null)));
  list.append(h("p", { class: "ipyask-sr", "aria-live": "polite", "data-role": "field-live" }));
  return list;
}

/**
 * @param {CardController} c
 * @param {FormField} field
 * @param {number} i
 * @param {FormDraft} draft
 * @param {string | null} error
 */
function fieldNode(c, field, i, draft, error) {
  const t = c.t;
  const id = c.view.nextId();
  const descId = field.description ? c.view.nextId() : null;
  const errorId = c.view.nextId();
  const describedBy = [descId, errorId].filter(Boolean).join(" ");
  const title = field.title || field.name;
  const marker = field.required ? h("span", { class: "ipyask-required", "aria-hidden": "true" }, " *") : null;
  const description = descId ? h("p", { class: "ipyask-field__desc", id: descId }, field.description ?? "") : null;
  const errorLine = h("p", { class: "ipyask-field__error", id: errorId, "data-role": "field-error" }, error ?? "");
  const value = draft.values.get(field.name);
  const common = {
    "data-field": i,
    "aria-describedby": describedBy,
    "aria-invalid": error ? "true" : null,
    disabled: c.busy,
  };

  if (field.kind === "multi-select") {
    const chosen = Array.isArray(value) ? value : [];
    const group = h(
      "fieldset",
      { class: "ipyask-field ipyask-field--group", "data-field-index": i, "aria-describedby": describedBy },
      h("legend", { class: "ipyask-field__label" }, title, marker, field.required ? h("span", { class: "ipyask-sr" }, ` (${t.required})`) : null),
      description,
    );
    const choices = h("div", { class: "ipyask-choices" });
    field.options.forEach((option, j) => {
      const box = h("input", {
        ...common,
        "aria-describedby": null,
        type: "checkbox",
        class: "ipyask-checkbox",
        id: `${id}-${j}`,
        "data-option": j,
        "data-focus": `field-${i}-${j}`,
        "data-first": i === 0 && j === 0,
      });
      /** @type {HTMLInputElement} */ (box).checked = chosen.includes(option.value);
      choices.append(h("label", { class: "ipyask-choice", for: `${id}-${j}` }, box, h("span", {}, option.title || option.value)));
    });
    group.append(choices, errorLine);
    return group;
  }

  if (field.kind === "boolean") {
    const box = /** @type {HTMLInputElement} */ (
      h("input", { ...common, type: "checkbox", class: "ipyask-checkbox", id, "data-focus": `field-${i}`, "data-first": i === 0, required: field.required })
    );
    box.checked = value === true;
    return h(
      "div",
      { class: "ipyask-field ipyask-field--check", "data-field-index": i },
      h("label", { class: "ipyask-choice", for: id }, box, h("span", { class: "ipyask-field__label" }, title, marker)),
      description,
      errorLine,
    );
  }

  /** @type {HTMLInputElement | HTMLSelectElement} */
  let control;
  const attrs = { ...common, id, class: "ipyask-field__input", "data-focus": `field-${i}`, "data-first": i === 0, required: field.required };
  if (field.kind === "select") {
    control = /** @type {HTMLSelectElement} */ (h("select", attrs));
    if (!field.required || value === "") control.append(h("option", { value: "" }, t.chooseOne));
    for (const option of field.options) control.append(h("option", { value: option.value }, option.title || option.value));
    control.value = typeof value === "string" ? value : "";
  } else if (field.kind === "number" || field.kind === "integer") {
    control = /** @type {HTMLInputElement} */ (
      h("input", {
        ...attrs,
        type: "number",
        inputmode: field.kind === "integer" ? "numeric" : "decimal",
        min: field.minimum ?? null,
        max: field.maximum ?? null,
        step: field.kind === "integer" ? "1" : "any",
      })
    );
    control.value = typeof value === "string" ? value : "";
  } else {
    const text = /** @type {Extract<FormField, {kind: "string"}>} */ (field); // the last kind
    const type = text.format ? INPUT_TYPES[text.format] : "text";
    control = /** @type {HTMLInputElement} */ (
      h("input", {
        ...attrs,
        type,
        minlength: text.minLength ?? null,
        maxlength: text.maxLength ?? null,
        spellcheck: type === "email" || type === "url" ? "false" : null,
        autocomplete: "off",
      })
    );
    control.value = typeof value === "string" ? value : "";
  }
  return h(
    "div",
    { class: "ipyask-field", "data-field-index": i },
    h("label", { class: "ipyask-field__label", for: id }, title, marker),
    description,
    control,
    errorLine,
  );
}

/**
 * Read an edited input into the draft; the field it belongs to, or `null` for another control.
 * @param {FormSchema} schema
 * @param {FormDraft} draft
 * @param {EventTarget | null} target
 */
export function readField(schema, draft, target) {
  if (!(target instanceof HTMLInputElement || target instanceof HTMLSelectElement)) return null;
  const field = schema.fields[Number(target.dataset.field)];
  if (target.dataset.field === undefined || !field) return null;
  if (field.kind === "multi-select") {
    const group = target.closest("[data-field-index]");
    const boxes = group ? Array.from(group.querySelectorAll("input[data-option]")) : [];
    const chosen = boxes.flatMap((box) =>
      /** @type {HTMLInputElement} */ (box).checked ? [field.options[Number(/** @type {HTMLElement} */ (box).dataset.option)]?.value ?? ""] : [],
    );
    draft.values.set(field.name, chosen);
  } else if (field.kind === "boolean" && target instanceof HTMLInputElement) {
    draft.values.set(field.name, target.checked);
  } else {
    draft.values.set(field.name, target.value);
    if (target instanceof HTMLInputElement && target.validity.badInput) draft.bad.add(field.name);
    else draft.bad.delete(field.name);
  }
  draft.touched.add(field.name);
  return field;
}

/**
 * Note the inputs the browser cannot read (a date typed halfway fires no input event): done
 * before checking the form on Submit.
 * @param {HTMLElement} root
 * @param {FormSchema} schema
 * @param {FormDraft} draft
 */
export function readUnreadable(root, schema, draft) {
  for (const input of root.querySelectorAll("input[data-field]")) {
    const field = schema.fields[Number(/** @type {HTMLInputElement} */ (input).dataset.field)];
    if (!field || !(input instanceof HTMLInputElement)) continue;
    if (input.validity.badInput) draft.bad.add(field.name);
  }
}

/**
 * Show `errors` beside their fields, in place (keeps the caret and any IME composition), and
 * announce the error of `changed` (the field being edited) politely when it changes.
 * @param {HTMLElement} root
 * @param {FormSchema} schema
 * @param {Map<string, string>} errors
 * @param {FormField | null} changed
 * @param {string} template how to announce a field's error ("{field}: {error}")
 */
export function showErrors(root, schema, errors, changed, template) {
  schema.fields.forEach((field, i) => {
    const node = root.querySelector(`[data-field-index="${i}"]`);
    if (!node) return;
    const error = errors.get(field.name) ?? null;
    const line = node.querySelector("[data-role=field-error]");
    if (line) line.textContent = error ?? "";
    for (const control of node.querySelectorAll("[data-field]")) {
      if (error) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
  });
  const live = root.querySelector("[data-role=field-live]");
  if (live && changed) {
    const error = errors.get(changed.name);
    const text = error ? fill(template, { field: changed.title || changed.name, error }) : "";
    if (live.textContent !== text) live.textContent = text;
  }
}

/**
 * Focus the first control of the first field with an error.
 * @param {HTMLElement} root
 * @param {FormSchema} schema
 * @param {Map<string, string>} errors
 */
export function focusFirstError(root, schema, errors) {
  const index = schema.fields.findIndex((field) => errors.has(field.name));
  const control = index < 0 ? null : root.querySelector(`[data-field-index="${index}"] [data-field]`);
  if (control instanceof HTMLElement) control.focus();
}

/**
 * The errors to show: the person's own once a field is edited (or Submit was tried), else the
 * kernel's refusal of that field.
 * @param {FormSchema} schema
 * @param {FormDraft} draft
 * @param {Record<string, string>} refused
 * @param {Strings} t
 */
export function visibleErrors(schema, draft, refused, t) {
  const own = formErrors(schema, draft, t);
  /** @type {Map<string, string>} */
  const shown = new Map();
  for (const field of schema.fields) {
    const mine = own.get(field.name);
    if (mine && (draft.attempted || draft.touched.has(field.name))) shown.set(field.name, mine);
    else if (Object.hasOwn(refused, field.name)) shown.set(field.name, refused[field.name]);
  }
  return shown;
}
