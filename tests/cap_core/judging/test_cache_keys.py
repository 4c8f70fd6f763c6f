"""The cache key did not move: existing caches keep working.

``cache_keys`` encodes the JSON around the message texts once per request shape and splices
each text in; these tests check it against keys derived by hand (hashlib over a JSON text
written out here) and against a key the previous implementation computed.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from cap_core.errors import CAPInputError
from cap_core.judging.request import (
    PROVIDER_REVISIONS,
    JudgeRequest,
    cache_key,
    cache_keys,
)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _reference_key(req: JudgeRequest) -> str:
    """The documented definition, written out independently: SHA-256 of the canonical request as
    sorted, compact, UTF-8 JSON, plus api_base ("" when unset) and an in-process provider's revision."""
    payload = {"model": req.model, "messages": [{"role": r, "content": c} for r, c in req.messages],
               "temperature": req.temperature, "top_p": req.top_p, "max_tokens": req.max_tokens, "seed": req.seed,
               "response_format": req.response_format, "template_version": req.template_version,
               "api_base": req.api_base or ""}
    if req.repeat:
        payload["repeat"] = req.repeat
    if req.top_logprobs is not None:
        payload["top_logprobs"] = req.top_logprobs
    for prefix, rev in PROVIDER_REVISIONS.items():
        if req.model.startswith(prefix):
            payload["provider_revision"] = rev
            if prefix == "smollm/":
                from cap_core.judging.templates import load_template

                payload["provider_revision"] += "+" + load_template("smollm_rationale").version
    return _sha(json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def test_a_hosted_request_has_the_key_of_its_hand_written_canonical_json():
    req = JudgeRequest("openai/gpt-4o-mini", (("system", "Be fair."), ("user", 'Say "hi"\nnow — ok')),
                       template_version="pairwise-1+abcd1234")
    # written by hand: sorted keys, no spaces, quotes and the newline escaped, the dash kept as UTF-8
    text = ('{"api_base":"","max_tokens":1024,"messages":[{"content":"Be fair.","role":"system"},'
            r'{"content":"Say \"hi\"\nnow — ok","role":"user"}],"model":"openai/gpt-4o-mini",'
            '"response_format":null,"seed":null,"temperature":0.0,"template_version":"pairwise-1+abcd1234",'
            '"top_p":null}')
    assert cache_key(req) == _sha(text)
    assert cache_keys([req, req]) == [_sha(text), _sha(text)]


def test_a_local_request_keeps_the_key_the_previous_code_gave():
    # computed by the implementation before cache_keys (commit 9abe009) for this exact request
    req = JudgeRequest("local/first", (("user", '[Answer A]\nun café\n[End of Answer A]\n[Answer B]\n"deux"\t\\ \x01\n'
                                                "[End of Answer B]"),), 0.7, None, 1, None, None, "choice-1+0f0f0f0f",
                       None, 2, 10)
    old = "2dc83f13c64446deefea187d8eb81063e03887aa85f5e32aa8bfe2c321fed8d1"
    assert cache_key(req) == old == _reference_key(req)
    text = ('{"api_base":"","max_tokens":1,"messages":[{"content":'
            + json.dumps(req.messages[0][1], ensure_ascii=False)
            + ',"role":"user"}],"model":"local/first","provider_revision":"1","repeat":2,"response_format":null,'
            '"seed":null,"temperature":0.7,"template_version":"choice-1+0f0f0f0f","top_logprobs":10,"top_p":null}')
    assert old == _sha(text)


_TEXTS = ["", "plain", 'quote " and backslash \\ and slash /', "tab\tnew\nline\r\x00\x1f\x7f", "émoji 🎉 中文",
          "\u2028\u2029 separators", "\x00cap-message-0\x00", '"\\u0000cap-message-0\\u0000"', "{}[]:,"]


def test_every_kind_of_request_keys_as_the_definition_says():
    reqs = []
    for i, text in enumerate(_TEXTS):
        for model in ("openai/gpt-4o-mini", "local/longer", "smollm/choice", 'odd "model" \x00cap-message-0\x00'):
            for temperature in (0.0, 0, -0.0, 0.7, None, True):
                reqs.append(JudgeRequest(model, (("user", text),), temperature, None, 1024, None, None, f"v{i % 2}",
                                         "http://127.0.0.1:9/v1" if i % 3 == 0 else None, i % 2, None))
        reqs.append(JudgeRequest("openai/x", (("system", text), ("user", text + "!"), ("assistant", "A")),
                                 0.2, 0.9, None, 7, "json_object", "v", None, 0, 5))
    keys = cache_keys(reqs)
    assert keys == [_reference_key(r) for r in reqs] == [cache_key(r) for r in reqs]
    # 0, 0.0 and -0.0 (and True) are different JSON, hence different keys: no shape is shared between them
    zero, int_zero, neg_zero, true = (cache_key(JudgeRequest("openai/x", (("user", "t"),), t))
                                      for t in (0.0, 0, -0.0, True))
    assert len({zero, int_zero, neg_zero, true}) == 4


def test_a_key_needs_a_request():
    with pytest.raises(CAPInputError, match="argument `req`"):
        cache_keys([JudgeRequest("openai/x", (("user", "t"),)), "not a request"])
