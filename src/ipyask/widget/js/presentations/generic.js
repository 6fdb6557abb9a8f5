// @ts-check
/**
 * The generic question flow: one question at a time (options, a free answer, or both), a pager
 * when there are several, Skip and Next/Submit. What the controls do is in generic-flow.js.
 * Every function takes the card's controller as `c`.
 */

import { ICON_CHECK, ICON_PENCIL, h, icon, isNode } from "../dom.js";
import { fill } from "../strings.js";
import { markdownBlock } from "../sanitize.js";
import { isAnswered, parseLabel } from "../card/drafts.js";
import { button, feedbackLine, header, notice } from "../card/parts.js";
import { act, input } from "./generic-flow.js";

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

  const body = h("div", { class: "ipyask-body", id: bodyId, "data-scroll": `question-${c.index}` });
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
