"""Read a model's answer as an action script: tolerant of how models write, strict about what they mean.

Model output is data. It is scanned character by character and matched against the backend's
:class:`Vocabulary`; nothing in it is ever evaluated. :func:`parse_script` returns a :class:`Script`
or a :class:`ParseError` for every input string and never raises, because a crash on a strange answer
would end a whole episode.

How an answer is read, and why:

* Code fences. If a line starts with a fence (three backticks, optional language tag), only the
  fenced content is read: the model has marked what it means as code, so prose outside it, which
  may mention commands ("I could also Go(3)"), is not acted on. A fence missing its closing
  backticks runs to the end of the answer.
* Calls versus prose. A call is ``Name(...)``. A known command written with its ``(`` right after
  the name is taken as a command anywhere in the text (``Sure: Turn(30)`` works); its mistakes are
  reported. Written with a space (``think (carefully) about it``) it counts only if its parentheses
  close and it is followed by ``;``, a newline, the end or another command, so ordinary prose that
  happens to contain a command word is skipped.
* An unknown name is reported (``unknown_command``) only when it looks like a statement: at the start
  of a line (after an optional list marker such as ``-`` or ``2.``), after ``;`` or after a previous
  command, with ``(`` right after the name, a well-formed argument list and a terminator after it.
  Anywhere else it is prose, unless the answer contains no command at all, in which case the first
  such call is reported instead of ``no_commands``.
* Free text. Only a command whose last parameter is TEXT (``Think``) reads free text, so its thoughts
  may contain anything. Quoted text (straight or curly quotes) ends at a matching quote followed
  by optional whitespace and ``)``; inside it ``\\"`` ``\\'`` ``\\\\`` ``\\n`` ``\\r`` ``\\t`` (and escaped
  curly quotes) are decoded and any other backslash is kept as written. Unquoted text runs to the
  ``)`` that balances the call's ``(``; if the parentheses never balance, to the last ``)`` before
  the next ``;``, newline or end. STR and TEXT values are stripped of surrounding whitespace, and an
  empty one counts as not given (so ``Think("")`` is a missing argument).
  A TEXT parameter that is not last is read like a STR. After ``name=value`` arguments the free
  text may still be written without its keyword, since it can only be the last parameter.
* Values. Arguments are positional or ``name=value`` (names case-insensitive unless the vocabulary
  is case-sensitive). Integers may be written ``+8`` or ``8.0`` (but not ``8.5``); floats accept
  integers; bools are true/false in any case; STR values may be bare (``go_to(red key)``) or quoted
  on one line, and match ``choices`` case-insensitively unless the vocabulary is case-sensitive
  (normalized to the declared spelling). Numbers in quotes are accepted for numeric parameters,
  since their meaning is unambiguous. ``multiple_of`` applies to INT parameters.
* The first error wins: a script is all or nothing, so the model never sees half its plan executed.
* Length. At most :data:`MAX_SCRIPT_CHARS` characters of script text are read (the fenced content when
  the answer has fences, else the whole answer; Think text counts). A longer one is a ``too_long``
  error, found before any reading, so a runaway answer from a misbehaving server costs one linear
  pass over it. Reading itself is linear in the text: every look-ahead is a search in C or a lookup
  in an index built once per stretch.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import math
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, replace

from agentkit.actions.script import ArgValue, Command, ParseError, Script
from agentkit.actions.vocabulary import CommandSpec, ParamSpec, ParamType, Vocabulary

__all__ = ["parse_script", "ERROR_CODES", "MAX_SCRIPT_CHARS"]

#: The most script text read from one answer (64 Ki characters, Think text included); far above what
#: a turn needs (a long Testbed plan is a few hundred characters), far below what a runaway answer holds.
MAX_SCRIPT_CHARS = 65_536
#: How much of an unknown command's name is echoed back to the model.
_NAME_ECHO_LIMIT = 40

#: Every ``ParseError.code`` the parser can return; stable, for analysis of transcripts.
ERROR_CODES: tuple[str, ...] = (
    "no_commands",  # nothing in the answer looked like a command
    "unknown_command",  # a statement calls a name that is not in the vocabulary
    "unterminated",  # a call's ")" or a quote is never closed
    "syntax",  # a malformed argument list (nested call, empty argument, positional after keyword)
    "wrong_arity",  # too many arguments, or a required one missing
    "unknown_parameter",  # a keyword that names no parameter of the command
    "duplicate_parameter",  # the same parameter given twice
    "wrong_type",  # e.g. a word where a number is needed, or 8.5 for a whole number
    "out_of_range",  # outside minimum/maximum, not one of the choices, or not a multiple
    "too_long",  # more than MAX_SCRIPT_CHARS characters of script text
    "internal_error",  # a bug in this parser; never expected, reported rather than raised
)

_NEWLINES = "\n\r"
_IDENT_START = frozenset(string.ascii_letters + "_")
_IDENT_CHARS = _IDENT_START | frozenset(string.digits)
_FENCE = "```"
_DOUBLE_CLOSERS = '"\u201c\u201d'
_SINGLE_CLOSERS = "'\u2018\u2019"
# Which characters may close a string opened by each quote. A straight quote is closed only by the
# same straight quote, so curly quotes inside canonical (straight-quoted) text never end it early.
_QUOTE_CLOSERS: dict[str, str] = {
    '"': '"',
    "'": "'",
    "\u201c": _DOUBLE_CLOSERS,  # “
    "\u201d": _DOUBLE_CLOSERS,  # ”
    "\u201e": _DOUBLE_CLOSERS,  # „
    "\u2018": _SINGLE_CLOSERS,  # ‘
    "\u2019": _SINGLE_CLOSERS,  # ’
}
_ESCAPES: dict[str, str] = {
    "\\": "\\",
    '"': '"',
    "'": "'",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "\u201c": "\u201c",
    "\u201d": "\u201d",
    "\u2018": "\u2018",
    "\u2019": "\u2019",
}
_LIST_MARKER = re.compile(r"[^\S\n\r]*(?:[-*+>\u2022]|\d{1,3}[.)])[^\S\n\r]+")
_KEYWORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[^\S\n\r]*=(?!=)")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_LANGUAGE_TAG = re.compile(r"[A-Za-z0-9_+#.\-]*")
_SNIPPET_LIMIT = 80


@dataclass(frozen=True)
class _RawArg:
    """One argument as written: its keyword if any, its text (quotes removed and decoded) and offset.

    Types are decided only when binding to a parameter, so ``"8"`` and ``8`` read the same.
    """

    keyword: str | None
    value: str
    position: int


class _Reject(Exception):
    """Carries a ParseError out of nested scanning code; never escapes :func:`parse_script`."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(error.message)
        self.error = error


