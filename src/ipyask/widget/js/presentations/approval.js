// @ts-check
/**
 * Approval of a tool call: the subject (name and icon), the question and details in the
 * person's language, then Reject, Always allow (when offered) and Allow once.
 * Every function takes the card's controller as `c`.
 */

import { h, isNode } from "../dom.js";
import { approveWord, localized } from "../strings.js";
import { imageOrGate } from "../images.js";
import { markdownBlock } from "../sanitize.js";
import { button, feedbackLine, header, notice } from "../card/parts.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { Presentation, Question } from "../types.js"
 */

const ICON_URL = /^(?:https?:|data:image\/)/i;

/** @type {Presenter} */
export const approval = {
  build,
  act: (c, action) => answerWith(c, action, c.card.questions[c.index]),
};

/** @param {CardController} c */
function build(c) {
  const t = c.t;
  const approval = /** @type {Extract<Presentation, {kind: "approval"}>} */ (c.presentation);
  const locale = c.view.locale;
  const question = localized(approval.question, locale) ?? c.card.questions[0].question;
  const detail = approval.detailHtml ? localized(approval.detailHtml, locale) : c.card.view.detailHtml[0];
  const iconUrl = approval.subjectIcon && ICON_URL.test(approval.subjectIcon.trim()) ? approval.subjectIcon.trim() : null;
  const subject =
    approval.subjectName || iconUrl
      ? h(
          "p",
          { class: "ipyask-subject" },
          iconUrl ? imageOrGate(iconUrl, { class: "ipyask-subject__icon", width: 20, height: 20, icon: true }) : null,
          h("span", {}, approval.subjectName ?? ""),
        )
      : null;
  const eyebrow = [h("span", { class: "ipyask-dot", "aria-hidden": "true" }), t.waitingApproval];
  const head = header(c, { eyebrow, title: question, subject });
  // No details, no details bar: an empty focusable group would be a stop with nothing to read.
  const details =
    typeof detail === "string" && detail.trim()
      ? h("div", { class: "ipyask-approval-detail", role: "group", tabindex: "0", "aria-label": t.approvalDetails, "data-focus": "details", "data-scroll": "details" }, markdownBlock(detail))
      : null;
  // While an answer waits for the kernel, the button that sent it says so: never another one.
  const label = (/** @type {string} */ action, /** @type {string} */ text) => (c.busy && c.pressed === action ? t.submitting : text);
  const buttons = h("div", { class: "ipyask-buttons" }, button(c, "reject", label("reject", t.reject)));
  if (approval.always) buttons.append(button(c, "always", label("always", t.alwaysAllow)));
  buttons.append(
    button(c, "approve", label("approve", approveWord(t, approval.approveLabel, locale)), {
      primary: true,
      disabled: !c.canSubmit(),
    }),
  );
  return [head, notice(c), details && h("div", { class: "ipyask-body" }, details), h("div", { class: "ipyask-foot" }, feedbackLine(c), buttons)].filter(isNode);
}

/**
 * Answer `question` with the label behind the approve, reject or always control.
 * @param {CardController} c
 * @param {string} action
 * @param {Question} question
 */
export function answerWith(c, action, question) {
  const p = c.presentation;
  if (p.kind !== "approval") return;
  const label = action === "approve" ? p.approve : action === "reject" ? p.reject : action === "always" ? p.always ?? null : null;
  if (label === null || c.busy || !c.canSubmit()) return;
  c.pressed = action;
  c.sendAnswer([{ id: question.id, selected: [label] }]);
}
