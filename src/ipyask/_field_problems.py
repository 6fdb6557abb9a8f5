"""What is wrong with one field of a tool call's arguments or a form's values, as a code.

The checks (:mod:`._json_schema`, :mod:`._form_schema`, :mod:`._decisions`) report a
:class:`FieldProblem` per field; its text is written from :data:`FIELD_PROBLEMS` in a language,
so a card shows it in the card's language while Python callers keep the English text
(``BadAnswerError.field_errors``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "FIELD_PROBLEMS",
    "FieldProblem",
    "FieldProblemCode",
    "ProblemLanguage",
    "problem_texts",
]

ProblemLanguage = Literal["en", "zh"]
"""The languages a field problem is written in."""

FieldProblemCode = Literal[
    "not-allowed",
    "wrong-type",
    "not-an-option",
    "not-the-constant",
    "matches-no-shape",
    "matches-not-one-shape",
    "forbidden-shape",
    "required",
    "not-an-argument",
    "not-a-field",
    "min-items",
    "max-items",
    "item-twice",
    "min-length-one",
    "min-length",
    "max-length",
    "pattern",
    "schema-format",
    "minimum",
    "maximum",
    "exclusive-minimum",
    "exclusive-maximum",
    "not-a-number",
    "not-whole",
    "not-true-or-false",
    "not-its-option",
    "not-its-options",
    "option-twice",
    "min-choices",
    "max-choices",
    "not-text",
    "not-email",
    "not-uri",
    "not-date",
    "not-date-time",
    "values-not-json",
    "values-not-object",
    "arguments-not-json",
    "arguments-not-object",
    "other-question",
    "one-decision",
    "not-offered",
    "needs-decision",
    "text-needs-decision",
    "takes-no-text",
    "edit-needs-arguments",
    "respond-needs-text",
    "form-needs-answer",
    "takes-no-values",
    "bad-always-scope",
    "bad-rule",
    "rule-misses-call",
    "rule-not-saved",
]
"""Each kind of problem a field can have."""

FIELD_PROBLEMS: dict[ProblemLanguage, dict[FieldProblemCode, str]] = {
    "en": {
        "not-allowed": "is not allowed",
        "wrong-type": "must be {types}",
        "not-an-option": "must be one of {options}",
        "not-the-constant": "must be {value}",
        "matches-no-shape": "matches none of the allowed shapes",
        "matches-not-one-shape": "must match exactly one of the allowed shapes",
        "forbidden-shape": "has a shape that is not allowed",
        "required": "is required",
        "not-an-argument": "is not an argument of this tool",
        "not-a-field": "is not a field of this form",
        "min-items": "needs at least {count} items",
        "max-items": "takes at most {count} items",
        "item-twice": "has an item twice",
        "min-length-one": "needs at least 1 character",
        "min-length": "needs at least {count} characters",
        "max-length": "takes at most {count} characters",
        "pattern": "must match the pattern {pattern}",
        "schema-format": "must be in {format} format",
        "minimum": "must be at least {bound}",
        "maximum": "must be at most {bound}",
        "exclusive-minimum": "must be more than {bound}",
        "exclusive-maximum": "must be less than {bound}",
        "not-a-number": "must be a number",
        "not-whole": "must be a whole number",
        "not-true-or-false": "must be true or false",
        "not-its-option": "must be one of its options",
        "not-its-options": "must be a list of its options",
        "option-twice": "has an option chosen twice",
        "min-choices": "needs at least {count} choices",
        "max-choices": "takes at most {count} choices",
        "not-text": "must be text",
        "not-email": "must be an email address",
        "not-uri": "must be a URL with a scheme (https://…)",
        "not-date": "must be a date (YYYY-MM-DD)",
        "not-date-time": "must be a date and time with a time zone (RFC 3339)",
        "values-not-json": "the form's values are not valid JSON ({detail} at line {line})",
        "values-not-object": "the form's values must be a JSON object",
        "arguments-not-json": "the edited arguments are not valid JSON ({detail} at line {line})",
        "arguments-not-object": "the edited arguments must be a JSON object",
        "other-question": "the item answers {item}, not question {question}",
        "one-decision": "takes exactly one decision",
        "not-offered": "{label} is not one of the offered choices ({offered})",
        "needs-decision": "a tool approval needs a decision; skipping is not one",
        "text-needs-decision": (
            "free text needs a Respond or Reject decision, which is not offered"
        ),
        "takes-no-text": "the {decision} decision takes no text",
        "edit-needs-arguments": "the edit decision needs the edited arguments as JSON text",
        "respond-needs-text": "the respond decision needs the text to return to the model",
        "form-needs-answer": "a form needs an answer: submit it or decline it",
        "takes-no-values": "the {action} action takes no values",
        "bad-always-scope": (
            'Always allow\'s text must be {"scope": "session" or "saved", "rule": "…"} as JSON'
        ),
        "bad-rule": "this is not a rule: {detail}",
        "rule-misses-call": (
            "the rule {rule} does not match this call, so it would not allow it; narrow it "
            "so that this call still matches"
        ),
        "rule-not-saved": "the rule could not be saved: {detail}",
    },
    "zh": {
        "not-allowed": "不允许出现",
        "wrong-type": "必须是 {types}",
        "not-an-option": "必须是以下之一：{options}",
        "not-the-constant": "必须是 {value}",
        "matches-no-shape": "不符合任何允许的形式",
        "matches-not-one-shape": "必须恰好符合一种允许的形式",
        "forbidden-shape": "的形式不被允许",
        "required": "必填",
        "not-an-argument": "不是这个工具的参数",
        "not-a-field": "不是这个表单的字段",
        "min-items": "至少需要 {count} 项",
        "max-items": "最多 {count} 项",
        "item-twice": "有重复的项",
        "min-length-one": "至少需要 1 个字符",
        "min-length": "至少需要 {count} 个字符",
        "max-length": "最多 {count} 个字符",
        "pattern": "必须符合模式 {pattern}",
        "schema-format": "必须是 {format} 格式",
        "minimum": "不能小于 {bound}",
        "maximum": "不能大于 {bound}",
        "exclusive-minimum": "必须大于 {bound}",
        "exclusive-maximum": "必须小于 {bound}",
        "not-a-number": "必须是数字",
        "not-whole": "必须是整数",
        "not-true-or-false": "必须是 true 或 false",
        "not-its-option": "必须是给出的选项之一",
        "not-its-options": "必须是由给出的选项组成的列表",
        "option-twice": "有选项被选了两次",
        "min-choices": "至少需要选择 {count} 项",
        "max-choices": "最多只能选择 {count} 项",
        "not-text": "必须是文本",
        "not-email": "必须是电子邮件地址",
        "not-uri": "必须是带协议的网址（https://…）",
        "not-date": "必须是日期（YYYY-MM-DD）",
        "not-date-time": "必须是带时区的日期和时间（RFC 3339）",
        "values-not-json": "表单的值不是有效的 JSON（第 {line} 行：{detail}）",
        "values-not-object": "表单的值必须是一个 JSON 对象",
        "arguments-not-json": "修改后的参数不是有效的 JSON（第 {line} 行：{detail}）",
        "arguments-not-object": "修改后的参数必须是一个 JSON 对象",
        "other-question": "这一项回答的是 {item}，不是问题 {question}",
        "one-decision": "只能选择一个决定",
        "not-offered": "{label} 不是提供的选项之一（{offered}）",
        "needs-decision": "工具审批需要一个决定；跳过不算",
        "text-needs-decision": "文字需要“回复”或“拒绝”决定，但这里没有提供",
        "takes-no-text": "“{decision}”决定不带文字",
        "edit-needs-arguments": "“编辑”决定需要以 JSON 文本给出修改后的参数",
        "respond-needs-text": "“回复”决定需要返回给模型的文字",
        "form-needs-answer": "表单需要一个回答：提交或谢绝",
        "takes-no-values": "“{action}”操作不带值",
        "bad-always-scope": (
            '“始终允许”的文字必须是 JSON：{"scope": "session" 或 "saved", "rule": "…"}'
        ),
        "bad-rule": "这不是有效的规则：{detail}",
        "rule-misses-call": (
            "规则 {rule} 与这次调用不匹配，因此不会允许它；请收窄规则，但要让这次调用仍然匹配"
        ),
        "rule-not-saved": "无法保存规则：{detail}",
    },
}
"""Each field problem per language; ``{name}`` is filled from the problem's params."""

_OR: dict[ProblemLanguage, str] = {"en": " or ", "zh": " 或 "}
_NAME = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class FieldProblem:
    """What is wrong with one field: a code and the values its text names (a tuple of words is
    joined with the language's "or")."""

    code: FieldProblemCode
    params: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)

    def text(self, language: ProblemLanguage = "en") -> str:
        """The problem in ``language``."""

        def value(match: re.Match[str]) -> str:
            found = self.params.get(match.group(1), "")
            return found if isinstance(found, str) else _OR[language].join(found)

        return _NAME.sub(value, FIELD_PROBLEMS[language][self.code])


def problem_texts(
    problems: Mapping[str, FieldProblem], language: ProblemLanguage = "en"
) -> dict[str, str]:
    """Each field's problem written in ``language``."""
    return {name: problem.text(language) for name, problem in problems.items()}