def _reject(code: str, message: str, position: int | None = None) -> _Reject:
    return _Reject(ParseError(code=code, message=message, position=position))


# --------------------------------------------------------------------------------------------------
# Entry point


def parse_script(text: str, vocabulary: Vocabulary) -> Script | ParseError:
    """Read ``text`` (a model's whole answer) as a script of commands from ``vocabulary``.

    Returns the first error found rather than a partial script: executing half of what the model
    asked for would act on a plan it did not make.
    """
    try:
        return _parse(text, vocabulary)
    except _Reject as rejected:
        return rejected.error
    except Exception as exc:  # last line of defence: an answer must never crash a run
        return ParseError(
            code="internal_error",
            message=f"Your answer could not be read because of an internal error ({type(exc).__name__}). "
            "Please write your commands again, one per line.",
        )


def _parse(text: str, vocabulary: Vocabulary) -> Script | ParseError:
    if not isinstance(text, str):
        return _no_commands(vocabulary)
    commands: list[Command] = []
    stray: ParseError | None = None
    segments = _fenced_segments(text) or [(0, len(text))]
    length = sum(end - start for start, end in segments)
    if length > MAX_SCRIPT_CHARS:
        return _too_long(length)
    for start, end in segments:
        scanner = _Scanner(_Source(text, start, end, vocabulary))
        scanner.run()
        commands.extend(scanner.commands)
        stray = stray or scanner.stray
    if commands:
        return Script(tuple(commands))
    return stray or _no_commands(vocabulary)


# --------------------------------------------------------------------------------------------------
# Code fences


def _fenced_segments(text: str) -> list[tuple[int, int]]:
    """Offsets of the content of every code fence, or an empty list when the answer has none."""
    segments: list[tuple[int, int]] = []
    position = 0
    while True:
        opening = _find_fence(text, position, _is_opening_fence)
        if opening < 0:
            return segments
        after = _skip_char(text, opening, "`")
        line_end = _line_end(text, after)
        # A bare word after the backticks is a language tag; anything else is already content.
        tag_only = _LANGUAGE_TAG.fullmatch(text[after:line_end].strip()) is not None
        content = line_end if tag_only else after
        closing = _find_fence(text, content, functools.partial(_is_closing_fence, content_start=content))
        if closing < 0:
            segments.append((content, len(text)))
            return segments
        segments.append((content, closing))
        position = _skip_char(text, closing, "`")


