// @ts-check
/**
 * Plan review: the plan (Markdown) in a focusable body, Approve, and the plan's decline option
 * or, without one, Request changes. Either opens a box for what to change: the answer is the
 * decline label in `selected` with the text in `custom` (ipyask's choice, docs/protocol.md), or,
 * without a decline option, the text alone; Request changes sent empty closes the card.
 * Every function takes the card's controller as `c`.
 */

import { ICON_PENCIL, h, isNode } from "../dom.js";
import { markdownBlock } from "../sanitize.js";
import { parseLabel } from "../card/drafts.js";
import { button, feedbackLine, header, notice } from "../card/parts.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { Presentation } from "../types.js"
 */

/** @type {Presenter} */
export const planReview = { build, act, input };

/** @param {CardController} c */
function build(c) {
  const t = c.t;
  const plan = /** @type {Extract<Presentation, {kind: "plan-review"}>} */ (c.presentation);
  const question = c.card.questions[0];
  const bodyId = c.view.nextId();
  const eyebrow = [h("span", { class: "ipyask-dot", "aria-hidden": "true" }), t.planReview];
  const head = header(c, { eyebrow, title: question.question, bodyId });
  const titleId = head.querySelector("h2")?.id ?? "";
  const parts = [head, notice(c)];
  if (!c.collapsed) {
    const body = h("div", { class: "ipyask-body ipyask-plan", id: bodyId, role: "group", tabindex: "0", "aria-labelledby": titleId, "data-focus": "plan", "data-scroll": "plan" });
    body.append(markdownBlock(c.card.view.detailHtml[0] ?? ""));
    parts.push(body);
  }
  const declineText = plan.decline ? parseLabel(plan.decline.label).text || plan.decline.label : t.requestChanges;
  if (c.requestingChanges) {
    parts.push(changesBox(c, declineText));
    return parts.filter(isNode);
  }
  const decline = plan.decline
    ? button(c, "decline", declineText, { title: plan.decline.description })
    : button(c, "decline", t.requestChanges, { icon: ICON_PENCIL });
  const approve = button(c, "approve", c.busy ? t.submitting : t.approvePlan, {
    primary: true,
    title: plan.approve.description,
    disabled: !c.canSubmit(),
  });
  parts.push(h("div", { class: "ipyask-foot" }, feedbackLine(c), h("div", { class: "ipyask-buttons" }, decline, approve)));
  return parts.filter(isNode);
}

/**
 * The box for what to change, with Back and the send button (named like the decline).
 * @param {CardController} c
 * @param {string} declineText
 */
function changesBox(c, declineText) {
  const t = c.t;
  const fieldId = c.view.nextId();
  const area = /** @type {HTMLTextAreaElement} */ (h("textarea", {
    id: fieldId,
    class: "ipyask-field__input ipyask-textarea ipyask-changes__input",
    rows: "3",
    placeholder: t.changesPlaceholder,
    "data-focus": "changes",
    disabled: c.busy,
  }));
  area.value = c.drafts[0]?.custom ?? "";
  return h(
    "div",
    { class: "ipyask-foot ipyask-changes" },
    h("label", { class: "ipyask-changes__label", for: fieldId }, t.changesLabel),
    area,
    feedbackLine(c),
    h(
      "div",
      { class: "ipyask-buttons" },
      button(c, "changes-back", t.back),
      button(c, "changes-send", c.busy ? t.submitting : declineText, { primary: true, disabled: !c.canSubmit() }),
    ),
  );
}

/**
 * Approve, open the changes box, or send the decline with what to change.
 * @param {CardController} c
 * @param {string} action
 */
function act(c, action) {
  const plan = c.presentation;
  if (plan.kind !== "plan-review") return;
  const id = c.card.questions[c.index].id;
  if (action === "approve") c.sendAnswer([{ id, selected: [plan.approve.label] }]);
  else if (action === "decline" || action === "changes-back") {
    c.requestingChanges = action === "decline";
    c.render();
    /** @type {HTMLElement | null} */
    const target = c.el.querySelector(action === "decline" ? "[data-focus=changes]" : "[data-focus=decline]");
    target?.focus();
  } else if (action === "changes-send") {
    const text = (c.drafts[0]?.custom ?? "").trim();
    const custom = text ? { custom: text } : {};
    if (plan.decline) c.sendAnswer([{ id, selected: [plan.decline.label], ...custom }]);
    else if (text) c.sendAnswer([{ id, selected: [], ...custom }]);
    else c.close(true);
  }
}

/**
 * Keep what the person types about the changes (no re-render while typing).
 * @param {CardController} c
 * @param {Event} event
 */
function input(c, event) {
  const target = event.target;
  if (target instanceof HTMLTextAreaElement && target.dataset.focus === "changes" && c.drafts[0]) c.drafts[0].custom = target.value;
}
