// @ts-check
/**
 * A tool call to approve (ipyask extension): the tool's name, its description (kernel-rendered
 * Markdown), its arguments as highlighted JSON, and exactly the decisions the caller allows, with
 * the kernel's labels. Approve answers at once; Always allow too, unless the kernel offers to add a
 * rule (`card.alwaysRule`): then it opens its screen, where the person picks the scope and
 * narrows the rule. Edit, Reject, Respond, Always reject and Reject and stop open their screen
 * (tool-screens.js) with Back and Submit.
 * Every function takes the card's controller as `c`.
 */

import { h, isEditable, isNode } from "../dom.js";
import { markdownBlock } from "../sanitize.js";
import { fill, wordFor } from "../strings.js";
import { button, feedbackLine, header, notice } from "../card/parts.js";
import { jsonView } from "../fields/json-view.js";
import { isSingleLine } from "./form.js";
import { labelOf, screenFields, screenInput, screenReady, submitScreen, toolPresentation } from "./tool-screens.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { DecisionKind } from "../types.js"
 * @import { ToolState } from "./tool-screens.js"
 */

/** The decisions' buttons, left to right: the primary one (Approve) comes last. */
const BUTTON_ORDER = /** @type {DecisionKind[]} */ (["stop", "never", "reject", "respond", "edit", "always", "approve"]);

/** The decisions that open a screen, by their button's action. */
const SCREENS = new Map(/** @type {[string, ToolState["screen"]][]} */ ([
  ["tool-edit", "edit"],
  ["tool-reject", "reject"],
  ["tool-respond", "respond"],
  ["tool-never", "never"],
  ["tool-stop", "stop"],
]));

/** @type {WeakMap<CardController, ToolState>} per card, per question set */
const states = new WeakMap();

/** @type {Presenter} */
export const toolApproval = { build, act, input: (c, event) => screenInput(c, stateOf(c), event), key };

/** @param {CardController} c */
function stateOf(c) {
  let state = states.get(c);
  if (!state || state.questions !== c.questionsJson) {
    const json = JSON.stringify(toolPresentation(c).arguments, null, 2);
    const rule = c.card.alwaysRule?.suggested ?? "";
    state = { questions: c.questionsJson, screen: "review", opener: "", expanded: new Set(), edit: null, json, reason: "", reply: "", scope: "session", rule };
    states.set(c, state);
  }
  return state;
}

/** @param {CardController} c */
function build(c) {
  const t = c.t;
  const p = toolPresentation(c);
  const state = stateOf(c);
  const bodyId = c.view.nextId();
  const eyebrow = [h("span", { class: "ipyask-dot", "aria-hidden": "true" }), t.toolCall];
  const subject = h("p", { class: "ipyask-subject ipyask-tool-name" }, h("code", {}, p.toolName));
  const asked = c.card.questions[0].question;
  const title = asked === `Run ${p.toolName}?` ? fill(t.runTool, { name: p.toolName }) : asked; // the kernel's own title
  const head = header(c, { eyebrow, title, subject, bodyId });
  const parts = [head, notice(c)];
  if (!c.collapsed) {
    const body = h("div", { class: "ipyask-body ipyask-tool", id: bodyId });
    const detail = c.card.view.detailHtml[0];
    if (typeof detail === "string") body.append(h("div", { class: "ipyask-tool__desc" }, markdownBlock(detail)));
    if (state.screen === "review") body.append(...argumentsView(c, state));
    else body.append(h("div", { class: "ipyask-screen" }, ...screenFields(c, state)));
    parts.push(body);
  }
  const buttons = h("div", { class: "ipyask-buttons" });
  if (state.screen === "review") {
    for (const kind of BUTTON_ORDER) {
      const label = labelOf(c, kind);
      if (label === null) continue;
      const control = button(c, `tool-${kind}`, wordFor(t, kind, label), { primary: kind === "approve", disabled: !c.canSubmit() && (kind === "approve" || kind === "always") });
      if (state.opener === `tool-${kind}`) control.dataset.first = "";
      buttons.append(control);
    }
  } else {
    buttons.append(
      button(c, "tool-back", t.back),
      button(c, "tool-submit", c.busy ? t.submitting : t.submit, { primary: true, disabled: !c.canSubmit() || !screenReady(c, state) }),
    );
  }
  parts.push(h("div", { class: "ipyask-foot" }, feedbackLine(c), buttons));
  return parts.filter(isNode);
}