def _find_fence(text: str, start: int, accept: Callable[[str, int], bool]) -> int:
    k = text.find(_FENCE, start)
    while k >= 0 and not accept(text, k):
        k = text.find(_FENCE, _skip_char(text, k, "`"))
    return k


def _is_opening_fence(text: str, k: int) -> bool:
    return _only_hspace_before(text, k, 0)


def _is_closing_fence(text: str, k: int, content_start: int) -> bool:
    """A closing fence starts a line or ends one (models often write ``Go(5)```)."""
    if _only_hspace_before(text, k, content_start):
        return True
    after = _skip_hspace(text, _skip_char(text, k, "`"), len(text))
    return after >= len(text) or text[after] in _NEWLINES


def _only_hspace_before(text: str, k: int, floor: int) -> bool:
    j = k - 1
    while j >= floor and text[j] not in _NEWLINES:
        if not _is_hspace(text[j]):
            return False
        j -= 1
    return True


def _line_end(text: str, start: int) -> int:
    return _next_stop(text, start, len(text), _NEWLINES)


def _skip_char(text: str, k: int, char: str) -> int:
    while k < len(text) and text[k] == char:
        k += 1
    return k


# --------------------------------------------------------------------------------------------------
# The stretch being read


def _is_hspace(ch: str) -> bool:
    return ch.isspace() and ch not in _NEWLINES


def _skip_hspace(text: str, i: int, end: int) -> int:
    while i < end and _is_hspace(text[i]):
        i += 1
    return i


def _skip_space(text: str, i: int, end: int) -> int:
    while i < end and text[i].isspace():
        i += 1
    return i


def _ident_end(text: str, i: int, end: int) -> int:
    while i < end and text[i] in _IDENT_CHARS:
        i += 1
    return i


def _next_stop(text: str, start: int, end: int, stops: str) -> int:
    """First offset at or after ``start`` holding one of ``stops`` (searched in C, not char by char).

    One pattern search stops at the first hit, so the cost is the distance to it; a ``find`` per stop
    character would scan to the end for every character that is absent (quadratic over an answer).
    """
    found = _stop_pattern(stops).search(text, start, end)
    return found.start() if found else end


@functools.lru_cache(maxsize=32)
def _stop_pattern(stops: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(stops) + "]")


