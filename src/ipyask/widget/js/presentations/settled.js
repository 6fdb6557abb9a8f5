// @ts-check
/**
 * A settled card (answered, cancelled or expired): the first question and, when answered, a
 * one-line summary that expands to every question with its answer.
 * Every function takes the card's controller as `c`.
 */

import { h, isNode } from "../dom.js";
import { fill, localized } from "../strings.js";
import { header, notice } from "../card/parts.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { AnswerItem } from "../types.js"
 */

/** @type {Presenter} */
export const settled = { build };

/** @param {CardController} c */
function build(c) {
  const t = c.t;
  const first = c.card.questions[0];
  const answer = c.card.status === "answered" ? c.card.answer : undefined;
  const items = answer?.answers ?? [];
  const bodyId = items.length > 0 ? c.view.nextId() : undefined;
  const head = header(c, { eyebrow: first.header ? [first.header] : [], title: first.question, bodyId, expanded: c.expanded });
  const parts = [head];
  if (answer) {
    const body = h("div", { class: "ipyask-body ipyask-summary", id: bodyId ?? null });
    const line = approvalSummary(c, items) ?? summaryLine(c, items);
    body.append(h("p", { class: "ipyask-summary__line" }, line));
    if (c.expanded) {
      const list = h("dl", { class: "ipyask-summary__list" });
      for (const question of c.card.questions) {
        const item = items.find((candidate) => candidate.id === question.id);
        const given = item ? answerValues(item) : [];
        const label = question.header && question.header !== question.question ? `${question.header} — ${question.question}` : question.question;
        list.append(h("dt", {}, label), h("dd", {}, given.length ? t.answerPrefix + given.join(", ") : t.skippedItem));
      }
      body.append(list);
    }
    parts.push(body);
  }
  parts.push(/** @type {HTMLElement} */ (notice(c)));
  return parts.filter(isNode);
}

/**
 * What the person did on an approval card, in the words of the button they clicked, with the
 * label the agent received beside it when that differs.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 */
function approvalSummary(c, items) {
  const p = c.presentation;
  const value = items[0]?.selected[0];
  if (p.kind !== "approval" || value === undefined) return null;
  const t = c.t;
  const did =
    value === p.reject ? t.rejected
    : value === p.always ? t.alwaysAllowed
    : value === p.approve ? localized(p.approveLabel, c.view.locale) ?? t.allowedOnce
    : null;
  if (did === null) return null;
  return did === value ? did : fill(t.agentReceived, { did, value });
}

/**
 * One line for the whole card: a lone question's answer, or one "Label: answer" part per question
 * so values of different questions never run together.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 */
function summaryLine(c, items) {
  const t = c.t;
  const questions = c.card.questions;
  /** @param {string} id */
  const given = (id) => {
    const item = items.find((candidate) => candidate.id === id);
    return item ? answerValues(item) : [];
  };
  if (questions.length === 1) {
    const values = given(questions[0].id);
    return values.length ? values.join(", ") : t.skipped;
  }
  return questions
    .map((question) => {
      const values = given(question.id);
      return `${shortLabel(question)}: ${values.length ? values.join(", ") : t.skippedPart}`;
    })
    .join(" · ");
}

/**
 * A question's name in the summary: its header, else its text without the closing question mark.
 * @param {{ header?: string | null, question: string }} question
 */
function shortLabel(question) {
  return question.header || question.question.replace(/[?？]\s*$/u, "");
}

/** @param {AnswerItem} item */
function answerValues(item) {
  const custom = (item.custom ?? "").trim();
  return custom ? [...item.selected, custom] : [...item.selected];
}
