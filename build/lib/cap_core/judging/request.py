"""Canonical judging requests and their cache keys.

A :class:`JudgeRequest` holds exactly the fields that change what a model returns:
model string, messages, sampling settings, response format and the prompt template
version. Its :func:`cache_key` is a SHA-256 over a canonical JSON encoding (sorted keys,
no whitespace), so the same request always maps to the same cache entry and any change
(e.g. an edited template, whose version carries a content hash) maps to a new one.
API keys are never part of a request.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from json.encoder import (
    encode_basestring as _encode_text,  # what json.dumps writes for a str (ensure_ascii=False)
)

from cap_core.errors import CAPInputError

__all__ = ["JudgeRequest", "cache_key", "cache_keys", "DEFAULT_TEMPERATURE", "DEFAULT_MAX_TOKENS"]

#: Deterministic decoding by default (CAP §3.3 "deterministic decoding when supported").
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 1024
#: Revisions of the in-process providers; bump one when its answers change so that the
#: cache does not serve completions of the old implementation. A provider that sends a
#: prompt of its own (SmolLM2's rationale request) also keys on that template's version.
PROVIDER_REVISIONS = {"local/": "1", "smollm/": "2"}
_PROVIDER_TEMPLATES = {"smollm/": "smollm_rationale"}


@dataclass(frozen=True)
class JudgeRequest:
    """One chat-completion request.

    Attributes
    ----------
    model : str
        A litellm model string (``openai/gpt-4o-mini``, ``anthropic/...``, ``local/longer``).
    messages : tuple of (role, content) pairs
    temperature, top_p : float or None
    max_tokens, seed : int or None
    response_format : str or None
        ``"json_object"`` to ask the provider for JSON output, else ``None``.
    template_version : str
        Version of the prompt template that produced ``messages`` (part of the key).
    api_base : str or None
        Endpoint for OpenAI-compatible servers; part of the key (different servers,
        different answers) but never logged.
    repeat : int
        Index of a test-retest repeat (0 = the first judgment). Part of the key when
        above 0, so K repeats are K cache entries; never sent to the provider.
    top_logprobs : int or None
        Ask for the log-probabilities of this many candidate tokens at each position
        (choice-probability judges, :mod:`cap_core.judging.choice`); part of the key and
        of the stored request when set.
    """

    model: str
    messages: tuple[tuple[str, str], ...]
    temperature: float | None = DEFAULT_TEMPERATURE
    top_p: float | None = None
    max_tokens: int | None = DEFAULT_MAX_TOKENS
    seed: int | None = None
    response_format: str | None = None
    template_version: str = ""
    api_base: str | None = field(default=None, compare=True)
    repeat: int = 0
    top_logprobs: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise CAPInputError("model must be a non-empty litellm model string", argument="model",
                                expected="e.g. openai/gpt-4o-mini or local/longer", got=self.model)
        if not self.messages or any(len(m) != 2 or not isinstance(m[1], str) for m in self.messages):
            raise CAPInputError("messages must be (role, content) pairs", argument="messages",
                                expected="non-empty tuple of (role, text)", got=self.messages)

    def canonical(self) -> dict:
        """The request as a plain dict without ``api_base`` (safe to store and log)."""
        out = {
            "model": self.model,
            "messages": [{"role": r, "content": c} for r, c in self.messages],
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "response_format": self.response_format,
            "template_version": self.template_version,
        }
        # only when set, so that the keys of every earlier request stay as they were
        if self.repeat:
            out["repeat"] = self.repeat
        if self.top_logprobs is not None:
            out["top_logprobs"] = self.top_logprobs
        return out

    def litellm_kwargs(self) -> dict:
        """Keyword arguments for ``litellm.completion`` (unset sampling fields left out)."""
        kw: dict = {"model": self.model, "messages": [{"role": r, "content": c} for r, c in self.messages]}
        for name in ("temperature", "top_p", "max_tokens", "seed"):
            value = getattr(self, name)
            if value is not None:
                kw[name] = value
        if self.response_format:
            kw["response_format"] = {"type": self.response_format}
        if self.api_base:
            kw["api_base"] = self.api_base
        if self.top_logprobs is not None:
            kw["logprobs"] = True
            kw["top_logprobs"] = self.top_logprobs
        return kw


def _payload(req: JudgeRequest) -> dict:
    """What the key of ``req`` hashes: the canonical request, ``api_base`` (``""`` when unset) and, for
    an in-process provider, its revision (with the version of a prompt it sends of its own)."""
    payload = dict(req.canonical(), api_base=req.api_base or "")
    prefix = next((k for k in PROVIDER_REVISIONS if req.model.startswith(k)), None)
    if prefix is not None:
        payload["provider_revision"] = PROVIDER_REVISIONS[prefix]
        if prefix in _PROVIDER_TEMPLATES:
            from cap_core.judging.templates import load_template

            payload["provider_revision"] += "+" + load_template(_PROVIDER_TEMPLATES[prefix]).version
    return payload


def _key_text(payload: dict) -> str:
    """The canonical JSON that is hashed: sorted keys, no whitespace, UTF-8 text kept as is."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Stand-in for the i-th message text while the JSON around the texts is encoded once per shape.
