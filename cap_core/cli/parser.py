"""The CLI's argument parser: a bad command line is one line on stderr (exit 2), with a hint.

:class:`Parser` is argparse with these rules, for every verb and sub-verb:

* one line, control characters written out (:func:`cap_core.cli.visible.visible`), pointing at the
  help of the innermost verb concerned (``python -m cap_core testbed build --help``);
* no abbreviations: ``choose --profile FILE`` is not taken as ``--profile-out FILE`` (an input
  option of other verbs would otherwise name a file to overwrite); the closest option is offered
  instead;
* an unknown ``--word`` gets the closest option of that verb (``--benchmak``: did you mean
  ``--benchmark``?), also when the line is refused for a missing required option, and also for
  ``-out`` or ``—out`` (a dash short, or a typographic dash); a positional typed as an option is
  said (``QUESTIONS is given by position``); an invalid choice gets the closest allowed value;
* an option that takes one value given twice (``--out a.csv --out b.csv``) is refused: which
  one was meant cannot be told.
"""

from __future__ import annotations

import argparse
import re
import sys
from contextvars import ContextVar

from cap_core.cli.visible import visible

__all__ = ["Parser", "did_you_mean_option"]

_INVALID_CHOICE = re.compile(r"invalid choice: (?P<got>'[^']*'|\S+) \(choose from (?P<choices>.*)\)")
_REQUIRED = "the following arguments are required"
#: The command line being parsed, for hints in a refusal argparse raises before it returns the extras.
_ARGV: ContextVar[list[str]] = ContextVar("cap_argv", default=[])
#: A dash a word may start with instead of ``--``: one ``-``, an en dash, an em dash (word processors).
_DASHES = re.compile(r"^(--|-|\u2013|\u2014)(?=[^\W\d_])")
#: Actions that keep one value: given twice, the first would be lost without a word.
_ONE_VALUE = (argparse._StoreAction,)


def _closest(word: str, candidates) -> str | None:
    from cap_core.schema import suggest_name  # only a bad command line needs it

    # 0.75: a slip of one or two letters scores above 0.85; a different word that shares letters
    # (--questions / --regenerations: 0.62) is not offered
    return suggest_name(word, candidates, cutoff=0.75)


def did_you_mean_option(word: str, candidates, *, quote: bool = False) -> str:
    """``"; did you mean X?"`` for the candidate closest to ``word`` (difflib, likeness >= 0.75), else ``""``."""
    near = _closest(word, candidates)
    return "" if near is None else f"; did you mean {near!r}?" if quote else f"; did you mean {near}?"


def _unknown_words(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The words of ``argv`` that look like options (``--x``, ``-x``, ``—x``) but are none of ``parser``'s,
    each once, in order (``--x=v`` read as ``--x``)."""
    options = {o for a in parser._actions for o in a.option_strings}
    out: list[str] = []
    for w in argv:
        word = w.split("=", 1)[0]
        if _DASHES.match(word) and word not in options and word not in out:
            out.append(word)
    return out


def _option_hints(argv: list[str], parser: argparse.ArgumentParser, *, name_words: bool = False) -> str:
    """What to say of the unknown option-like words of ``argv`` for ``parser``: a positional typed as an
    option (``--questions`` where ``questions`` is given by position), else the closest option; with more
    than one word, or ``name_words`` (the line does not show the words), each hint names its word."""
    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    positionals = {"--" + a.dest.replace("_", "-"): a.metavar or a.dest.upper() for a in parser._actions
                   if not a.option_strings and not isinstance(a, argparse._SubParsersAction)}
    words = _unknown_words(argv, parser)
    hints = []
    for word in words:
        as_long = _DASHES.sub("--", word)  # -out, —out -> --out
        near = as_long if as_long in options or as_long in positionals else _closest(as_long, [*options, *positionals])
        if near is None:
            continue
        if near in positionals:
            hint = f"{positionals[near]} is given by position, without {word}"
        else:
            hint = f"did you mean {near}?"
        named = (len(words) > 1 or name_words) and near not in positionals
        hints.append(f"; {word}: {hint}" if named else f"; {hint}")
    return "".join(hints)


def _given_twice(argv: list[str], parser: argparse.ArgumentParser) -> str | None:
    """The first one-value option of ``parser`` given more than once in ``argv``, with its values, or None."""
    seen: dict[str, list[str]] = {}
    by_string = {o: a for a in parser._actions if isinstance(a, _ONE_VALUE) for o in a.option_strings}
    for i, w in enumerate(argv):
        if w == "--":
            break
        name, eq, value = w.partition("=")
        action = by_string.get(name)
        if action is None:
            continue
        if not eq:
            value = argv[i + 1] if i + 1 < len(argv) else ""
        seen.setdefault(action.option_strings[-1], []).append(value)
    for option, values in seen.items():
        if len(values) > 1:
            return (f"argument {option}: given {len(values)} times ({', '.join(repr(v) for v in values)}); "
                    "give it once")
    return None


def _innermost(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> argparse.ArgumentParser:
    """The sub-parser the command line chose (``testbed build``), or ``parser`` itself."""
    while True:
        verbs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = verbs[0].choices.get(getattr(ns, verbs[0].dest, None)) if verbs else None
        if chosen is None:
            return parser
        parser = chosen


def _own_words(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The part of ``argv`` after the words that chose ``parser`` (its prog names them: ``cap testbed build``)."""
    chosen = parser.prog.split()[1:] if parser.prog else []
    rest = list(argv)
    for word in chosen:
        if word in rest:
            rest = rest[rest.index(word) + 1:]
    return rest


class Parser(argparse.ArgumentParser):
    """argparse with the CLI's rules (see the module docstring); sub-parsers are of this class too."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # noqa: D102 - argparse hook
        m = _INVALID_CHOICE.search(message)
        if m:
            message += did_you_mean_option(m["got"].strip("'"), re.findall(r"'([^']*)'", m["choices"]), quote=True)
        elif message.startswith(_REQUIRED):  # argparse stops here before it reports unknown words
            message += _option_hints(_own_words(_ARGV.get(), self), self, name_words=True)
        self.exit(2, f"error: {' '.join(visible(message).split())} (see `{self.prog} --help`)\n")

    def parse_args(self, args=None, namespace=None):  # noqa: D102 - argparse hook
        argv = list(sys.argv[1:] if args is None else args)
        token = _ARGV.set(argv)
        try:
            ns, extras = self.parse_known_args(argv, namespace)
            parser = _innermost(self, ns)
            if extras:  # said by the innermost parser chosen (``testbed build``): its help, its options
                parser.error(f"unrecognized arguments: {' '.join(extras)}{_option_hints(extras, parser)}")
            twice = _given_twice(_own_words(argv, parser), parser)
            if twice:
                parser.error(twice)
        finally:
            _ARGV.reset(token)
        return ns
