// @ts-check
/**
 * A settled card (answered, cancelled or expired): the first question and, when answered, a
 * one-line summary in the person's words (a decision on a tool call or form says what was
 * decided, not the wire text) that expands to every question with its answer, or to the tool's
 * arguments or the form's values.
 * Every function takes the card's controller as `c`.
 */

import { h, isNode } from "../dom.js";
import { DEFAULT_APPROVE, DEFAULT_REJECT, approveWord, fill, localized } from "../strings.js";
import { header, notice } from "../card/parts.js";

/**
 * @import { CardController, Presenter } from "../card/controller.js"
 * @import { AnswerItem, Presentation } from "../types.js"
 * @import { Strings } from "../strings.js"
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
  const head = header(c, { eyebrow: first.header ? [first.header] : [], title: settledTitle(c), bodyId, expanded: c.expanded });
  const parts = [head];
  if (answer) {
    const body = h("div", { class: "ipyask-body ipyask-summary", id: bodyId ?? null });
    const line = approvalSummary(c, items) ?? planSummary(c, items) ?? toolSummary(c, items) ?? formSummary(c, items) ?? summaryLine(c, items);
    body.append(h("p", { class: "ipyask-summary__line" }, line));
    const pairs = c.expanded ? toolArguments(c, items) ?? formValues(c, items) : null;
    if (pairs) {
      // The arguments approved or refused, the form's values: by name, in the person's words.
      const list = h("dl", { class: "ipyask-summary__list" });
      for (const [name, value] of pairs) list.append(h("dt", {}, name), h("dd", {}, value));
      body.append(list);
    } else if (c.expanded) {
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
 * The card's title as its pending card showed it: an approval's question in the card's
 * language, the kernel's own "Run write_file?" in the card's words.
 * @param {CardController} c
 */
function settledTitle(c) {
  const p = c.presentation;
  const asked = c.card.questions[0].question;
  if (p.kind === "tool-approval" && asked === `Run ${p.toolName}?`) return fill(c.t.runTool, { name: p.toolName });
  if (p.kind === "approval") return localized(p.question, c.view.locale) ?? asked;
  return asked;
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
    : value === p.approve ? approvedWord(c)
    : null;
  if (did === null) return null;
  // The label the agent received is worth saying only when it is not the card's own word for it
  // (nor `approve()`'s default label, which the card words in its language).
  const ownWords = [t.reject, t.rejected, t.alwaysAllow, t.alwaysAllowed, t.allowOnce, t.allowedOnce, approveWord(t, p.approveLabel, c.view.locale), DEFAULT_APPROVE, DEFAULT_REJECT];
  return ownWords.includes(value) ? did : fill(t.agentReceived, { did, value });
}

/**
 * What an approval's approve button did, in words: "Allowed once" for the card's own button,
 * "Approved" for `approve()`'s default label, else the agent's label (the person clicked it).
 * @param {CardController} c
 */
function approvedWord(c) {
  const p = /** @type {Extract<Presentation, {kind: "approval"}>} */ (c.presentation);
  const label = localized(p.approveLabel, c.view.locale);
  if (label === undefined) return c.t.allowedOnce;
  return label === DEFAULT_APPROVE ? c.t.toolApproved : label;
}

/**
 * What the person decided on a plan: approved, or not, with the changes they asked for.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 */
function planSummary(c, items) {
  const p = c.presentation;
  const item = items[0];
  if (p.kind !== "plan-review" || !item) return null;
  const t = c.t;
  if (item.selected[0] === p.approve.label) return t.planApproved;
  const changes = (item.custom ?? "").trim();
  return changes ? fill(t.changesRequested, { changes }) : t.notApproved;
}

/**
 * What the person decided on a tool call, in words: approved, approved with which changes,
 * rejected (and why), or answered instead of running.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 */