class _Source:
    """One stretch of the answer (the whole text or one fence) and the indexes that keep reading it linear.

    A call that never closes makes the reader look ahead to the end of the stretch. Answers full of
    such calls (many unclosed quotes, many ``think (``) would then take quadratic time, so closing
    quotes are searched through a memo and closing parentheses through a depth index.
    """

    def __init__(self, text: str, start: int, end: int, vocabulary: Vocabulary) -> None:
        self.text = text
        self.start = start
        self.end = end
        self.vocab = vocabulary
        self._quote_memo: dict[tuple[str, str, int], tuple[int, tuple[int, int] | None]] = {}
        self._depth_index: tuple[list[int], dict[int, list[int]]] | None = None
        self._stop_index: dict[str, list[int]] = {}

    def next_stop(self, start: int, stops: str) -> int:
        """First offset at or after ``start`` holding one of ``stops``, or the end of the stretch.

        Looked up in a sorted list of the stops' offsets, built once per set of stops, because the
        reader asks this from many places that may lie far before the next stop.
        """
        offsets = self._stops(stops)
        k = bisect.bisect_left(offsets, start)
        return offsets[k] if k < len(offsets) else self.end

    def last_before(self, char: str, start: int, stop: int) -> int:
        """Last offset in ``[start, stop)`` holding ``char``, or -1."""
        offsets = self._stops(char)
        k = bisect.bisect_left(offsets, stop) - 1
        return offsets[k] if k >= 0 and offsets[k] >= start else -1

    def _stops(self, stops: str) -> list[int]:
        offsets = self._stop_index.get(stops)
        if offsets is None:
            pattern = _stop_pattern(stops)
            offsets = [m.start() for m in pattern.finditer(self.text, self.start, self.end)]
            self._stop_index[stops] = offsets
        return offsets

    def closing_quote(self, opening: int, followers: str, one_line: bool) -> tuple[int, int] | None:
        """The first unescaped quote closing the one at ``opening`` that is followed by ``followers``.

        Returns the quote's offset and the follower's. Whether a quote is escaped depends only on the
        backslashes right before it, never on where the string opened, so an answer found (or not
        found) for an earlier opening holds for any later opening before that answer.
        """
        closers = _QUOTE_CLOSERS[self.text[opening]]
        stop = self.next_stop(opening, _NEWLINES) if one_line else self.end
        key = (closers, followers, stop)
        memo = self._quote_memo.get(key)
        if memo is not None and memo[0] <= opening and (memo[1] is None or memo[1][0] > opening):
            return memo[1]
        found = self._scan_closing_quote(opening, closers, followers, stop)
        self._quote_memo[key] = (opening, found)
        return found

    def _scan_closing_quote(
        self, opening: int, closers: str, followers: str, stop: int
    ) -> tuple[int, int] | None:
        text = self.text
        k = opening + 1
        while k < stop:
            ch = text[k]
            if ch == "\\":
                k += 2
                continue
            if ch in closers:
                after = _skip_space(text, k + 1, self.end)
                if after < self.end and text[after] in followers:
                    return k, after
            k += 1
        return None

    def balancing_paren(self, start: int) -> int | None:
        """The ``)`` that closes a ``(`` just before ``start``, counting nested pairs; None if none does."""
        depth_before, closings = self._depths()
        candidates = closings.get(depth_before[start - self.start] - 1, [])
        k = bisect.bisect_left(candidates, start)
        return candidates[k] if k < len(candidates) else None

    def _depths(self) -> tuple[list[int], dict[int, list[int]]]:
        """Paren depth before each offset, and the offsets of ``)`` grouped by the depth they leave."""
        if self._depth_index is None:
            depth_before: list[int] = []
            closings: dict[int, list[int]] = {}
            depth = 0
            for k in range(self.start, self.end):
                depth_before.append(depth)
                ch = self.text[k]
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                    closings.setdefault(depth, []).append(k)
            depth_before.append(depth)
            self._depth_index = (depth_before, closings)
        return self._depth_index


# --------------------------------------------------------------------------------------------------
# Scanning prose for calls


class _Scanner:
    """Walks one stretch of the answer, collecting commands and skipping prose."""

    def __init__(self, src: _Source) -> None:
        self.src = src
        self.commands: list[Command] = []
        self.stray: ParseError | None = None  # an unknown call seen in prose, reported if nothing else

    def run(self) -> None:
        text, end = self.src.text, self.src.end
        i, at_statement, line_start = self.src.start, True, True
        while i < end:
            if line_start:
                line_start = False
                marker = _LIST_MARKER.match(text, i, end)
                if marker:
                    i = marker.end()
                    continue
            ch = text[i]
            if ch in _NEWLINES:
                at_statement = line_start = True
                i += 1
            elif ch in ";`":
                at_statement = True
                i += 1
            elif _is_hspace(ch):
                i += 1
            elif ch in _IDENT_START and (i == 0 or text[i - 1] not in _IDENT_CHARS):
                i, at_statement = self._word(i, at_statement)
            else:
                at_statement = False
                i += 1

    def _word(self, start: int, at_statement: bool) -> tuple[int, bool]:
        """Handle the word at ``start``; return where to continue and whether that is a statement start."""
        text, end = self.src.text, self.src.end
        name_end = _ident_end(text, start, end)
        paren = _skip_hspace(text, name_end, end)
        if paren >= end or text[paren] != "(":
            return name_end, False
        name = text[start:name_end]
        spec = self.src.vocab.lookup(name)
        adjacent = paren == name_end
        if spec is not None:
            return self._known_call(spec, start, name_end, paren, adjacent)
        if adjacent:
            self._unknown_call(name, start, paren, at_statement)
        return name_end, False

    def _known_call(
        self, spec: CommandSpec, start: int, name_end: int, paren: int, adjacent: bool
    ) -> tuple[int, bool]:
        try:
            args, close = _read_arguments(self.src, spec, paren + 1)
        except _Reject as problem:
            if adjacent:
                raise self._located(problem, start, None) from None
            return name_end, False
        after = close + 1
        if not adjacent and not self._at_terminator(after):
            return name_end, False
        try:
            values = _bind(spec, args, self.src.vocab)
        except _Reject as problem:
            raise self._located(problem, start, after) from None
        self.commands.append(Command(spec.name, values))
        return after, True

    def _unknown_call(self, name: str, start: int, paren: int, at_statement: bool) -> None:
        try:
            _, close = _read_plain_arguments(self.src, name, paren + 1)
        except _Reject:
            return  # not a well-formed call: prose such as "f(x" or "note(see below"
        if not self._at_terminator(close + 1):
            return
        error = _unknown_command(name, start, _snippet(self.src.text, start, close + 1), self.src.vocab)
        if at_statement:
            raise _Reject(error)
        self.stray = self.stray or error

    def _at_terminator(self, i: int) -> bool:
        """True when a call ending at ``i`` is followed by ``;``, a newline, the end or another call."""
        text, end = self.src.text, self.src.end
        i = _skip_hspace(text, i, end)
        if i >= end or text[i] in ";`" or text[i] in _NEWLINES:
            return True
        if text[i] not in _IDENT_START:
            return False
        name_end = _ident_end(text, i, end)
        paren = _skip_hspace(text, name_end, end)
        if paren >= end or text[paren] != "(":
            return False
        return paren == name_end or self.src.vocab.lookup(text[i:name_end]) is not None

    def _located(self, problem: _Reject, start: int, after: int | None) -> _Reject:
        error = problem.error
        position = start if error.position is None else error.position
        return _Reject(replace(error, position=position, snippet=_snippet(self.src.text, start, after)))


