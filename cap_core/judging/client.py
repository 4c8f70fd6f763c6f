"""The call layer: cache first, then litellm with retries, a budget and bounded threads.

* Cache: :class:`~cap_core.judging.cache.JudgeCache`; a hit costs no call and $0 and
  is recorded (``cache_hit=True``, the original call's tokens and cost kept). A new
  completion is written to the cache BEFORE the record is returned, so nothing that
  finished is lost when the process dies.
* Retries: 429, 408, 5xx, timeouts and connection errors are retried up to
  ``RetryPolicy.max_retries`` times; the wait is the server's ``Retry-After`` (seconds
  or HTTP date, capped at ``max_retry_after``) when sent, else exponential backoff
  ``base_delay * 2**k`` capped at ``max_delay`` with full jitter in [50%, 100%].
  Other errors fail at once; bad request (400), authentication (401), permission (403),
  not found (404, e.g. an unknown ``local/`` model) and unprocessable (422) are marked
  ``fatal`` (the same request can never succeed), and :meth:`JudgeClient.halt` stops a
  model's remaining requests (status ``stopped``; cache hits are still served).
* Reasons: one line (the first line of the error, scrubbed of secrets, at most 300
  characters; :func:`one_line`).
* Budget: ``max_calls`` counts requests sent (every attempt, retries included);
  ``max_usd`` stops new requests once the spend reaches it. Cost comes from litellm's
  local cost map (``LITELLM_LOCAL_MODEL_COST_MAP=True``); unknown prices give
  ``cost_usd=None`` (local models cost 0).
* Keys: never passed in code or stored; litellm reads them from the environment. Error
  texts are scrubbed of every environment value that looks like a secret.
"""

from __future__ import annotations

import email.utils
import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Callable

from cap_core.errors import CAPInputError
from cap_core.judging.cache import JudgeCache
from cap_core.judging.request import JudgeRequest, cache_key

__all__ = ["CallRecord", "Budget", "RetryPolicy", "JudgeClient", "import_litellm", "scrub", "one_line"]

_FREE_PREFIXES = ("local/", "smollm/")
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$", re.I)


def import_litellm():
    """Import litellm with the local cost map and quiet logging (call inside functions only)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True  # temperature / seed are sent only where the provider supports them
    litellm.telemetry = False
    from cap_core.judging import local_providers, smollm

    local_providers.register()
    smollm.register()
    return litellm


def scrub(text: str) -> str:
    """Remove secret-looking environment values (names ending KEY/TOKEN/SECRET/PASSWORD)."""
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and value and len(value) >= 6:
            text = text.replace(value, "***")
    return re.sub(r"(sk|key|api)[-_][A-Za-z0-9_\-]{12,}", "***", text)[:600]


def one_line(text: str, limit: int = 300) -> str:
    """First non-blank line of ``text``, scrubbed (:func:`scrub`), cut to ``limit`` characters ("…" marks a cut)."""
    first = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    first = scrub(first)
    return first if len(first) <= limit else first[: limit - 1] + "…"


@dataclass
class CallRecord:
    """Outcome of one request. ``status``: ok | failed | budget | cancelled | stopped.

    ``fatal``: the error can never go away by sending the same request again (see module doc).
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
        if max_calls is not None and (not isinstance(max_calls, int) or max_calls < 0):
            raise CAPInputError("call budget must be a non-negative integer", argument="budget_calls", got=max_calls)
        if max_usd is not None and not (isinstance(max_usd, (int, float)) and max_usd >= 0):
            raise CAPInputError("dollar budget must be a non-negative number", argument="budget_usd", got=max_usd)
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
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time()) if when else None
    return None


_FATAL_CODES = (400, 401, 403, 404, 422)


def _fatal(exc: Exception, litellm) -> bool:
    """Bad request, authentication, permission, not found, unprocessable: resending cannot help."""
    if isinstance(exc, (litellm.BadRequestError, litellm.AuthenticationError, litellm.PermissionDeniedError,
                        litellm.NotFoundError, litellm.UnprocessableEntityError)):
        return True
    return getattr(exc, "status_code", None) in _FATAL_CODES


