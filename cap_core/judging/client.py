"""The call layer: cache first, then litellm with retries, a budget and bounded threads.

* Cache: :class:`~cap_core.judging.cache.JudgeCache`; a hit costs no call and $0 and
  is recorded (``cache_hit=True``, the original call's tokens and cost kept). A new
  completion is written to the cache BEFORE the record is returned, so nothing that
  finished is lost when the process dies. Only answers are cached: a failed call and an
  empty reply (no completion text) are never stored, so the next run asks again.
* One sender per call: before sending, the client claims the call's cache key
  (:meth:`JudgeCache.claim`, atomic across processes) for ``lease_s`` seconds and renews
  the claim from a background thread while the call is in flight. A caller that finds the
  key claimed waits for the answer (then a cache hit) or for the claim to go (released
  after a failure, or expired because its holder died) and then claims it itself. Two
  processes judging the same items on one cache therefore send each call once.
* Retries: 429, 408, 409, 5xx, timeouts and connection errors are retried up to
  ``RetryPolicy.max_retries`` times; the wait is the server's ``Retry-After`` (seconds
  or HTTP date, capped at ``max_retry_after``) when sent, else exponential backoff
  ``base_delay * 2**k`` capped at ``max_delay`` with full jitter in [50%, 100%].
  Other errors fail at once; bad request (400), authentication (401), permission (403),
  not found (404, e.g. an unknown ``local/`` model) and unprocessable (422) get exactly
  one attempt and are marked ``fatal`` (the same request can never succeed).
  litellm's ``drop_params`` is off, because with it litellm resends a request after a
  422 and returns an empty reply; a request litellm refuses BEFORE sending it because the
  provider does not take a parameter (``UnsupportedParamsError``, e.g. a seed for
  Anthropic) is made again once with ``drop_params=True``.
* Early stop (``stop_after`` = n > 0): until a model's first n calls have finished, at
  most n of its calls are sent at once; when those n all fail with the same fatal error, or
  all find the endpoint unreachable the same way (connection refused or lost, or a timeout,
  after their retries), the model is halted and its remaining calls return ``stopped`` without being sent (cache
  hits are still served). Hence a model whose first three calls fail alike sends exactly
  three requests, whatever the concurrency. :meth:`JudgeClient.halt` halts a model by hand.
* Reasons: one line (the first line of the error, scrubbed of secrets, at most 300
  characters; :func:`one_line`).
* Budget: ``max_calls`` counts requests sent (every attempt, retries included);
  ``max_usd`` stops new requests once the spend reaches it. Cost comes from litellm's
  local cost map (``LITELLM_LOCAL_MODEL_COST_MAP=True``); unknown prices give
  ``cost_usd=None`` (local models cost 0).
* Keys: never passed in code or stored; litellm reads them from the environment. An
  ``openai/`` model with an ``api_base`` and no ``OPENAI_API_KEY`` set (a local server
  that takes no key) is sent with a placeholder key, since the OpenAI client will not
  send without one. Error
  texts are scrubbed of every environment value that looks like a secret, and so are
  completions before they are cached, logged or returned (:func:`redact`).
"""

from __future__ import annotations

import email.utils
import os
import random
import re
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Callable

from cap_core.errors import CAPInputError
from cap_core.judging.cache import JudgeCache
from cap_core.judging.request import JudgeRequest, cache_key, cache_keys

__all__ = ["CallRecord", "Budget", "RetryPolicy", "JudgeClient", "import_litellm", "redact", "secret_values", "scrub",
           "one_line", "REDACTED"]

_FREE_PREFIXES = ("local/", "smollm/")
_LOCAL_SERVER_PREFIXES = ("openai/", "hosted_vllm/")
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$", re.I)


