// @ts-check
/**
 * Plan review: the plan (Markdown) in a focusable body, Approve, and the plan's decline option
 * or, without one, Request changes (which does what the close button does).
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
export const planReview = { build, act };

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
  const decline = plan.decline
    ? button(c, "decline", parseLabel(plan.decline.label).text || plan.decline.label, { title: plan.decline.description })
    : button(c, "dismiss", t.requestChanges, { icon: ICON_PENCIL });
  const approve = button(c, "approve", c.busy ? t.submitting : t.approvePlan, {
    primary: true,
    title: plan.approve.description,
    disabled: !c.canSubmit(),
  });
  parts.push(h("div", { class: "ipyask-foot" }, feedbackLine(c), h("div", { class: "ipyask-buttons" }, decline, approve)));
  return parts.filter(isNode);
}

/**
 * Approve or decline: answer with that option's label.
 * @param {CardController} c
 * @param {string} action
 */
function act(c, action) {
  const plan = c.presentation;
  if (plan.kind !== "plan-review") return;
  const label = action === "approve" ? plan.approve.label : action === "decline" ? plan.decline?.label ?? null : null;
  if (label !== null) c.sendAnswer([{ id: c.card.questions[c.index].id, selected: [label] }]);
}
