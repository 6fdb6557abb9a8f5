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
    dismissAll: "Cancel the question…",
    cancelTitle: "Cancel this question?",
    cancelText: "The agent will be told that you cancelled it.",
    keepQuestion: "Keep the question",
    cancelQuestion: "Cancel the question",
    previous: "Previous question",
    following: "Next question",
    questionOf: "Question {index} of {total}",
    skipped: "Skipped",
    skippedPart: "skipped",
    skippedItem: "This question was skipped.",
    answerPrefix: "Answer: ",
    planReview: "Plan review",
    requestChanges: "Request changes",
    changesLabel: "What should change?",
    changesPlaceholder: "Tell the agent what to change in the plan (optional)",
    approvePlan: "Approve",
    waitingApproval: "Waiting for approval",
    approvalDetails: "Approval details",
    reject: "Reject",
    allowOnce: "Allow once",
    alwaysAllow: "Always allow",
    rejected: "Rejected",
    allowedOnce: "Allowed once",
    alwaysAllowed: "Always allowed",
    agentReceived: "{did} · the agent received “{value}”",
    showHidden: "Show hidden questions ({count})",
    showEarlier: "Show earlier answers ({count})",
    earlierAnswers: "Earlier answers",
    newQuestion: "New question: {title}",
    dismissError: "Dismiss the message",
    showImages: "Show images from {host}",
    toolCall: "Tool call",
    toolArguments: "Arguments",
    noArguments: "No arguments",
    showAllCharacters: "Show all {count} characters",
    showItems: "Expand ({count})",
    showLess: "Show less",
    editArguments: "Edit the arguments",
    argumentsJson: "Arguments as JSON",
    schemaChecked: "They are checked against the tool's schema when you submit.",
    invalidJson: "Not valid JSON: {problem}",
    notAnObject: "The arguments must be a JSON object ({…}).",
    rejectReason: "Reason for the model (optional)",
    respondText: "Reply to the model instead of running the tool",
    back: "Back",
    form: "Form",
    required: "required",
    chooseOne: "Choose…",
    fieldRequired: "This field is required.",
    chooseOption: "Choose one of the options.",
    tooShort: "Enter at least {count} characters.",
    tooLong: "Enter at most {count} characters.",
    patternMismatch: "Must match the pattern {pattern}.",
    badEmail: "Enter an email address (name@example.com).",
    badUrl: "Enter a URL with a scheme (https://…).",
    badDate: "Enter a complete date.",
    badDateTime: "Enter a complete date and time.",
    badNumber: "Enter a number.",
    badInteger: "Enter a whole number.",
    tooSmall: "Must be at least {min}.",
    tooBig: "Must be at most {max}.",
    fewChoices: "Choose at least {count}.",
    manyChoices: "Choose at most {count}.",
    fieldError: "{field}: {error}",
    fixFields: "Please correct the marked fields.",
    kernelGone: "The kernel restarted — this question is no longer live.",
    noLongerLive: "No longer live",
    sendFailed: "Could not reach the kernel. Is it still running? Try again.",
    noReply: "No reply from the kernel yet: it may be busy or restarted. You can try again.",
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
    dismissAll: "取消这个问题…",
    cancelTitle: "取消这个问题？",
    cancelText: "智能体会得知你取消了它。",
    keepQuestion: "保留问题",
    cancelQuestion: "取消问题",
    previous: "上一个问题",
    following: "下一个问题",
    questionOf: "第 {index} 题，共 {total} 题",
    skipped: "已跳过",
    skippedPart: "已跳过",
    skippedItem: "这道问题当时被跳过。",
    answerPrefix: "回答：",
    planReview: "计划待审",
    requestChanges: "要求修改",
    changesLabel: "需要修改什么？",
    changesPlaceholder: "告诉智能体计划里要改什么（可选）",
    approvePlan: "同意执行",
    waitingApproval: "等待审批",
    approvalDetails: "审批详情",
    reject: "拒绝",
    allowOnce: "允许一次",
    alwaysAllow: "始终允许",
    rejected: "已拒绝",
    allowedOnce: "已允许一次",
    alwaysAllowed: "已始终允许",
    agentReceived: "{did} · 智能体收到“{value}”",
    showHidden: "显示已收起的问题（{count}）",
    showEarlier: "显示更早的回答（{count}）",
    earlierAnswers: "更早的回答",
    newQuestion: "新问题：{title}",
    dismissError: "关闭提示",
    showImages: "显示来自 {host} 的图片",
    toolCall: "工具调用",
    toolArguments: "参数",
    noArguments: "无参数",
    showAllCharacters: "显示全部 {count} 个字符",
    showItems: "展开（{count}）",
    showLess: "收起",
    editArguments: "编辑参数",
    argumentsJson: "参数（JSON）",
    schemaChecked: "提交时会按工具的参数结构检查。",
    invalidJson: "不是有效的 JSON：{problem}",
    notAnObject: "参数必须是 JSON 对象（{…}）。",
    rejectReason: "给模型的拒绝理由（可选）",
    respondText: "不运行工具，直接回复模型",
    back: "返回",
    form: "表单",
    required: "必填",
    chooseOne: "请选择…",
    fieldRequired: "此项必填。",
    chooseOption: "请从选项中选择一项。",
    tooShort: "至少输入 {count} 个字符。",
    tooLong: "最多输入 {count} 个字符。",
    patternMismatch: "须符合格式 {pattern}。",
    badEmail: "请输入电子邮件地址（name@example.com）。",
    badUrl: "请输入带协议的网址（https://…）。",
    badDate: "请输入完整的日期。",
    badDateTime: "请输入完整的日期和时间。",
    badNumber: "请输入数字。",
    badInteger: "请输入整数。",
    tooSmall: "不能小于 {min}。",
    tooBig: "不能大于 {max}。",
    fewChoices: "至少选择 {count} 项。",
    manyChoices: "最多选择 {count} 项。",
    fieldError: "{field}：{error}",
    fixFields: "请修正标出的字段。",
    kernelGone: "内核已重启，这个问题已失效。",
    noLongerLive: "已失效",
    sendFailed: "无法连接内核。它还在运行吗？请再试一次。",
    noReply: "内核还没有回应：它可能正忙或已重启。你可以再试一次。",
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
 * The notices the kernel sets on cards, by their `noticeCode` (the kernel's own table of them,
 * `bridge/panel/_texts.py`, says the same).
 * @type {Record<"en" | "zh", Record<string, string>>}
 */
