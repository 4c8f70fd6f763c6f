"""Versioned prompt templates (user-editable text files in ``prompts/``).

A template file starts with header lines ``key: value`` (at least ``version``), a line
``---``, then the prompt body with ``${field}`` placeholders (Python ``string.Template``;
literal JSON braces need no escaping). The effective version is the declared version
plus a short hash of the body, so editing a template without bumping its version still
changes every cache key.

Offline judges read the answers between the ``[Answer A]`` ... ``[End of Answer A]``
markers; keep those markers when editing the pairwise template.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from cap_core.errors import CAPInputError

__all__ = ["PromptTemplate", "load_template", "PROMPTS_DIR", "BUILTIN"]

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
#: Every prompt the project sends: judging (generated verdicts; one answer token for the
#: choice-probability judges of :mod:`cap_core.judging.choice`), rationale evaluation (C8), augmentation, the
#: validity probes' grading and generation (:mod:`cap_core.validity.probes`), SmolLM2's
#: rationale request (:mod:`cap_core.judging.smollm`) and the testbed builder's expansion, one
#: flawing prompt per planted error type, subtlety rating and hardening (:mod:`cap_core.testbed.prompts`).
BUILTIN = ("pairwise", "choice", "evaluator_form_a", "evaluator_form_b", "polish", "pad", "claim_grade", "probe_edit",
           "probe_feedback", "smollm_rationale", "testbed_expand", "testbed_flaw_factual_fabrication",
           "testbed_flaw_logical_reversal", "testbed_flaw_overclaim", "testbed_flaw_omission", "testbed_subtlety",
           "testbed_harden")


@dataclass(frozen=True)
class PromptTemplate:
    """A parsed template: ``name``, effective ``version``, ``body`` and ``fields``."""

    name: str
    version: str
    body: str
    fields: tuple[str, ...]

    def render(self, **values: object) -> str:
        """Fill every placeholder; raises CAPInputError naming a missing field."""
        missing = [f for f in self.fields if f not in values]
        if missing:
            raise CAPInputError(f"template {self.name!r} needs a value for {missing[0]!r}", argument=missing[0],
                                expected="values for " + ", ".join(self.fields), got=sorted(values),
                                fix="pass every placeholder of the template as a keyword")
        pieces = self._pieces
        out = [pieces[0]]
        for i in range(1, len(pieces), 2):
            out += (str(values[pieces[i]]), pieces[i + 1])
        return "".join(out)

    @cached_property
    def _pieces(self) -> tuple[str, ...]:
        """The body cut at its placeholders: literal text, field name, literal text, ... (``$$`` already
        a literal ``$``), by :class:`string.Template`'s own pattern, so :meth:`render` gives exactly what
        ``string.Template(body).substitute(values)`` gives."""
        pattern = string.Template.pattern
        pieces, literal, at = [], [], 0
        for m in pattern.finditer(self.body):
            literal.append(self.body[at:m.start()])
            at = m.end()
            if m.group("escaped") is not None:
                literal.append("$")
                continue
            name = m.group("named") or m.group("braced")
            if name is None:  # load_template refuses such bodies; a hand-made template fails as substitute() does
                string.Template(self.body).substitute({f: "" for f in self.fields})
                raise ValueError(f"invalid placeholder in template {self.name!r}")
            pieces += ("".join(literal), name)
            literal = []
        literal.append(self.body[at:])
        pieces.append("".join(literal))
        return tuple(pieces)


def load_template(name_or_path: str | Path) -> PromptTemplate:
    """Load a built-in template by name (see :data:`BUILTIN`) or any template file.

    Raises
    ------
    CAPInputError
        Unknown name, unreadable file, missing ``version`` header or ``---`` line,
        malformed placeholder.
    """
    path = Path(name_or_path)
    if str(name_or_path) in BUILTIN:
        path = PROMPTS_DIR / f"{name_or_path}.txt"
    if not path.is_file():
        raise CAPInputError("prompt template not found", file=str(path), argument="template",
                            expected="a built-in name (" + ", ".join(BUILTIN) + ") or a template file",
                            fix="check the path or copy a file from cap_core/judging/prompts/")
    text = path.read_text(encoding="utf-8")
    head, sep, body = text.partition("\n---\n")
    header = dict(line.split(":", 1) for line in head.splitlines() if ":" in line)
    header = {k.strip(): v.strip() for k, v in header.items()}
    if not sep or not header.get("version"):
        raise CAPInputError("template header incomplete", file=str(path), row=1, column="version",
                            expected="'version: NAME' then a line '---' before the prompt body",
                            fix="add a header like the built-in templates have")
    try:
        fields = tuple(dict.fromkeys(string.Template(body).get_identifiers()))
        string.Template(body).substitute({f: "" for f in fields})
    except (ValueError, KeyError) as exc:
        raise CAPInputError("malformed placeholder in the template", file=str(path), got=str(exc),
                            fix="write placeholders as ${name}; write a literal dollar as $$") from None
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:8]
    return PromptTemplate(path.stem, f"{header['version']}+{digest}", body, fields)