def _snippet(text: str, start: int, after: int | None) -> str:
    """The call as written, or the rest of its line when it never closes; cut to a readable length."""
    stop = _line_end(text, start) if after is None else after
    piece = text[start:stop]
    return piece if len(piece) <= _SNIPPET_LIMIT else piece[: _SNIPPET_LIMIT - 3] + "..."


# --------------------------------------------------------------------------------------------------
# Argument lists


def _read_arguments(src: _Source, spec: CommandSpec, start: int) -> tuple[list[_RawArg], int]:
    """Arguments of a known call and the offset of its closing ``)``."""
    if spec.params and spec.params[-1].type is ParamType.TEXT:
        return _read_text_call(src, spec, start)
    return _read_plain_arguments(src, spec.name, start)


def _read_plain_arguments(src: _Source, name: str, start: int) -> tuple[list[_RawArg], int]:
    """Comma-separated values, each optionally ``keyword=``; a trailing comma is allowed."""
    args: list[_RawArg] = []
    i = _skip_space(src.text, start, src.end)
    if i < src.end and src.text[i] == ")":
        return args, i
    while True:
        arg, i = _read_arg(src, name, i)
        args.append(arg)
        i, close = _after_arg(src, name, i)
        if close:
            return args, i
        i = _skip_space(src.text, i + 1, src.end)
        if i < src.end and src.text[i] == ")":
            return args, i


def _after_arg(src: _Source, name: str, i: int) -> tuple[int, bool]:
    """Expect ``,`` or ``)`` after an argument; return its offset and whether it closes the call."""
    text, end = src.text, src.end
    j = _skip_space(text, i, end)
    if j < end and text[j] in ",)":
        return j, text[j] == ")"
    crossed_line = any(ch in _NEWLINES for ch in text[i:j])
    if j >= end or text[j] == ";" or crossed_line:
        raise _reject("unterminated", f"`{name}(` is never closed: add the missing `)` after its arguments.")
    raise _reject(
        "syntax",
        f"In `{name}(...)`, separate arguments with `,` and close the call with `)`; "
        f"`{text[j]}` is not allowed here.",
        j,
    )


def _read_arg(src: _Source, name: str, i: int) -> tuple[_RawArg, int]:
    text, end = src.text, src.end
    i = _skip_space(text, i, end)
    start = i
    keyword = None
    match = _KEYWORD.match(text, i, end)
    if match:
        keyword = match.group(1)
        i = _skip_space(text, match.end(), end)
    if i < end and text[i] in _QUOTE_CLOSERS:
        value, i = _read_quoted(src, name, i)
        return _RawArg(keyword, value, start), i
    value, i = _read_bare(src, name, i, keyword)
    return _RawArg(keyword, value, start), i