export const NOTICES = {
  en: {
    "you-cancelled": "You cancelled this question; the agent was told.",
    "agent-stopped": "The agent stopped waiting for this question.",
    "time-ran-out": "The agent stopped waiting: the time for this question ran out.",
    "closed-unanswered": "The question was closed before it was answered.",
    "cancelled": "The question was cancelled.",
    "reply-queued": "Answer sent: the agent reads it at its next step.",
    "late-reply-impossible": "The agent went on without an answer and cannot take a late one, so this answer was not delivered.",
    "no-longer-answerable": "This question can no longer be answered.",
    "asked-earlier": "Asked before a restart: the process that asked ({process}) has ended. Your answer is kept; the agent gets it when it asks this question again.",
    "settled-elsewhere": "Settled in another view or process.",
    "not-in-store": "This question is no longer in the store.",
    "nobody-could-answer": "Nobody could answer this question.",
    "store-unreachable": "Not saved yet: the store is unreachable; retrying…",
    "store-locked": "Not saved yet: the store {location} is locked by another process; retrying… Finish or close the process that holds it.",
    "store-read-only": "Not saved yet: the store {location} is read-only; retrying… Make the file and its folder writable.",
    "store-full": "Not saved yet: the disk holding the store {location} is full; retrying… Free some space there.",
  },
  zh: {
    "you-cancelled": "你取消了这个问题，智能体已得知。",
    "agent-stopped": "智能体不再等待这个问题的回答。",
    "time-ran-out": "智能体不再等待：这个问题的回答时间已到。",
    "closed-unanswered": "这个问题在回答之前已关闭。",
    "cancelled": "这个问题已取消。",
    "reply-queued": "回答已发送：智能体会在下一步读到它。",
    "late-reply-impossible": "智能体没等到回答就继续工作了，且无法接收迟到的回答，所以这个回答没有送达。",
    "no-longer-answerable": "这个问题已无法回答。",
    "asked-earlier": "重启之前提出的问题：提出它的进程（{process}）已结束。你的回答会被保存，智能体再次提出这个问题时会收到它。",
    "settled-elsewhere": "已在另一个视图或进程中处理。",
    "not-in-store": "这个问题已不在存储中。",
    "nobody-could-answer": "没有人能回答这个问题。",
    "store-unreachable": "尚未保存：无法连接到存储，正在重试…",
    "store-locked": "尚未保存：存储 {location} 被另一个进程锁定，正在重试…请结束或关闭占用它的进程。",
    "store-read-only": "尚未保存：存储 {location} 是只读的，正在重试…请让该文件及其文件夹可写。",
    "store-full": "尚未保存：存储 {location} 所在的磁盘已满，正在重试…请在那里腾出空间。",
  },
};

