"""Typed errors raised by :mod:`cap_core`.

Every error a user can cause with bad input is a :class:`CAPInputError`. It carries
where the problem is (file, row, column), what was expected, what was found and how
to fix it, so that the dashboard and the CLI can show one readable message instead of
a traceback.
"""

from __future__ import annotations

import re

__all__ = ["CAPInputError", "capped", "counted", "LIST_LIMIT"]

#: How many values a message lists before it says how many more there are (:func:`capped`).
LIST_LIMIT = 8

_FIELDS = ("file", "row", "column", "argument", "expected", "got", "fix")
#: A location tag naming an argument inside quoted text (another error's message, e.g. a failed call's reason).
_ARGUMENT_TAG = re.compile(r"\s*\[[^\[\]]*argument `[^`]*`\]")


class CAPInputError(ValueError):
    """Bad input: a table, file, argument or join that cannot be used as given.

    Parameters
    ----------
    problem : str
        What is wrong, lowercase, e.g. ``"verdict outside the allowed set"``.
    file : str, optional
        The file the bad value came from (a path or an upload's name).
    row : int, optional
        1-based data row (the header is row 0) of the first offending record; for
        JSON lines and text files, the 1-based line.
    column : str, optional
        Column (or JSON field) of a table or file holding the bad value. Never a
        function argument: use ``argument`` for those.
    argument : str, optional
        Function argument or command-line option holding the bad value (for bad
        arguments rather than bad table cells), e.g. ``"n_resamples"`` or
        ``"--bootstrap"``.
    expected : str, optional
        The allowed set or shape, e.g. ``"one of A, B, tie, unparsed"``.
    got : object, optional
        The value found.
    fix : str, optional
        One sentence telling the user how to repair the input.

    Notes
    -----
    ``str(err)`` renders all parts on one line in a fixed order:
    ``<problem> [file F, row R, column C | argument `A`]: expected E, got G. Fix: ...``
    (line breaks inside a part become spaces, and ``got`` is cut at 120 characters). When
    ``argument`` is given, an argument tag quoted inside ``problem`` (another error's message)
    is dropped, so that a message never names its argument twice.
    The parts are also kept as attributes for the UI.
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | None = None,
        row: int | None = None,
        column: str | None = None,
        argument: str | None = None,
        expected: str | None = None,
        got: object = None,
        fix: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = file
        self.row = row
        self.column = column
        self.argument = argument
        self.expected = expected
        self.got = got
        self.fix = fix
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        if self.argument is not None:
            where.append(f"argument `{self.argument}`")
        text = self.problem
        if self.argument is not None:  # one argument tag per message: a quoted error's own tag is dropped
            text = _ARGUMENT_TAG.sub("", text)
        if where:
            text += " [" + ", ".join(where) + "]"
        tail = []
        if self.expected is not None:
            tail.append(f"expected {self.expected}")
        if self.got is not None:
            got = repr(self.got)
            if len(got) > 120:
                got = got[:117] + "..."
            tail.append(f"got {got}")
        if tail:
            text += ": " + ", ".join(tail)
        if self.fix:
            text += ". Fix: " + self.fix
        return " ".join(text.splitlines())

    def replace(self, **changes: object) -> "CAPInputError":
        """Return a copy of this error with some parts changed (e.g. ``argument="--bootstrap"``)."""
        unknown = set(changes) - {"problem", *_FIELDS}
        if unknown:
            raise TypeError(f"CAPInputError has no part {sorted(unknown)[0]!r}")
        parts = {name: getattr(self, name) for name in _FIELDS}
        parts.update(changes)
        return CAPInputError(changes.get("problem", self.problem), **{k: parts[k] for k in _FIELDS})

    def with_file(self, file: str) -> "CAPInputError":
        """Return a copy of this error that names ``file`` (kept if already set)."""
        return self.replace(file=self.file or file)


def capped(values, limit: int = LIST_LIMIT, *, sep: str = ", ") -> str:
    """The first ``limit`` of ``values`` joined by ``sep``, then "… and N more" when some are left out.

    The one rule for a list shown in a notice or an error message, so that a message stays
    one short line however many distinct values a file holds.

    Parameters
    ----------
    values : iterable
        Anything; each value is shown with ``str``.
    limit : int
        Values shown at most (default :data:`LIST_LIMIT`); at least 1.
    sep : str
        Separator between the values.

    Returns
    -------
    str
        E.g. ``"a, b, c"`` or ``"a, b … and 37 more"``; ``""`` for no value.
    """
    items = [str(v) for v in values]
    limit = max(1, int(limit))
    if len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + f" … and {len(items) - limit} more"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` agreeing in number: ``counted(1, "item")`` is ``"1 item"``, ``counted(0, "item")``
    ``"0 items"`` (``plural`` for a noun whose plural is not noun + s).

    The one rule for a count in a notice or an error message ("1 items with split votes" read wrong).
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