def _read_quoted(src: _Source, name: str, opening: int) -> tuple[str, int]:
    """A quoted value ends at a matching quote followed by ``,`` or ``)`` (so ``'Bob's key'`` works).

    Unlike free text, a quoted name or choice stays on one line: a quote left open then reads as an
    unclosed quote right away instead of swallowing the following lines.
    """
    found = src.closing_quote(opening, ",)", one_line=True)
    if found is None:
        raise _reject(
            "unterminated",
            f"In `{name}(...)` a quoted value is never closed: end it with a matching quote before `,` or `)`.",
        )
    closing, _ = found
    return _decode(src.text[opening + 1 : closing]), closing + 1


def _read_bare(src: _Source, name: str, i: int, keyword: str | None) -> tuple[str, int]:
    text, end = src.text, src.end
    start = i
    i = src.next_stop(i, ",();\n\r")
    if i < end and text[i] == "(":
        raise _reject(
            "syntax",
            f"`{name}(...)` takes plain values (numbers, words or quoted text), not nested calls or parentheses.",
            i,
        )
    value = text[start:i].strip()
    if not value:
        where = f"after `{keyword}=`" if keyword else "between the commas"
        raise _reject("syntax", f"In `{name}(...)` a value is missing {where}.", start)
    return value, i


def _decode(raw: str) -> str:
    """Undo backslash escapes we know; keep any other backslash as written (``\\p`` stays ``\\p``)."""
    out: list[str] = []
    k = 0
    while k < len(raw):
        ch = raw[k]
        if ch == "\\" and k + 1 < len(raw) and raw[k + 1] in _ESCAPES:
            out.append(_ESCAPES[raw[k + 1]])
            k += 2
        else:
            out.append(ch)
            k += 1
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# Free text (a last parameter of type TEXT)


def _read_text_call(src: _Source, spec: CommandSpec, start: int) -> tuple[list[_RawArg], int]:
    """Plain arguments for the leading parameters, then everything up to the closing ``)`` as text."""
    args: list[_RawArg] = []
    i = start
    for _ in spec.params[:-1]:
        i = _skip_space(src.text, i, src.end)
        if i < src.end and src.text[i] == ")":
            return args, i
        arg, i = _read_arg(src, spec.name, i)
        args.append(arg)
        i, close = _after_arg(src, spec.name, i)
        if close:
            return args, i
        i += 1
    last, after = _read_text_value(src, spec, i)
    if last is not None and last.keyword is None and any(a.keyword for a in args):
        last = replace(last, keyword=spec.params[-1].name)  # the free text can only be the last parameter
    if last is not None:
        args.append(last)
    return args, after


def _read_text_value(src: _Source, spec: CommandSpec, start: int) -> tuple[_RawArg | None, int]:
    text, end = src.text, src.end
    i = _skip_space(text, start, end)
    keyword = None
    match = _KEYWORD.match(text, i, end)
    if match and _same_name(match.group(1), spec.params[-1].name, src.vocab):
        keyword = match.group(1)
        i = _skip_space(text, match.end(), end)
    if i < end and text[i] in _QUOTE_CLOSERS:
        found = src.closing_quote(i, ")", one_line=False)
        if found is not None:
            closing, paren = found
            return _RawArg(keyword, _decode(text[i + 1 : closing]), i), paren
    paren = _unquoted_text_end(src, spec.name, i)
    value = text[i:paren].strip()
    if not value and keyword is None:
        return None, paren
    return _RawArg(keyword, value, i), paren


def _unquoted_text_end(src: _Source, name: str, start: int) -> int:
    """The ``)`` closing unquoted text: the balancing one, else the last before ``;``/newline/end."""
    balancing = src.balancing_paren(start)
    if balancing is not None:
        return balancing
    stop = src.next_stop(start, ";\n\r")
    last = src.last_before(")", start, stop)
    if last < 0:
        raise _reject(
            "unterminated",
            f'`{name}(` is never closed: end it with `)`, for example {name}("your text").',
        )
    return last


# --------------------------------------------------------------------------------------------------
# Binding arguments to parameters and checking their meaning


def _same_name(written: str, declared: str, vocab: Vocabulary) -> bool:
    return written == declared if vocab.case_sensitive else written.lower() == declared.lower()