/**
 * What a view says, in its own words, for the refusals a person meets that need no detail from
 * the kernel, by the error's `code`. Any other code shows the kernel's `message`.
 * @type {Record<"en" | "zh", Record<string, string>>}
 */
export const ERRORS = {
  en: {
    ALREADY_ANSWERED: "This question was already answered, here or in another view.",
    NOT_PENDING: "This question is already settled.",
    NOT_ANSWERABLE: "This question can no longer be answered.",
    NOT_SAVED_YET: "Not saved yet: the store cannot take answers now. Your latest answer is saved as soon as it can be.",
    UNKNOWN_CARD: "The kernel no longer knows this question.",
    REPLY_QUEUED: "An answer to this question already waits for the agent's next step.",
    CALLER_NOT_LIVE: "The agent that asked has ended, so it cannot take this answer.",
    DELEGATED_CALLER: "Another agent now runs the agent that asked, so it cannot take this answer here.",
    HELD: "You are taking time: the question waits for your answer.",
  },
  zh: {
    ALREADY_ANSWERED: "这个问题已在这里或另一个视图中回答过了。",
    NOT_PENDING: "这个问题已经结束。",
    NOT_ANSWERABLE: "这个问题已无法回答。",
    NOT_SAVED_YET: "尚未保存：存储现在无法接收回答。你最新的回答会在可以时立即保存。",
    UNKNOWN_CARD: "内核已不认识这个问题。",
    REPLY_QUEUED: "这个问题已有一个回答在等待智能体的下一步。",
    CALLER_NOT_LIVE: "提问的智能体已结束，无法接收这个回答。",
    DELEGATED_CALLER: "提问的智能体现由另一个智能体管理，这里无法把回答交给它。",
    HELD: "你正在慢慢回答：这个问题会等你。",
  },
};

/**
 * What a view shows for a kernel `error` in `lang`: its own words for a code it knows, else the
 * kernel's message.
 * @param {string} code
 * @param {string} message
 * @param {"en" | "zh"} lang
 */
export function errorText(code, message, lang) {
  return Object.hasOwn(ERRORS[lang], code) ? ERRORS[lang][code] : message;
}

/**
 * What a card's notice says in `lang`: the text of its code, filled from its params, else the
 * kernel's own `notice` (an unknown code, or a notice without one).
 * @param {{notice?: string, noticeCode?: string, noticeParams?: Record<string, string>}} card
 * @param {"en" | "zh"} lang
 */
export function noticeText(card, lang) {
  const code = card.noticeCode;
  const known = code !== undefined && Object.hasOwn(NOTICES[lang], code);
  return known ? fill(NOTICES[lang][code], card.noticeParams ?? {}) : card.notice;
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
