// @ts-check
/**
 * The generic question flow: one question at a time (options, a free answer, or both), a pager
 * when there are several, Skip and Next/Submit. Answers are kept as drafts until Submit.
 * Every function takes the card's controller as `c`.
 */

import { ICON_CHECK, ICON_PENCIL, h, icon, isNode } from "../dom.js";
import { fill } from "../strings.js";
import { markdownBlock } from "../sanitize.js";
import { encode, isAnswered, parseLabel } from "../card/drafts.js";
import { button, feedbackLine, header, notice } from "../card/parts.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { Draft, Option } from "../types.js"
 */

/** @type {Presenter} */
export const generic = { build, act, input };

/** @param {CardController} c */
function build(c) {
  const t = c.t;
  const questions = c.card.questions;
  const question = questions[c.index];
  const draft = c.drafts[c.index];
  const total = questions.length;
  const last = c.index === total - 1;
  const bodyId = c.view.nextId();
  const head = header(c, { eyebrow: question.header ? [question.header] : [], title: question.question, bodyId });
  const titleId = head.querySelector("h2")?.id ?? "";
  if (c.collapsed) return [head, notice(c)].filter(isNode);

  const body = h("div", { class: "ipyask-body", id: bodyId });
  const html = c.card.view.detailHtml[c.index];
  if (typeof html === "string") body.append(markdownBlock(html));
  const options = question.options ?? [];
  const multi = Boolean(question.multiSelect);
  if (options.length > 0) {
    const group = h("div", { class: "ipyask-options", role: multi ? "group" : "radiogroup", "aria-labelledby": titleId });
    options.forEach((option, i) => group.append(optionButton(c, option, i, multi, draft)));
    body.append(group);
    const mark = multi
      ? h("span", { class: `ipyask-check${draft.custom.trim() ? " ipyask-is-checked" : ""}`, "data-role": "custom-mark" }, icon(ICON_CHECK))
      : h("span", { class: "ipyask-pencil" }, icon(ICON_PENCIL));
    mark.setAttribute("aria-hidden", "true");
    body.append(h("div", { class: "ipyask-custom" }, mark, customField(c, { "aria-label": t.other })));
  } else {
    body.append(h("div", { class: "ipyask-custom ipyask-custom--block" }, customField(c, { "aria-labelledby": titleId, "data-first": true })));
  }

  const foot = h("div", { class: "ipyask-foot" });
  if (total > 1) {
    foot.append(
      h(
        "div",
        { class: "ipyask-pager" },
        h("button", { type: "button", class: "ipyask-icon", "aria-label": t.previous, title: t.previous, "data-action": "prev", "data-focus": "prev", disabled: c.busy || c.index === 0 }, "‹"),
        h(
          "span",
          { class: "ipyask-pager__pos" },
          h("span", { "aria-hidden": "true" }, `${c.index + 1} / ${total}`),
          h("span", { class: "ipyask-sr" }, fill(t.questionOf, { index: c.index + 1, total })),
        ),
        h("button", { type: "button", class: "ipyask-icon", "aria-label": t.following, title: t.following, "data-action": "next", "data-focus": "next", disabled: c.busy || last }, "›"),
      ),
    );
  }
  foot.append(
    feedbackLine(c),
    h(
      "div",
      { class: "ipyask-buttons" },
      button(c, "skip", t.skip),
      button(c, "primary", c.busy ? t.submitting : last ? t.submit : t.next, {
        primary: true,
        disabled: !isAnswered(draft) || (last && !c.canSubmit()),
      }),
    ),
  );
  return [head, notice(c), body, foot].filter(isNode);
}

/**
 * @param {CardController} c
 * @param {Option} option
 * @param {number} i
 * @param {boolean} multi
 * @param {Draft} draft
 */
function optionButton(c, option, i, multi, draft) {
  const { text, recommended } = parseLabel(option.label);
  const name = text.trim() ? text : option.label;
  const badgeId = recommended ? c.view.nextId() : null;
  const descId = option.description ? c.view.nextId() : null;
  const checked = draft.selected.includes(option.label);
  const marker = multi
    ? h("span", { class: "ipyask-check" }, icon(ICON_CHECK))
    : h("span", { class: "ipyask-num" }, String(i + 1));
  marker.setAttribute("aria-hidden", "true");
  return h(
    "button",
    {
      type: "button",
      class: "ipyask-option",
      role: multi ? "checkbox" : "radio",
      "aria-checked": String(checked),
      "aria-label": name,
      "aria-describedby": [badgeId, descId].filter(Boolean).join(" ") || null,
      "data-action": "option",
      "data-index": i,
      "data-focus": `opt-${i}`,
      "data-first": i === 0,
      disabled: c.busy,
    },
    marker,
    h(
      "span",
      { class: "ipyask-option__text" },
      h("span", { class: "ipyask-option__label" }, name),
      badgeId ? h("span", { class: "ipyask-badge", id: badgeId }, c.t.recommended) : null,
      descId ? h("span", { class: "ipyask-option__desc", id: descId }, option.description ?? "") : null,
    ),
  );
}

/**
 * @param {CardController} c
 * @param {Record<string, string | boolean>} attrs
 */
function customField(c, attrs) {
  const draft = c.drafts[c.index];
  const field = /** @type {HTMLTextAreaElement} */ (
    h("textarea", {
      class: "ipyask-input",
      rows: Math.min(8, draft.custom.split("\n").length),
      placeholder: c.t.placeholder,
      "data-action": "custom",
      "data-focus": "custom",
      disabled: c.busy,
      ...attrs,
    })
  );
  field.value = draft.custom;
  return field;
}

// -- what the controls do ----------------------------------------------------------------------

/**
 * @param {CardController} c
 * @param {string} action
 * @param {HTMLElement} target
 */
function act(c, action, target) {
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
function input(c, event) {
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