def _bind(spec: CommandSpec, args: list[_RawArg], vocab: Vocabulary) -> tuple[ArgValue, ...]:
    """Values in declared parameter order, defaults filled in, each converted and range-checked."""
    slots = _assign(spec, args, vocab)
    values: list[ArgValue] = []
    for param, arg in zip(spec.params, slots):
        if arg is not None and param.type in (ParamType.STR, ParamType.TEXT) and not arg.value.strip():
            arg = None  # empty text means "not given"
        if arg is None:
            if param.required:
                raise _reject("wrong_arity", _missing_message(spec, param))
            values.append(param.default)
        else:
            values.append(_convert(spec, param, arg, vocab))
    return tuple(values)


def _assign(spec: CommandSpec, args: list[_RawArg], vocab: Vocabulary) -> list[_RawArg | None]:
    slots: list[_RawArg | None] = [None] * len(spec.params)
    positional = [a for a in args if a.keyword is None]
    if len(positional) > len(spec.params):
        raise _reject(
            "wrong_arity", _too_many_message(spec, len(args)), positional[len(spec.params)].position
        )
    seen_keyword = False
    for index, arg in enumerate(args):
        if arg.keyword is None:
            if seen_keyword:
                raise _reject(
                    "syntax",
                    f"In `{spec.name}(...)` put positional values before `name=value` ones: {spec.signature()}.",
                    arg.position,
                )
            slots[index] = arg
            continue
        seen_keyword = True
        slot = next((k for k, p in enumerate(spec.params) if _same_name(arg.keyword, p.name, vocab)), None)
        if slot is None:
            raise _reject("unknown_parameter", _unknown_parameter_message(spec, arg.keyword), arg.position)
        if slots[slot] is not None:
            raise _reject(
                "duplicate_parameter",
                f"`{spec.name}` got `{spec.params[slot].name}` twice; give each parameter once: {spec.signature()}.",
                arg.position,
            )
        slots[slot] = arg
    return slots


def _convert(spec: CommandSpec, param: ParamSpec, arg: _RawArg, vocab: Vocabulary) -> ArgValue:
    if param.type is ParamType.INT:
        value: ArgValue = _to_int(spec, param, arg)
    elif param.type is ParamType.FLOAT:
        value = _to_float(spec, param, arg)
    elif param.type is ParamType.BOOL:
        value = _to_bool(spec, param, arg)
    else:
        value = arg.value.strip()
    return _check_range(spec, param, value, arg, vocab)


def _number_text(arg: _RawArg) -> str | None:
    written = arg.value.strip().replace("\u2212", "-")  # a typographic minus means minus
    return written if _NUMBER.fullmatch(written) else None


def _to_int(spec: CommandSpec, param: ParamSpec, arg: _RawArg) -> int:
    written = _number_text(arg)
    if written is not None and not any(c in written for c in ".eE"):
        try:
            return int(written)
        except ValueError:  # more digits than Python converts
            raise _reject("out_of_range", _range_message(spec, param, arg), arg.position) from None
    number = float(written) if written is not None else math.nan
    if written is not None and math.isinf(number):
        raise _reject("out_of_range", _range_message(spec, param, arg), arg.position)
    if math.isnan(number) or not number.is_integer():
        raise _reject("wrong_type", _type_message(spec, param, arg, "a whole number"), arg.position)
    return int(number)


def _to_float(spec: CommandSpec, param: ParamSpec, arg: _RawArg) -> float:
    written = _number_text(arg)
    if written is None:
        raise _reject("wrong_type", _type_message(spec, param, arg, "a number"), arg.position)
    number = float(written)
    if not math.isfinite(number):
        raise _reject("out_of_range", _range_message(spec, param, arg), arg.position)
    return number


def _to_bool(spec: CommandSpec, param: ParamSpec, arg: _RawArg) -> bool:
    word = arg.value.strip().lower()
    if word not in ("true", "false"):
        raise _reject("wrong_type", _type_message(spec, param, arg, "true or false"), arg.position)
    return word == "true"


def _check_range(
    spec: CommandSpec, param: ParamSpec, value: ArgValue, arg: _RawArg, vocab: Vocabulary
) -> ArgValue:
    """Apply minimum/maximum and multiple_of to numbers and choices to text; return the value to keep."""
    if isinstance(value, str):
        if param.choices is None:
            return value
        for choice in param.choices:
            if _same_name(value, choice, vocab):
                return choice  # normalize to the declared spelling
        raise _reject("out_of_range", _range_message(spec, param, arg), arg.position)
    if isinstance(value, bool):
        return value
    too_low = param.minimum is not None and value < param.minimum
    too_high = param.maximum is not None and value > param.maximum
    off_step = bool(isinstance(value, int) and param.multiple_of and value % param.multiple_of != 0)
    if too_low or too_high or off_step:
        raise _reject("out_of_range", _range_message(spec, param, arg), arg.position)
    return value


