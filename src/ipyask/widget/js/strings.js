// @ts-check
/** Every text the cards show, in English and Chinese, and how a text is picked and filled in. */

/** @typedef {Record<string, string>} Strings */

/** @type {Record<"en" | "zh", Strings>} */
export const STRINGS = {
  en: {
    countdown: "Continuing in {seconds}s",
    paused: "Paused · {seconds}s remaining",
    waiting: "Waiting until you answer",
    continued: "Work continued — you can still answer",
    answered: "Answered",
    cancelled: "Cancelled",
    expired: "Expired",
    takeTime: "Take time",
    skip: "Skip",
    next: "Next",
    submit: "Submit",
    submitting: "Submitting…",
    recommended: "Recommended",
    placeholder: "Type your answer",
    other: "Other answer",
    incomplete: "Please select an option or enter a custom answer.",
    completeFirst: "Please complete this question first.",
    noChannel: "Can't submit right now; please try again shortly.",
    collapse: "Collapse the question card",
    expand: "Expand the question card",
    closeKeyed: "Close the panel — reopen it from the tool call",
    dismissAll: "Dismiss all questions",
    previous: "Previous question",
    following: "Next question",
    questionOf: "Question {index} of {total}",
    skipped: "Skipped",
    skippedItem: "This question was skipped.",
    answerPrefix: "Answer: ",
    planReview: "Plan review",
    requestChanges: "Request changes",
    approvePlan: "Approve",
    waitingApproval: "Waiting for approval",
    approvalDetails: "Approval details",
    reject: "Reject",
    allowOnce: "Allow once",
    alwaysAllow: "Always allow",
    showHidden: "Show hidden questions ({count})",
    showEarlier: "Show earlier answers ({count})",
    earlierAnswers: "Earlier answers",
    dismissError: "Dismiss the message",
  },
  zh: {
    countdown: "{seconds} 秒后继续工作",
    paused: "已暂停 · 剩余 {seconds} 秒",
    waiting: "会一直等你回答",
    continued: "已继续工作，仍可回答",
    answered: "已回答",
    cancelled: "已取消",
    expired: "已失效",
    takeTime: "慢慢回答",
    skip: "跳过",
    next: "下一题",
    submit: "提交",
    submitting: "正在提交…",
    recommended: "推荐",
    placeholder: "输入你的答案",
    other: "其他答案",
    incomplete: "请选择一个选项或填写自定义答案。",
    completeFirst: "请先完成这道问题。",
    noChannel: "当前无法提交，请稍候再试。",
    collapse: "收起问题卡片",
    expand: "展开问题卡片",
    closeKeyed: "收起问题面板，可从工具调用重新打开",
    dismissAll: "放弃整组问题",
    previous: "上一个问题",
    following: "下一个问题",
    questionOf: "第 {index} 题，共 {total} 题",
    skipped: "已跳过",
    skippedItem: "这道问题当时被跳过。",
    answerPrefix: "回答：",
    planReview: "计划待审",
    requestChanges: "要求修改",
    approvePlan: "同意执行",
    waitingApproval: "等待审批",
    approvalDetails: "审批详情",
    reject: "拒绝",
    allowOnce: "允许一次",
    alwaysAllow: "始终允许",
    showHidden: "显示已收起的问题（{count}）",
    showEarlier: "显示更早的回答（{count}）",
    earlierAnswers: "更早的回答",
    dismissError: "关闭提示",
  },
};

/**
 * @param {string} template
 * @param {Record<string, string | number>} values
 */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/**
 * Pick a localized text: exact tag, then the primary subtag, then `en`.
 * @param {Record<string, string> | undefined} map
 * @param {string} tag
 */
export function localized(map, tag) {
  if (!map) return undefined;
  const lower = tag.toLowerCase().replace(/_/g, "-");
  const entries = Object.entries(map);
  const exact = entries.find(([locale]) => locale.toLowerCase().replace(/_/g, "-") === lower);
  if (exact) return exact[1];
  const primary = lower.split("-")[0];
  const partial = entries.find(([locale]) => locale.toLowerCase().split(/[-_]/)[0] === primary);
  return partial ? partial[1] : map.en;
}