def import_litellm():
    """Import litellm with the local cost map and quiet logging (call inside functions only)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    # off: with drop_params an OpenAI-compatible 422 is resent and comes back as an empty reply;
    # unsupported parameters are dropped per call instead (JudgeClient._completion)
    litellm.drop_params = False
    litellm.telemetry = False
    from cap_core.judging import local_providers, smollm

    local_providers.register()
    smollm.register()
    return litellm


#: What a secret found in stored text is replaced with.
REDACTED = "[redacted]"


def secret_values() -> tuple[str, ...]:
    """The values of the environment variables whose name ends in KEY, TOKEN, SECRET or PASSWORD
    (six characters or more), longest first."""
    found = {v for n, v in os.environ.items() if _SECRET_NAME.search(n) and v and len(v) >= 6}
    return tuple(sorted(found, key=len, reverse=True))


def redact(text: str, secrets: tuple[str, ...] | None = None) -> str:
    """``text`` with every secret-looking environment value (:func:`secret_values`, or ``secrets``
    when given) replaced by :data:`REDACTED`.

    Applied to every completion before it is cached, logged or returned, and to completions
    read back from the cache: a model that echoes the API key it was called with (a prompt
    injection in an item, a proxy that reflects headers) never puts the key on disk.
    """
    if not isinstance(text, str):
        return text
    for value in secret_values() if secrets is None else secrets:
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def scrub(text: str) -> str:
    """Remove secret-looking environment values (:func:`redact`) and key-like tokens; at most 600 characters."""
    return re.sub(r"(sk|key|api)[-_][A-Za-z0-9_\-]{12,}", "***", redact(text).replace(REDACTED, "***"))[:600]


def one_line(text: str, limit: int = 300) -> str:
    """First non-blank line of ``text``, scrubbed (:func:`scrub`), cut to ``limit`` characters ("…" marks a cut)."""
    first = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    first = scrub(first)
    return first if len(first) <= limit else first[: limit - 1] + "…"


@dataclass
class CallRecord:
    """Outcome of one request. ``status``: ok | failed | budget | cancelled | stopped.

    ``fatal``: the error can never go away by sending the same request again (see module doc).
    ``unreachable``: the endpoint did not answer (connection refused or lost, or a timeout) on
    every attempt.
    """

    key: str
    model: str
    status: str
    completion: str | None = None
    cache_hit: bool = False
    latency_s: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    retries: int = 0
    error: str = ""
    fatal: bool = False
    unreachable: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class RetryPolicy:
    """Retry and timeout settings (seconds)."""

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 60.0
    timeout: float = 60.0


class Budget:
    """Thread-safe budget in requests and dollars (``None`` = unlimited)."""

    def __init__(self, max_calls: int | None = None, max_usd: float | None = None) -> None:
        if max_calls is not None and (isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 0):
            raise CAPInputError("call budget must be a non-negative integer", argument="max_calls",
                                expected="an integer >= 0 or None (no limit)", got=max_calls,
                                fix="pass a number of requests, e.g. --budget-calls 200")
        if max_usd is not None and (isinstance(max_usd, bool) or not isinstance(max_usd, (int, float))
                                    or not max_usd >= 0):
            raise CAPInputError("dollar budget must be a non-negative number", argument="max_usd",
                                expected="a number of dollars >= 0 or None (no limit)", got=max_usd,
                                fix="pass e.g. --budget-usd 1.50")
        self.max_calls, self.max_usd = max_calls, max_usd
        self.calls, self.usd = 0, 0.0
        self._lock = threading.Lock()

    def reserve(self) -> str | None:
        """Take one request from the budget; returns the reason when exhausted."""
        with self._lock:
            if self.max_calls is not None and self.calls >= self.max_calls:
                return f"call budget of {self.max_calls} exhausted"
            if self.max_usd is not None and self.usd >= self.max_usd:
                return f"dollar budget of ${self.max_usd:g} exhausted"
            self.calls += 1
            return None

    def spend(self, usd: float | None) -> None:
        with self._lock:
            self.usd += usd or 0.0


def _retry_after(exc: Exception) -> float | None:
    for holder in (getattr(exc, "response", None), exc):
        headers = getattr(holder, "headers", None) or getattr(holder, "litellm_response_headers", None)
        value = headers.get("retry-after") if headers is not None else None
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except (TypeError, ValueError):
            pass
        try:  # an HTTP date; anything else is ignored and the backoff schedule applies
            when = email.utils.parsedate_to_datetime(str(value))
        except (TypeError, ValueError, IndexError):
            return None
        return max(0.0, when.timestamp() - time.time()) if when else None
    return None


_FATAL_CODES = (400, 401, 403, 404, 422)


def _fatal(exc: Exception, litellm) -> bool:
    """Bad request, authentication, permission, not found, unprocessable: resending cannot help."""
    if isinstance(exc, (litellm.BadRequestError, litellm.AuthenticationError, litellm.PermissionDeniedError,
                        litellm.NotFoundError, litellm.UnprocessableEntityError)):
        return True
    return getattr(exc, "status_code", None) in _FATAL_CODES


def _unreachable(exc: Exception, litellm) -> bool:
    """The endpoint gave no answer: the connection failed or the request timed out. litellm reports a
    refused connection to an OpenAI-compatible server as an ``InternalServerError`` ("Connection error."),
    so the causes are read too (the OpenAI client's connection error, httpx's transport errors, the
    system's)."""
    kinds: tuple = (litellm.Timeout, litellm.APIConnectionError, ConnectionError, TimeoutError)
    try:
        import httpx
        import openai

        kinds += (openai.APIConnectionError, httpx.TransportError)
    except ImportError:  # pragma: no cover - litellm depends on both
        pass
    seen, cur = 0, exc
    while cur is not None and seen < 12:
        if isinstance(cur, kinds):
            return True
        cur, seen = cur.__cause__ or cur.__context__, seen + 1
    return False


def _retryable(exc: Exception, litellm) -> bool:
    if _fatal(exc, litellm):
        return False
    code = getattr(exc, "status_code", None)
    if isinstance(exc, (litellm.Timeout, litellm.APIConnectionError, litellm.RateLimitError,
                        litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return True
    return isinstance(code, int) and (code in (408, 409, 429) or code >= 500)


class _Leases:
    """The claims one client holds, renewed every ``ttl / 3`` seconds by one daemon thread."""

    def __init__(self, cache: JudgeCache, ttl: float) -> None:
        self.cache, self.ttl = cache, ttl
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def acquire(self, key: str) -> bool:
        if not self.cache.claim(key, self.owner, self.ttl):
            return False
        with self._lock:
            self._held.add(key)
            if self._thread is None:
                self._thread = threading.Thread(target=self._renew, name="judge-cache-leases", daemon=True)
                self._thread.start()
        return True

    def release(self, key: str) -> None:
        with self._lock:
            self._held.discard(key)
        self.cache.release(key, self.owner)

    def _renew(self) -> None:
        while True:
            time.sleep(self.ttl / 3)
            with self._lock:
                keys = list(self._held)
                if not keys:
                    self._thread = None
                    return
            for key in keys:
                try:
                    self.cache.renew(key, self.owner, self.ttl)
                except Exception:  # a failed renewal only lets the claim expire
                    pass


_NOT_OUTCOMES = ("stopped", "cancelled", "budget")  # never sent: say nothing about the model


@dataclass
class JudgeClient:
    """Send :class:`JudgeRequest` s through the cache and litellm (rules in the module doc).

    Parameters
    ----------
    cache : JudgeCache
    budget : Budget
    retry : RetryPolicy
    concurrency : int
        Threads of :meth:`map` (1-64).
    cancel : threading.Event
        Set it to stop sending; calls in flight finish.
    stop_after : int
        Halt a model whose first ``stop_after`` calls all fail with the same fatal error
        (0 = never).
    lease_s : float
        Seconds a claim lives without renewal (a crashed holder's claim expires after at
        most this long).

    ``stats`` (thread-safe counters): ``requests`` sent, ``cache_hits``, ``failures``,
    ``spend_usd`` (this run only; hits cost $0). ``halted``: model -> one-line reason.

    Raises
    ------
    CAPInputError
        ``concurrency``, ``stop_after`` or ``lease_s`` out of range (named as the argument).
    """

    cache: JudgeCache
    budget: Budget = field(default_factory=Budget)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 4
    cancel: threading.Event = field(default_factory=threading.Event)
    rng: random.Random = field(default_factory=random.Random)
    stop_after: int = 0
    lease_s: float = 30.0

    def __post_init__(self) -> None:
        if isinstance(self.concurrency, bool) or not isinstance(self.concurrency, int) or not 1 <= self.concurrency <= 64:
            raise CAPInputError("concurrency must be an integer from 1 to 64", argument="concurrency",
                                expected="1 to 64 parallel requests", got=self.concurrency, fix="e.g. --concurrency 4")
        if isinstance(self.stop_after, bool) or not isinstance(self.stop_after, int) or self.stop_after < 0:
            raise CAPInputError("stop_after must be a non-negative integer", argument="stop_after",
                                expected="0 (never stop) or a number of calls", got=self.stop_after)
        if isinstance(self.lease_s, bool) or not isinstance(self.lease_s, (int, float)) or not self.lease_s > 0:
            raise CAPInputError("the claim lease must be a positive number of seconds", argument="lease_s",
                                expected="seconds > 0", got=self.lease_s)
        self.stats = {"requests": 0, "cache_hits": 0, "failures": 0, "spend_usd": 0.0}
        self.halted: dict[str, str] = {}
        self._lock = threading.Lock()
        self._trial = threading.Condition()  # guards halted and the first calls of every model
        self._first: dict[str, dict] = {}  # model -> {"sending": n, "seen": [(halts, signature, error), ...]}
        self._leases = _Leases(self.cache, float(self.lease_s))
        self._secrets = secret_values()  # read once: completions are redacted with them (redact)

    def halt(self, model: str, reason: str) -> None:
        """Send no further request for ``model`` (its calls return status ``stopped`` with ``reason``)."""
        with self._trial:
            self.halted.setdefault(model, one_line(reason))
            self._trial.notify_all()

    def _count(self, name: str, value: float = 1) -> None:
        with self._lock:
            self.stats[name] += value

    # -- early stop ----------------------------------------------------------------------------

    def _gate(self, key: str, model: str) -> tuple[CallRecord | None, bool]:
        """Wait until ``model`` may send: (a stopped/cancelled record or None, whether a trial slot was taken)."""
        with self._trial:
            while True:
                if model in self.halted:
                    return self._stopped(key, model), False
                if self.cancel.is_set():
                    return CallRecord(key, model, "cancelled", error="run cancelled"), False
                first = self._first.setdefault(model, {"sending": 0, "seen": []})
                if self.stop_after < 1 or len(first["seen"]) >= self.stop_after:
                    return None, False
                if first["sending"] + len(first["seen"]) < self.stop_after:
                    first["sending"] += 1
                    return None, True
                self._trial.wait(0.1)

    def _settle(self, model: str, rec: CallRecord | None, slot: bool) -> None:
        """Note the outcome of one of ``model``'s first calls (``rec``; None = no outcome, only free the
        slot); halt the model when its first ``stop_after`` calls all failed alike."""
        with self._trial:
            first = self._first.setdefault(model, {"sending": 0, "seen": []})
            first["sending"] -= int(slot)
            seen = first["seen"]
            if (rec is not None and self.stop_after >= 1 and len(seen) < self.stop_after
                    and rec.status not in _NOT_OUTCOMES):
                failed = rec.status == "failed"
                # alike: the same fatal error, or the endpoint unreachable the same way (connection or timeout,
                # whose texts may differ per request)
                sign = rec.error.split(":", 1)[0] if failed and rec.unreachable else rec.error
                seen.append((failed and (rec.fatal or rec.unreachable), sign, rec.error))
                if len(seen) == self.stop_after and all(f for f, _, _ in seen) and len({g for _, g, _ in seen}) == 1:
                    self.halted.setdefault(model, one_line(
                        f"{model}: first {self.stop_after} calls failed with {seen[0][2]}"))
            self._trial.notify_all()

    def _settled(self, model: str) -> bool:
        """Whether ``model``'s first outcomes are all known (or no early stop is kept): a further outcome
        changes nothing, so :meth:`_settle` need not be called for it (the list of first outcomes only
        grows, so reading its length without the lock is safe)."""
        if self.stop_after < 1:
            return True
        first = self._first.get(model)
        return first is not None and len(first["seen"]) >= self.stop_after

    def _stopped(self, key: str, model: str, retries: int = 0) -> CallRecord:
        return CallRecord(key, model, "stopped", retries=retries, error=one_line(f"not sent: {self.halted[model]}"),
                          fatal=True)

    # -- one call ------------------------------------------------------------------------------

    def _hit(self, key: str, req: JudgeRequest, hit: dict | None = None) -> CallRecord | None:
        hit = self.cache.get(key) if hit is None else hit
        if hit is None:
            return None
        self._count("cache_hits")
        return CallRecord(key, req.model, "ok", redact(hit["completion"], self._secrets), True, hit.get("latency_s"),
                          hit.get("tokens_in"), hit.get("tokens_out"), hit.get("cost_usd"), hit.get("retries", 0))

    def _await_claim(self, key: str) -> None:
        """Wait while another caller holds ``key``'s claim (until its answer is stored or the claim goes)."""
        delay = 0.02
        while not self.cancel.is_set() and self.cache.claimed(key) and self.cache.get(key) is None:
            self.cancel.wait(delay)
            delay = min(0.25, delay * 1.5)

    def call(self, req: JudgeRequest) -> CallRecord:
        """One request: a cache hit, or litellm with retries (see module doc)."""
        key = cache_key(req)
        while True:
            rec = self._hit(key, req)
            if rec is not None:
                self._settle(req.model, rec, False)
                return rec
            rec, slot = self._gate(key, req.model)
            if rec is not None:
                return rec
            if not self._leases.acquire(key):
                self._settle(req.model, None, slot)  # give the slot back while another caller sends
                self._await_claim(key)
                continue
            try:
                rec = self._hit(key, req)  # answered between the first look and the claim
                if rec is None:
                    rec = self._send(key, req)
            finally:
                self._leases.release(key)
            self._settle(req.model, rec, slot)
            return rec

    def _completion(self, litellm, req: JudgeRequest):
        kw = dict(req.litellm_kwargs(), timeout=self.retry.timeout, num_retries=0, max_retries=0)
        if req.api_base and req.model.startswith(_LOCAL_SERVER_PREFIXES) and not os.environ.get("OPENAI_API_KEY"):
            # a local OpenAI-compatible server (vLLM, llama.cpp, Ollama) takes no key, but the OpenAI client
            # refuses to send without one: a placeholder, never a secret
            kw["api_key"] = "no-key-needed"
        try:
            return litellm.completion(**kw)
        except litellm.UnsupportedParamsError:
            # raised before anything is sent: the provider does not take one of the parameters
            return litellm.completion(**kw, drop_params=True)

    def _send(self, key: str, req: JudgeRequest) -> CallRecord:
        litellm = import_litellm()
        retries = 0
        while True:
            with self._trial:
                if req.model in self.halted:
                    return self._stopped(key, req.model, retries)
            if self.cancel.is_set():
                return CallRecord(key, req.model, "cancelled", retries=retries, error="run cancelled")
            reason = self.budget.reserve()
            if reason:
                return CallRecord(key, req.model, "budget", retries=retries, error=reason)
            self._count("requests")
            t0 = time.perf_counter()
            try:
                resp = self._completion(litellm, req)
            except Exception as exc:  # provider errors come in many classes
                if _retryable(exc, litellm) and retries < self.retry.max_retries:
                    wait = _retry_after(exc)
                    if wait is None:
                        wait = min(self.retry.max_delay, self.retry.base_delay * 2**retries)
                        wait *= self.rng.uniform(0.5, 1.0)
                    retries += 1
                    self.cancel.wait(min(wait, self.retry.max_retry_after))
                    continue
                self._count("failures")
                return CallRecord(key, req.model, "failed", latency_s=time.perf_counter() - t0, retries=retries,
                                  error=one_line(f"{type(exc).__name__}: {exc}"), fatal=_fatal(exc, litellm),
                                  unreachable=_unreachable(exc, litellm))
            return self._finish(key, req, resp, time.perf_counter() - t0, retries, litellm)

    def _finish(self, key, req, resp, latency, retries, litellm) -> CallRecord:
        try:
            text = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            text = None
        no_logprobs = False
        if req.top_logprobs is not None:  # a choice-probability judge: the answer is the token distribution
            from cap_core.judging.choice import choices_line, completion_text

            text = completion_text(resp, req.messages[-1][1].rstrip().endswith(choices_line(True)))
            no_logprobs = text is None
        text = redact(text, self._secrets)  # a reply that echoes a key is stored and shown without it
        usage = getattr(resp, "usage", None)
        t_in = getattr(usage, "prompt_tokens", None)
        t_out = getattr(usage, "completion_tokens", None)
        try:
            cost = float(litellm.completion_cost(completion_response=resp, model=req.model))
        except Exception:
            cost = 0.0 if req.model.startswith(_FREE_PREFIXES) else None
        self.budget.spend(cost)
        self._count("spend_usd", cost or 0.0)
        if not isinstance(text, str) or not text.strip():  # an empty reply is not an answer: never cached
            self._count("failures")
            why = ("no token log-probabilities: the provider ignored logprobs/top_logprobs (a choice judge needs "
                   "them; use the model as a generating judge instead)" if no_logprobs
                   else "empty reply: the provider returned no completion text")
            return CallRecord(key, req.model, "failed", None, False, latency, t_in, t_out, cost, retries, error=why,
                              fatal=no_logprobs)
        self.cache.put(key, {"request": req.canonical(), "completion": text, "latency_s": latency,
                             "tokens_in": t_in, "tokens_out": t_out, "cost_usd": cost, "retries": retries})
        return CallRecord(key, req.model, "ok", text, False, latency, t_in, t_out, cost, retries)

    def map(self, requests: list[JudgeRequest], on_done: Callable[[int, CallRecord], None] | None = None
            ) -> list[CallRecord]:
        """Run ``requests`` on ``concurrency`` threads; ``on_done(i, record)`` runs in the caller's thread."""
        out: list[CallRecord | None] = [None] * len(requests)
        # cache hits first, read in one pass in this thread (no thread, claim or lease per cached call);
        # only the misses go to the pool, where call() looks again (another process may have answered)
        keys = cache_keys(requests)
        hits = self.cache.get_many(keys)
        todo = []
        for i, (key, req) in enumerate(zip(keys, requests)):
            hit = hits.get(key)
            if hit is None:
                todo.append(i)
                continue
            rec = self._hit(key, req, hit)
            if not self._settled(req.model):  # no trial slot was taken for a hit: only its outcome is noted
                self._settle(req.model, rec, False)
            out[i] = rec
            if on_done is not None:
                on_done(i, rec)
        if not todo:
            return out
        self.cache.open()  # calls to send: a cache folder that cannot be written is refused before the first
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = {pool.submit(self.call, requests[i]): i for i in todo}
            try:
                for fut in as_completed(futures):
                    i = futures[fut]
                    out[i] = fut.result()
                    if on_done is not None:
                        on_done(i, out[i])
            finally:
                if any(r is None for r in out):
                    self.cancel.set()
                    for fut in futures:
                        fut.cancel()
        return [r if r is not None else CallRecord(keys[i], requests[i].model, "cancelled", error="run cancelled")
                for i, r in enumerate(out)]
