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
    answeredLate: "Answered late",
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
    runTool: "Run {name}?",
    alwaysReject: "Always reject",
    rejectAndStop: "Reject and stop",
    alwaysRejected: "Always rejected",
    alwaysRejectedWhy: "Always rejected: {reason}",
    rejectedStopped: "Rejected; the agent stops",
    rejectedStoppedWhy: "Rejected; the agent stops: {reason}",
    approveTool: "Approve",
    editTool: "Edit",
    respondTool: "Respond",
    declineForm: "Decline",
    cancelForm: "Cancel",
    declined: "Declined",
    submitted: "Submitted",
    formSubmitted: "Submitted · {values}",
    toolApproved: "Approved",
    toolEdited: "Approved with changes: {changes}",
    argumentRemoved: "{name} removed",
    toolRejectedWhy: "Rejected: {reason}",
    toolResponded: "Not run; replied instead: {reply}",
    labelled: "{label}: {value}",
    planApproved: "Plan approved",
    notApproved: "Not approved",
    changesRequested: "Changes requested: {changes}",
    yes: "yes",
    no: "no",
    showHidden: "Show hidden questions ({count})",
    showEarlier: "Show earlier answers ({count})",
    earlierAnswers: "Earlier answers",
    newQuestion: "New question: {title}",
    dismissError: "Dismiss the message",
    waitingOne: "A question is waiting",
    waitingMany: "{count} questions are waiting",
    dismissWaiting: "Dismiss the reminder",
    notifyMe: "Notify me",
    notifyMeHint: "Show a desktop notification when a question arrives while this page is hidden",
    notifyBlocked: "Notifications are blocked for this page in the browser's settings.",
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
    neverNote: "Later calls of this tool are rejected without asking.",
    alwaysTitle: "Always allow calls like this one",
    alwaysHow: "For how long",
    forSession: "For this session (until the kernel stops)",
    saveAsRule: "Save as a rule in {file}",
    ruleLabel: "Rule: the calls it allows without asking",
    ruleHint: "Narrow it to the calls you mean, e.g. the path pattern: * is any text within a folder, ** any path below it. The kernel checks it.",
    ruleAdds: "Adds the allow rule",
    ruleEmpty: "Enter a rule, e.g. the tool's name.",
    alwaysAllowedSession: "Always allowed for this session: {rule}",
    alwaysAllowedSaved: "Always allowed; saved as a rule: {rule}",
    rulesInForce: "Rules in force ({count})",
    rulesNote: "Tool calls these rules decide are answered without a card. Removing a rule stops it in this kernel and deletes it from its rules file too (a rule for this session has none).",
    ruleThisSession: "this session",
    removeRule: "Remove",
    removeRuleNamed: "Remove the rule {rule}",
    stopNote: "The agent stops after this rejection.",
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
    queued: "The kernel is busy; your answer is delivered when it is free.",
    answerLost: "The kernel restarted before it confirmed your answer; this question is no longer live.",
  },
  zh: {
    countdown: "{seconds} 秒后继续工作",
    paused: "已暂停 · 剩余 {seconds} 秒",
    waiting: "会一直等你回答",
    continued: "已继续工作，仍可回答",
    answered: "已回答",
    answeredLate: "已迟到回答",
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
    runTool: "运行 {name}？",
    alwaysReject: "始终拒绝",
    rejectAndStop: "拒绝并停止",
    alwaysRejected: "已始终拒绝",
    alwaysRejectedWhy: "已始终拒绝：{reason}",
    rejectedStopped: "已拒绝，智能体停止",
    rejectedStoppedWhy: "已拒绝，智能体停止：{reason}",
    approveTool: "批准",
    editTool: "编辑",
    respondTool: "回复",
    declineForm: "婉拒",
    cancelForm: "取消",
    declined: "已婉拒",
    submitted: "已提交",
    formSubmitted: "已提交 · {values}",
    toolApproved: "已批准",
    toolEdited: "修改后批准：{changes}",
    argumentRemoved: "已删除 {name}",
    toolRejectedWhy: "已拒绝：{reason}",
    toolResponded: "未运行，改为回复：{reply}",
    labelled: "{label}：{value}",
    planApproved: "计划已批准",
    notApproved: "未批准",
    changesRequested: "要求修改：{changes}",
    yes: "是",
    no: "否",
    showHidden: "显示已收起的问题（{count}）",
    showEarlier: "显示更早的回答（{count}）",
    earlierAnswers: "更早的回答",
    newQuestion: "新问题：{title}",
    dismissError: "关闭提示",
    waitingOne: "有一个问题在等你",
    waitingMany: "有 {count} 个问题在等你",
    dismissWaiting: "关闭提醒",
    notifyMe: "通知我",
    notifyMeHint: "此页面在后台时，新问题到达会显示桌面通知",
    notifyBlocked: "浏览器设置已禁止此页面显示通知。",
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
    neverNote: "此后对该工具的调用将不再询问，直接拒绝。",
    alwaysTitle: "始终允许与此类似的调用",
    alwaysHow: "有效期",
    forSession: "仅限本次会话（直到内核停止）",
    saveAsRule: "保存为规则，写入 {file}",
    ruleLabel: "规则：无需询问即可允许的调用",
    ruleHint: "请收窄到你想允许的调用，例如路径模式：* 表示一个文件夹内的任意文字，** 表示其下的任意路径。内核会检查它。",
    ruleAdds: "将添加允许规则",
    ruleEmpty: "请输入规则，例如工具名称。",
    alwaysAllowedSession: "本次会话内始终允许：{rule}",
    alwaysAllowedSaved: "已始终允许，并保存为规则：{rule}",
    rulesInForce: "生效的规则（{count}）",
    rulesNote: "这些规则决定的工具调用会直接得到回答，不显示卡片。移除规则会让它在当前内核中停止生效，并把它从所在的规则文件中删除（本次会话的规则没有文件）。",
    ruleThisSession: "本次会话",
    removeRule: "移除",
    removeRuleNamed: "移除规则 {rule}",
    stopNote: "拒绝后智能体将停止运行。",
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
    queued: "内核正忙；它空闲后就会收到你的回答。",
    answerLost: "内核在确认你的回答之前已重启，这个问题已失效。",
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
 * The labels the kernel gives a tool approval's decisions and a form's actions when the agent
 * names none (`_rich_questions.py`), and the text that says each in the card's language. A label
 * the agent chose is shown as it is: it is what the agent receives.
 */
const DEFAULT_LABELS = {
  approve: ["Approve", "approveTool"],
  always: ["Always allow", "alwaysAllow"],
  edit: ["Edit", "editTool"],
  reject: ["Reject", "reject"],
  respond: ["Respond", "respondTool"],
  never: ["Always reject", "alwaysReject"],
  stop: ["Reject and stop", "rejectAndStop"],
  accept: ["Submit", "submit"],
  decline: ["Decline", "declineForm"],
  cancel: ["Cancel", "cancelForm"],
};

/**
 * What a decision's or action's button says: the card's own word for a default label, else the
 * label.
 * @param {Strings} t
 * @param {keyof typeof DEFAULT_LABELS} kind
 * @param {string} label
 */
export function wordFor(t, kind, label) {
  const [english, key] = DEFAULT_LABELS[kind];
  return label === english ? t[key] : label;
}

/** The approve and reject labels `ipyask.approve()` gives when the asker names none. */
export const DEFAULT_APPROVE = "Approve";
export const DEFAULT_REJECT = "Reject";

/**
 * What an approval's approve button says: the card's word for `approve()`'s default label, the
 * asker's label in the card's language, or "Allow once" when the asker gave none.
 * @param {Strings} t
 * @param {Record<string, string> | undefined} approveLabel
 * @param {string} locale
 */
export function approveWord(t, approveLabel, locale) {
  const label = localized(approveLabel, locale);
  if (label === undefined) return t.allowOnce;
  return label === DEFAULT_APPROVE ? t.approveTool : label;
}

/**
 * The notices the kernel sets on cards, by their `noticeCode` (the kernel's own table of them,
 * `_notebook/panel/_texts.py`, says the same).
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
    "reply-unread": "Answer sent to the agent's inbox, but the task that asked has ended: nobody reads it unless the agent's code reads its inbox again (agent.session.next_step).",
    "reply-kept": "Answer saved. The agent that asked has finished, so it will not read this answer; it is kept in the session log, where the projection and the transcript show it.",
    "reply-awaits-reask": "Answer saved. The MCP client gets it when it calls ask_user_question again with callId {callId}; until then it waits here.",
    "late-reply-impossible": "The agent went on without an answer and cannot take a late one.",
    "decided-by-timeout": "No answer in time: the timeout decided “{decision}” and the agent went on with that. You can still answer; your answer is recorded as late, not sent to the agent.",
    "answered-after-timeout": "Recorded late: the agent had already gone on with the timeout's decision “{decision}”.",
    "no-longer-answerable": "This question can no longer be answered.",
    "asked-earlier": "Asked before a restart: the process that asked ({process}) has ended. Your answer is kept; the agent gets it when it asks this question again.",
    "settled-elsewhere": "Settled in another view or process.",
    "not-in-store": "This question is no longer in the store.",
    "nobody-could-answer": "Nobody could answer this question.",
    "store-unreachable": "Not saved yet: the store is unreachable; retrying…",
    "store-locked": "Not saved yet: the store {location} is locked by another process; retrying… Finish or close the process that holds it.",
    "store-read-only": "Not saved yet: the store {location} is read-only; retrying… Make the file and its folder writable.",
    "store-full": "Not saved yet: the disk holding the store {location} is full; retrying… Free some space there.",
    "store-closed": "The store {location} was closed: this question stays open there, and cannot be answered here. Open the store again to answer it.",
    "rule-removed": "Removed {rule}: it no longer applies in this kernel.",
    "rule-removed-from-file": "Removed {rule}: it no longer applies in this kernel, and it was deleted from {file} (line {line}); the file's other lines are as they were.",
    "rule-file-changed": "{rule} was not removed: {file} changed on disk since this kernel read it, so it was not written over. Nothing was changed; delete the rule there, or restart the kernel to read the file again.",
    "rule-not-removed": "{rule} was not removed: it could not be deleted from {file} safely ({detail}). Nothing was changed; delete it there.",
  },
  zh: {
    "you-cancelled": "你取消了这个问题，智能体已得知。",
    "agent-stopped": "智能体不再等待这个问题的回答。",
    "time-ran-out": "智能体不再等待：这个问题的回答时间已到。",
    "closed-unanswered": "这个问题在回答之前已关闭。",
    "cancelled": "这个问题已取消。",
    "reply-queued": "回答已发送：智能体会在下一步读到它。",
    "reply-unread": "回答已放入智能体的收件箱，但提出问题的任务已结束：除非智能体的代码再次读取收件箱（agent.session.next_step），否则没有人会读到它。",
    "reply-kept": "回答已保存。提出问题的智能体已结束，不会读到这个回答；它保存在会话记录中，投影和记录里都能看到。",
    "reply-awaits-reask": "回答已保存。MCP 客户端用 callId {callId} 再次调用 ask_user_question 时会收到它；在那之前它在这里等待。",
    "late-reply-impossible": "智能体没等到回答就继续工作了，且无法接收迟到的回答。",
    "decided-by-timeout": "未及时回答：超时已决定“{decision}”，智能体已按此继续。你仍可回答；你的回答会作为迟到回答记录，不会发送给智能体。",
    "answered-after-timeout": "已作为迟到回答记录：智能体此前已按超时的决定“{decision}”继续。",
    "no-longer-answerable": "这个问题已无法回答。",
    "asked-earlier": "重启之前提出的问题：提出它的进程（{process}）已结束。你的回答会被保存，智能体再次提出这个问题时会收到它。",
    "settled-elsewhere": "已在另一个视图或进程中处理。",
    "not-in-store": "这个问题已不在存储中。",
    "nobody-could-answer": "没有人能回答这个问题。",
    "store-unreachable": "尚未保存：无法连接到存储，正在重试…",
    "store-locked": "尚未保存：存储 {location} 被另一个进程锁定，正在重试…请结束或关闭占用它的进程。",
    "store-read-only": "尚未保存：存储 {location} 是只读的，正在重试…请让该文件及其文件夹可写。",
    "store-full": "尚未保存：存储 {location} 所在的磁盘已满，正在重试…请在那里腾出空间。",
    "store-closed": "存储 {location} 已关闭：这个问题仍在其中等待回答，但无法在这里回答。请重新打开存储后再回答。",
    "rule-removed": "已移除 {rule}：它在当前内核中不再生效。",
    "rule-removed-from-file": "已移除 {rule}：它在当前内核中不再生效，并已从 {file} 中删除（第 {line} 行）；文件的其他行保持不变。",
    "rule-file-changed": "{rule} 未被移除：本内核读取 {file} 之后，该文件已在磁盘上被修改，因此没有覆盖它。没有做任何更改；请在文件中删除这条规则，或重启内核以重新读取文件。",
    "rule-not-removed": "{rule} 未被移除：无法安全地从 {file} 中删除它（{detail}）。没有做任何更改；请在文件中删除它。",
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
    NOT_ASSIGNEE: "This question is assigned to someone else: only they may answer it.",
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
    NOT_ASSIGNEE: "这个问题已指派给其他人：只有被指派的人可以回答。",
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
