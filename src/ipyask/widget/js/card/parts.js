// @ts-check
/** The parts every presentation builds from: the header with its wait line, notice, feedback, buttons. */

import { ICON_CHEVRON, ICON_CLOSE, h, icon } from "../dom.js";
import { noticeText } from "../strings.js";

/** @import { CardController } from "./controller.js" */

/**
 * The card's header: eyebrow, subject and title, the wait line, collapse (when there is a body
 * to collapse) and close. Labels the card with the title.
 * @param {CardController} controller
 * @param {{eyebrow?: (string | Node)[], title: string, bodyId?: string, expanded?: boolean,
 *   subject?: Node | null}} parts
 */
export function header(controller, parts) {
  const t = controller.t;
  const titleId = controller.view.nextId();
  controller.el.setAttribute("aria-labelledby", titleId);
  const status = h("div", { class: "ipyask-status", "data-role": "status" }, ...controller.countdown.statusNodes());
  const actions = h("div", { class: "ipyask-actions" }, status);
  if (parts.bodyId) {
    const expanded = parts.expanded ?? !controller.collapsed;
    actions.append(
      h(
        "button",
        {
          type: "button",
          class: "ipyask-icon",
          "aria-expanded": String(expanded),
          "aria-controls": expanded ? parts.bodyId : null,
          "aria-label": expanded ? t.collapse : t.expand,
          title: expanded ? t.collapse : t.expand,
          "data-action": "collapse",
          "data-focus": "collapse",
          disabled: controller.busy,
        },
        icon(ICON_CHEVRON),
      ),
    );
  }
  const closeLabel = !controller.keyed && controller.answerable ? t.dismissAll : t.closeKeyed;
  actions.append(
    h(
      "button",
      { type: "button", class: "ipyask-icon", "aria-label": closeLabel, title: closeLabel, "data-action": "close", "data-focus": "close", disabled: controller.busy },
      icon(ICON_CLOSE),
    ),
  );
  const eyebrow = parts.eyebrow?.length ? h("p", { class: "ipyask-eyebrow" }, ...parts.eyebrow) : null;
  return h(
    "header",
    { class: "ipyask-head" },
    h("div", { class: "ipyask-head__main" }, eyebrow, parts.subject ?? null, h("h2", { class: "ipyask-title", id: titleId }, parts.title)),
    actions,
  );
}

/** @param {CardController} controller */
export function notice(controller) {
  const t = controller.t;
  // A gone kernel says so; a closed store says so in its own notice.
  const gone = controller.dead && controller.view.disconnected;
  const text = gone ? (controller.lost ? t.answerLost : t.kernelGone) : noticeText(controller.card, controller.view.lang);
  return text ? h("p", { class: "ipyask-notice" }, text) : null;
}

/** @param {CardController} controller */
export function feedbackLine(controller) {
  const feedback = controller.queued ? { text: controller.t.queued, error: false } : controller.feedback;
  return h(
    "p",
    {
      class: `ipyask-feedback${feedback?.error ? " ipyask-feedback--error" : ""}${controller.queued ? " ipyask-feedback--queued" : ""}`,
      role: "status",
      "data-role": "feedback",
    },
    feedback?.text ?? "",
  );
}

/**
 * @param {CardController} controller
 * @param {string} action
 * @param {string} text
 * @param {{primary?: boolean, title?: string, disabled?: boolean, icon?: string}} [options]
 */
export function button(controller, action, text, options = {}) {
  return h(
    "button",
    {
      type: "button",
      class: `ipyask-btn ${options.primary ? "ipyask-btn--primary" : "ipyask-btn--outline"}`,
      "data-action": action,
      "data-focus": action,
      title: options.title ?? null,
      disabled: controller.busy || options.disabled,
    },
    options.icon ? icon(options.icon) : null,
    text,
  );
}

/**
 * The step between the close button and cancelling an un-keyed question: Keep (focused, the
 * default) or Cancel the question.
 * @param {CardController} controller
 */
export function cancelConfirm(controller) {
  const t = controller.t;
  const titleId = controller.view.nextId();
  return h(
    "div",
    { class: "ipyask-confirm", role: "group", "aria-labelledby": titleId, "data-role": "confirm" },
    h("p", { class: "ipyask-confirm__text" }, h("strong", { id: titleId }, t.cancelTitle), " ", t.cancelText),
    h(
      "div",
      { class: "ipyask-buttons" },
      h("button", { type: "button", class: "ipyask-btn ipyask-btn--outline", "data-action": "cancel-confirmed", "data-focus": "cancel-confirmed" }, t.cancelQuestion),
      h("button", { type: "button", class: "ipyask-btn ipyask-btn--primary", "data-action": "keep", "data-focus": "keep", "data-keep": true }, t.keepQuestion),
    ),
  );
}