function toolSummary(c, items) {
  const p = c.presentation;
  const item = items[0];
  const decision = p.kind === "tool-approval" && item ? p.decisions.find((d) => d.label === item.selected[0]) : undefined;
  if (p.kind !== "tool-approval" || !item || !decision) return null;
  const t = c.t;
  const text = (item.custom ?? "").trim();
  if (decision.kind === "approve") return t.toolApproved;
  if (decision.kind === "always") {
    const scoped = parseObject(text);
    const rule = scoped && typeof scoped.rule === "string" ? scoped.rule : null;
    if (rule === null) return t.alwaysAllowed;
    return fill(scoped?.scope === "saved" ? t.alwaysAllowedSaved : t.alwaysAllowedSession, { rule });
  }
  if (decision.kind === "reject") return text ? fill(t.toolRejectedWhy, { reason: text }) : t.rejected;
  if (decision.kind === "never") return text ? fill(t.alwaysRejectedWhy, { reason: text }) : t.alwaysRejected;
  if (decision.kind === "stop") return text ? fill(t.rejectedStoppedWhy, { reason: text }) : t.rejectedStopped;
  if (decision.kind === "respond") return fill(t.toolResponded, { reply: text });
  const edited = parseObject(text) ?? {};
  const changed = Object.keys({ ...p.arguments, ...edited }).filter((name) => JSON.stringify(p.arguments[name]) !== JSON.stringify(edited[name]));
  const changes = changed.map((name) => (name in edited ? `${name} → ${shown(t, edited[name])}` : fill(t.argumentRemoved, { name })));
  return changes.length ? fill(t.toolEdited, { changes: changes.join(", ") }) : t.toolApproved;
}

/**
 * The arguments the tool runs with (the edited ones after an Edit) or was refused with.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 * @returns {[string, string][] | null}
 */
function toolArguments(c, items) {
  const p = c.presentation;
  const item = items[0];
  if (p.kind !== "tool-approval" || !item) return null;
  const edit = p.decisions.find((d) => d.kind === "edit" && d.label === item.selected[0]);
  const args = (edit && parseObject((item.custom ?? "").trim())) || p.arguments;
  const pairs = Object.entries(args).map(([name, value]) => /** @type {[string, string]} */ ([name, shown(c.t, value)]));
  return pairs.length ? pairs : [[c.t.toolArguments, c.t.noArguments]];
}

/**
 * What the person did on a form: submitted (with each value by its field's title), declined or
 * cancelled.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 */
function formSummary(c, items) {
  const p = c.presentation;
  const chosen = items[0]?.selected[0];
  if (p.kind !== "form" || chosen === undefined) return null;
  const t = c.t;
  if (chosen === p.decline) return t.declined;
  if (chosen === p.cancel) return t.cancelled;
  if (chosen !== p.accept) return null;
  const values = formValues(c, items) ?? [];
  return values.length ? fill(t.formSubmitted, { values: values.map(([label, value]) => fill(t.labelled, { label, value })).join(" · ") }) : t.submitted;
}

/**
 * A submitted form's values, each under its field's title and an option under its own title.
 * @param {CardController} c
 * @param {AnswerItem[]} items
 * @returns {[string, string][] | null}
 */
function formValues(c, items) {
  const p = c.presentation;
  const item = items[0];
  if (p.kind !== "form" || !item || item.selected[0] !== p.accept) return null;
  const values = parseObject((item.custom ?? "").trim()) ?? {};
  /** @type {[string, string][]} */
  const pairs = [];
  for (const field of p.form.fields) {
    if (!(field.name in values)) continue;
    const value = values[field.name];
    const options = field.kind === "select" || field.kind === "multi-select" ? field.options : [];
    const titled = (/** @type {unknown} */ v) => options.find((o) => o.value === v)?.title ?? shown(c.t, v);
    pairs.push([field.title ?? field.name, Array.isArray(value) ? value.map(titled).join(", ") : titled(value)]);
  }
  return pairs;
}

/**
 * A value as a person reads it: text as it is, yes / no, numbers, else compact JSON.
 * @param {Strings} t
 * @param {unknown} value
 */
function shown(t, value) {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? t.yes : t.no;
  return JSON.stringify(value) ?? "";
}

/**
 * The JSON object in `text`, or `null`.
 * @param {string} text
 * @returns {Record<string, unknown> | null}
 */
function parseObject(text) {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
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
      return fill(t.labelled, { label: shortLabel(question), value: values.length ? values.join(", ") : t.skippedPart });
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
