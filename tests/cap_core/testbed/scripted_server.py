"""A generator and subtlety judge on 127.0.0.1 whose every reply the test writes down.

The transport is :class:`tests.cap_core.judging.openai_server.OpenAIServer` (a stdlib
``ThreadingHTTPServer`` speaking the OpenAI chat-completions API on a free port); only the reply
text changes. The stage is read from the prompt of the built-in templates:

``expand``    ``[Reference answer]``: ``expansions[question][seed - 1]``
``flaw``      ``[Correct answer]`` and ``flawed_answer``: ``flaws[question][seed - 1]`` (a str, or a
              ``(reply text, raw)`` pair sent as it is), else :func:`default_flaw`
``subtlety``  ``Rate how hard``: ``scores[flawed text]`` (default 5)
``harden``    ``too easy to judge``: ``hardens[question]`` (a dict sent as JSON)
``rewrite``   ``[Text]`` (the variant prompts): the base server's rule (``rewrite``)

Every request is logged in ``seen`` as ``(stage, question, model, temperature, seed)``.
"""

from __future__ import annotations

import json
import re

from tests.cap_core.judging.openai_server import OpenAIServer


def section(prompt: str, name: str) -> str | None:
    m = re.search(r"\[" + re.escape(name) + r"\]\n(.*?)\n\[End of " + re.escape(name) + r"\]", prompt, re.S)
    return m.group(1) if m else None


def default_flaw(prompt: str) -> str:
    """A planted change any correct answer can take: a word inserted in the middle (fabrication and
    overclaim prompts) or the middle word removed (reversal and omission prompts)."""
    words = section(prompt, "Correct answer").split()
    k = len(words) // 2
    if "factual fabrication" in prompt or "qualified statement" in prompt:
        words = words[:k] + ["reportedly"] + words[k:]
    else:
        words = words[:k] + words[k + 1:]
    return " ".join(words)


class ScriptedServer(OpenAIServer):
    def __init__(self, *, flaws=None, scores=None, expansions=None, hardens=None) -> None:
        self.flaws, self.scores = flaws or {}, scores or {}
        self.expansions, self.hardens = expansions or {}, hardens or {}
        self.seen: list[tuple] = []
        super().__init__()

    def stages(self, stage: str) -> list[tuple]:
        return [s for s in self.seen if s[0] == stage]

    def _completion(self, body: dict, prompt: str, scen: str) -> bytes:
        question = section(prompt, "Question")
        seed = body.get("seed")
        if "[Text]" in prompt:
            stage = "rewrite"
        elif "[Reference answer]" in prompt:
            stage = "expand"
        elif "Rate how hard" in prompt:
            stage = "subtlety"
        elif "too easy to judge" in prompt:
            stage = "harden"
        else:
            stage = "flaw"
        with self._lock:
            self.seen.append((stage, question, body["model"], body.get("temperature"), seed))
        if stage == "rewrite":
            return super()._completion(body, prompt, "rewrite")
        if stage == "expand":
            text = self.expansions[question][seed - 1]
        elif stage == "subtlety":
            flawed = section(prompt, "Answer with the planted error")
            text = json.dumps({"subtlety": self.scores.get(flawed, 5), "reason": "scripted"})
        elif stage == "harden":
            text = json.dumps(self.hardens[question])
        else:
            script = self.flaws.get(question)
            got = script[seed - 1] if script else default_flaw(prompt)
            if isinstance(got, tuple):
                text = got[1]
            else:
                text = json.dumps({"flawed_answer": got, "error_note": f"scripted flaw {seed}"})
        out = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}}
        return json.dumps(out).encode()