_SLOT = "\x00cap-message-{}\x00"


def _shape(req: JudgeRequest) -> tuple:
    """Everything of ``req`` but its message texts; equal shapes encode to the same JSON around the
    texts (numbers by type and repr: ``0`` and ``0.0``, ``0.0`` and ``-0.0`` are not the same shape)."""
    return (req.model, req.api_base, req.response_format, req.template_version, tuple((type(r), r) for r, _ in req.messages),
            *[(type(v), repr(v)) for v in (req.temperature, req.top_p, req.max_tokens, req.seed, req.repeat,
                                            req.top_logprobs)])


def _pieces(req: JudgeRequest) -> list[str] | None:
    """The canonical JSON of ``req`` cut around its message texts (n texts, n + 1 pieces), or None when a
    stand-in also occurs elsewhere (then the request is encoded whole)."""
    slots = tuple((role, _SLOT.format(i)) for i, (role, _) in enumerate(req.messages))
    text = _key_text(_payload(JudgeRequest(req.model, slots, req.temperature, req.top_p, req.max_tokens, req.seed,
                                           req.response_format, req.template_version, req.api_base, req.repeat,
                                           req.top_logprobs)))
    pieces = []
    for i in range(len(slots)):
        quoted = json.dumps(_SLOT.format(i), ensure_ascii=False)
        if text.count(quoted) != 1:
            return None
        head, text = text.split(quoted)
        pieces.append(head)
    pieces.append(text)
    return pieces


def cache_keys(requests: list[JudgeRequest]) -> list[str]:
    """:func:`cache_key` of each request, in order (the JSON around the message texts is encoded once per
    request shape; each text is JSON-encoded alone and spliced in, which gives the same bytes).

    Raises
    ------
    CAPInputError
        An element is not a :class:`JudgeRequest` (argument ``req``).
    """
    shapes: dict = {}
    out = []
    for req in requests:
        if not isinstance(req, JudgeRequest):
            raise CAPInputError("cache_key needs a JudgeRequest", argument="req", expected="JudgeRequest",
                                got=type(req).__name__)
        try:
            shape = _shape(req)
            pieces = shapes[shape] if shape in shapes else shapes.setdefault(shape, _pieces(req))
        except TypeError:  # an unhashable field: encoded whole
            pieces = None
        if pieces is None:
            out.append(_sha(_key_text(_payload(req))))
            continue
        parts = [pieces[0]]
        for (_, content), piece in zip(req.messages, pieces[1:]):
            parts += (_encode_text(content), piece)
        out.append(_sha("".join(parts)))
    return out


def cache_key(req: JudgeRequest) -> str:
    """Hex SHA-256 of the canonical request (plus ``api_base`` when set, and an in-process provider's
    revision): :func:`_key_text` of :func:`_payload`.

    Raises
    ------
    CAPInputError
        ``req`` is not a :class:`JudgeRequest`.
    """
    return cache_keys([req])[0]