/**
 * The proposed arguments: a focusable, labelled block of highlighted JSON.
 * @param {CardController} c
 * @param {ToolState} state
 */
function argumentsView(c, state) {
  const t = c.t;
  const args = toolPresentation(c).arguments;
  const labelId = c.view.nextId();
  const label = h("p", { class: "ipyask-section-label", id: labelId }, t.toolArguments);
  if (Object.keys(args).length === 0) return [label, h("p", { class: "ipyask-muted" }, t.noArguments)];
  const block = h(
    "pre",
    { class: "ipyask-json-block", role: "group", tabindex: "0", "aria-labelledby": labelId, "data-focus": "arguments" },
    jsonView(args, state.expanded, t, c.busy),
  );
  return [label, block];
}

/**
 * @param {CardController} c
 * @param {string} action
 * @param {HTMLElement} target
 */
function act(c, action, target) {
  const state = stateOf(c);
  if (action === "json-toggle") {
    const path = target.dataset.path ?? "";
    if (!state.expanded.delete(path)) state.expanded.add(path);
    c.render();
  } else if (action === "tool-always" && c.card.alwaysRule) {
    if (c.busy) return;
    state.screen = "always";
    state.opener = action;
    c.feedback = null;
    c.refusal = null;
    c.countdown.engage();
    c.render("first");
  } else if (action === "tool-approve" || action === "tool-always") {
    const label = labelOf(c, action === "tool-approve" ? "approve" : "always");
    if (label !== null && c.canSubmit()) c.sendAnswer([{ id: c.card.questions[0].id, selected: [label] }]);
  } else if (SCREENS.has(action)) {
    if (c.busy) return;
    state.screen = SCREENS.get(action) ?? "review";
    state.opener = action;
    c.feedback = null;
    c.refusal = null;
    c.countdown.engage();
    c.render("first");
  } else if (action === "tool-back") back(c, state);
  else if (action === "tool-submit") submitScreen(c, state);
}

/**
 * @param {CardController} c
 * @param {ToolState} state
 */
function back(c, state) {
  if (c.busy) return;
  state.screen = "review";
  c.feedback = null;
  c.refusal = null;
  c.render("first");
}

/**
 * On the review: Enter approves and Escape rejects, as on an approval card (never from a
 * button or a field). On a second screen: Escape goes back, Enter in a one-line field and
 * Ctrl/⌘+Enter in a text area submit.
 * @param {CardController} c
 * @param {KeyboardEvent} event
 */
function key(c, event) {
  const target = /** @type {HTMLElement} */ (event.target);
  if (event.isComposing || event.keyCode === 229 || event.altKey || event.shiftKey) return;
  const command = event.ctrlKey || event.metaKey;
  const state = stateOf(c);
  if (state.screen === "review") {
    if (command || event.repeat || isEditable(target)) return;
    if (event.key === "Enter" && !target.closest("button, a") && labelOf(c, "approve") !== null) {
      event.preventDefault();
      act(c, "tool-approve", target);
    } else if (event.key === "Escape" && labelOf(c, "reject") !== null) {
      event.preventDefault();
      const label = labelOf(c, "reject");
      if (label !== null && c.canSubmit()) c.sendAnswer([{ id: c.card.questions[0].id, selected: [label] }]);
    }
    return;
  }
  if (event.key === "Escape" && !command) {
    event.preventDefault();
    back(c, state);
  } else if (event.key === "Enter" && ((!command && isSingleLine(target)) || (command && target instanceof HTMLTextAreaElement))) {
    event.preventDefault();
    submitScreen(c, state);
  }
}
