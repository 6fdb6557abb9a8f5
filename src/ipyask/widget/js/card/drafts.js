// @ts-check
/**
 * Drafts: what the person has picked or typed for each question of a card, before it is sent,
 * and how a draft is encoded as an answer item (semantics §6.4).
 */

/** @import { AnswerItem, Draft, Question } from "../types.js" */

const RECOMMENDED = /\s*(?:\((?:recommended|推荐)\)|（(?:recommended|推荐)）)\s*$/i;

/**
 * An option label without its "(recommended)" suffix, and whether it had one.
 * @param {string} label
 */
export function parseLabel(label) {
  const match = RECOMMENDED.exec(label);
  return match ? { text: label.slice(0, match.index), recommended: true } : { text: label, recommended: false };
}

/**
 * One empty draft per question. A recommended option is marked, never preselected: an answer is
 * always something the person chose.
 * @param {Question[]} questions
 * @returns {Draft[]}
 */
export function freshDrafts(questions) {
  return questions.map(() => ({ selected: [], custom: "", skipped: false }));
}

/** @param {Draft} draft */
export function isAnswered(draft) {
  return draft.selected.length > 0 || draft.custom.trim() !== "";
}

/**
 * Encode a draft as the reference does (semantics §6.4).
 * @param {Question} question
 * @param {Draft} draft
 * @returns {AnswerItem}
 */
export function encode(question, draft) {
  if (draft.skipped) return { id: question.id, selected: [] };
  const custom = draft.custom.trim();
  const selected = custom === "" || question.multiSelect ? [...draft.selected] : [];
  return custom ? { id: question.id, selected, custom } : { id: question.id, selected };
}