# --------------------------------------------------------------------------------------------------
# Messages (addressed to the model: say what is wrong and how to write it instead)


def _show(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def _echo(written: str) -> str:
    """What the model wrote, cut short so one runaway argument cannot flood the next prompt."""
    return written if len(written) <= 40 else written[:37] + "..."


def _usage(spec: CommandSpec) -> str:
    return spec.signature()


def _catalog(vocab: Vocabulary) -> str:
    return ", ".join(c.signature() for c in vocab.commands)


def _no_commands(vocab: Vocabulary) -> ParseError:
    example = "; ".join(c.signature() for c in vocab.commands[:2])
    return ParseError(
        code="no_commands",
        message="I found no command in your answer. Write commands as Name(arguments), separated by `;` "
        f"or newlines, e.g. `{example};`. Commands: {_catalog(vocab)}.",
    )


def _too_long(length: int) -> ParseError:
    return ParseError(
        code="too_long",
        message=f"Your answer has {length:,} characters of commands; at most {MAX_SCRIPT_CHARS:,} are read "
        "(Think text included). Write fewer commands and shorter thoughts.",
    )


def _unknown_command(name: str, position: int, snippet: str, vocab: Vocabulary) -> ParseError:
    """The error for an unknown call; a long name is cut (``40 chars...``) so it cannot flood the prompt."""
    if len(name) > _NAME_ECHO_LIMIT:
        name = name[:_NAME_ECHO_LIMIT] + "..."
    candidates = {c.name.lower(): c.name for c in vocab.commands}
    close = difflib.get_close_matches(name.lower(), list(candidates), n=1)
    hint = f" Did you mean `{candidates[close[0]]}`?" if close else ""
    return ParseError(
        code="unknown_command",
        message=f"`{name}` is not a command.{hint} Use only these commands: {_catalog(vocab)}.",
        position=position,
        snippet=snippet,
    )


def _missing_message(spec: CommandSpec, param: ParamSpec) -> str:
    return f"`{spec.name}` is missing its `{param.name}`. Write it as {_usage(spec)}."


def _too_many_message(spec: CommandSpec, given: int) -> str:
    count = len(spec.params)
    takes = "no arguments" if count == 0 else f"{count} argument{'s' if count != 1 else ''}"
    return f"`{spec.name}` takes {takes}, but you gave {given}. Write it as {_usage(spec)}."


def _unknown_parameter_message(spec: CommandSpec, keyword: str) -> str:
    names = ", ".join(f"`{p.name}`" for p in spec.params) or "none"
    return (
        f"`{spec.name}` has no parameter `{keyword}` (its parameters: {names}). Write it as {_usage(spec)}."
    )


def _type_message(spec: CommandSpec, param: ParamSpec, arg: _RawArg, wanted: str) -> str:
    return (
        f"In `{spec.name}`, `{param.name}` must be {wanted}{_bounds_text(param)}, but you wrote "
        f"`{_echo(arg.value)}`. Write it as {_usage(spec)}."
    )


def _range_message(spec: CommandSpec, param: ParamSpec, arg: _RawArg) -> str:
    if param.choices is not None and param.type in (ParamType.STR, ParamType.TEXT):
        allowed = "one of " + ", ".join(f'"{c}"' for c in param.choices)
    else:
        allowed = _bounds_text(param).strip() or "a finite number"
    return f"In `{spec.name}`, `{param.name}` must be {allowed}, but you wrote `{_echo(arg.value)}`."


def _bounds_text(param: ParamSpec) -> str:
    parts = []
    if param.minimum is not None and param.maximum is not None:
        parts.append(f"from {_show(param.minimum)} to {_show(param.maximum)}")
    elif param.minimum is not None:
        parts.append(f"at least {_show(param.minimum)}")
    elif param.maximum is not None:
        parts.append(f"at most {_show(param.maximum)}")
    if param.multiple_of and param.type is ParamType.INT:
        parts.append(f"a multiple of {param.multiple_of}")
    return (" " + ", ".join(parts)) if parts else ""