def _retryable(exc: Exception, litellm) -> bool:
    if _fatal(exc, litellm):
        return False
    code = getattr(exc, "status_code", None)
    if isinstance(exc, (litellm.Timeout, litellm.APIConnectionError, litellm.RateLimitError,
                        litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return True
    return isinstance(code, int) and (code in (408, 409, 429) or code >= 500)


@dataclass
class JudgeClient:
    """Send :class:`JudgeRequest` s through the cache and litellm.

    ``stats`` (thread-safe counters): ``requests`` sent, ``cache_hits``, ``failures``,
    ``spend_usd`` (this run only; hits cost $0).
    """

    cache: JudgeCache
    budget: Budget = field(default_factory=Budget)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 4
    cancel: threading.Event = field(default_factory=threading.Event)
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        if not isinstance(self.concurrency, int) or not 1 <= self.concurrency <= 64:
            raise CAPInputError("concurrency must be an integer from 1 to 64", argument="concurrency",
                                got=self.concurrency)
        self.stats = {"requests": 0, "cache_hits": 0, "failures": 0, "spend_usd": 0.0}
        self.halted: dict[str, str] = {}
        self._lock = threading.Lock()

    def halt(self, model: str, reason: str) -> None:
        """Send no further request for ``model`` (its calls return status ``stopped`` with ``reason``)."""
        with self._lock:
            self.halted.setdefault(model, one_line(reason))

    def _count(self, name: str, value: float = 1) -> None:
        with self._lock:
            self.stats[name] += value

    def call(self, req: JudgeRequest) -> CallRecord:
        """One request: a cache hit, or litellm with retries (see module doc)."""
        key = cache_key(req)
        hit = self.cache.get(key)
        if hit is not None:
            self._count("cache_hits")
            return CallRecord(key, req.model, "ok", hit["completion"], True, hit.get("latency_s"),
                              hit.get("tokens_in"), hit.get("tokens_out"), hit.get("cost_usd"), hit.get("retries", 0))
        litellm = import_litellm()
        retries = 0
        while True:
            if req.model in self.halted:
                return CallRecord(key, req.model, "stopped", retries=retries,
                                  error=one_line(f"not sent: {self.halted[req.model]}"), fatal=True)
            if self.cancel.is_set():
                return CallRecord(key, req.model, "cancelled", retries=retries, error="run cancelled")
            reason = self.budget.reserve()
            if reason:
                return CallRecord(key, req.model, "budget", retries=retries, error=reason)
            self._count("requests")
            t0 = time.perf_counter()
            try:
                resp = litellm.completion(**req.litellm_kwargs(), timeout=self.retry.timeout,
                                          num_retries=0, max_retries=0)
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
                                  error=one_line(f"{type(exc).__name__}: {exc}"), fatal=_fatal(exc, litellm))
            return self._finish(key, req, resp, time.perf_counter() - t0, retries, litellm)

    def _finish(self, key, req, resp, latency, retries, litellm) -> CallRecord:
        try:
            text = resp.choices[0].message.content or ""
        except (AttributeError, IndexError):
            text = ""
        usage = getattr(resp, "usage", None)
        t_in = getattr(usage, "prompt_tokens", None)
        t_out = getattr(usage, "completion_tokens", None)
        try:
            cost = float(litellm.completion_cost(completion_response=resp, model=req.model))
        except Exception:
            cost = 0.0 if req.model.startswith(_FREE_PREFIXES) else None
        rec = CallRecord(key, req.model, "ok", text, False, latency, t_in, t_out, cost, retries)
        self.cache.put(key, {"request": req.canonical(), "completion": text, "latency_s": latency,
                             "tokens_in": t_in, "tokens_out": t_out, "cost_usd": cost, "retries": retries})
        self.budget.spend(cost)
        self._count("spend_usd", cost or 0.0)
        return rec

    def map(self, requests: list[JudgeRequest], on_done: Callable[[int, CallRecord], None] | None = None
            ) -> list[CallRecord]:
        """Run ``requests`` on ``concurrency`` threads; ``on_done(i, record)`` runs in the caller's thread."""
        out: list[CallRecord | None] = [None] * len(requests)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = {pool.submit(self.call, r): i for i, r in enumerate(requests)}
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
        return [r if r is not None else CallRecord(cache_key(requests[i]), requests[i].model, "cancelled",
                                                   error="run cancelled") for i, r in enumerate(out)]
