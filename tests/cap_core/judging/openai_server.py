"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions API, for tests.

Behaviour is chosen by a scenario word in the prompt (``SCENARIO:<name>``):

``ok`` (default)  JSON verdict for the answer that contains ``GOOD``
``ratelimit``     first hit: 429 with ``Retry-After: 1``
``badretry``      first hit: 429 with a malformed ``Retry-After: soon``
``error500``      first two hits: 500
``slow``          first hit sleeps ``slow_s`` seconds (client times out), then ok
``badbody``       first hit: 200 with a body that is not JSON
``auth``          always 401 (not retried)
``notfound``      always 404, model not found, with a two-line message (not retried)
``badrequest``    always 400 (not retried)
``forbidden``     always 403 (not retried)
``unprocessable`` always 422 (not retried, never cached)
``empty``         200 with an empty completion text (never cached)
``malformed``     truncated JSON completion (unparsable)
``fenced``        the verdict inside a ```json fence with prose around it
``conflict``      ``[[<wrong>]]`` first, then a JSON verdict for the GOOD answer
``rewrite``       echo the [Text] section padded/polished by rule (augmentation)
``losenot``       rewrite that drops the word "not" (fails label preservation)
``echokey``       a JSON verdict preceded by the bearer token the request carried (a reply that leaks the key)

Every request is recorded in ``hits`` as ``(prompt_sha, scenario, status)``;
``auth`` keeps the Authorization headers seen. Usage is 1000 prompt and 100
completion tokens per call.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class OpenAIServer:
    def __init__(self, delay_s: float = 0.0, slow_s: float = 4.0) -> None:
        self.hits: list[tuple[str, str, int]] = []
        self.auth: list[str] = []
        self.params: list[tuple] = []  # (temperature, max_tokens) of every request
        self.delay_s, self.slow_s = delay_s, slow_s
        self._lock = threading.Lock()
        self._seen: dict[str, int] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer._handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def count(self, status: int | None = None) -> int:
        with self._lock:
            return sum(1 for h in self.hits if status is None or h[2] == status)

    def _send(self, h, status: int, payload: bytes, headers: dict | None = None) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(payload)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _handle(self, h, body: dict) -> None:
        prompt = "\n".join(m["content"] for m in body["messages"])
        sha = hashlib.sha256((body["model"] + prompt + str(body.get("seed"))).encode()).hexdigest()[:16]
        m = re.search(r"SCENARIO:(\w+)", prompt)
        scen = m.group(1) if m else "ok"
        with self._lock:
            n = self._seen[sha] = self._seen.get(sha, 0) + 1
            self.auth.append(h.headers.get("Authorization", ""))
            self.params.append((body.get("temperature"), body.get("max_tokens")))
        status, headers, payload, sleep = 200, {}, None, self.delay_s
        if scen == "ratelimit" and n == 1:
            status, headers = 429, {"Retry-After": "1"}
            payload = b'{"error": {"message": "rate limited", "type": "rate_limit"}}'
        elif scen == "badretry" and n == 1:
            status, headers = 429, {"Retry-After": "soon"}
            payload = b'{"error": {"message": "rate limited", "type": "rate_limit"}}'
        elif scen == "error500" and n <= 2:
            status, payload = 500, b'{"error": {"message": "internal", "type": "server_error"}}'
        elif scen == "slow" and n == 1:
            sleep += self.slow_s
        elif scen == "badbody" and n == 1:
            payload = b"<html>this is not json"
        elif scen == "auth":
            status, payload = 401, b'{"error": {"message": "invalid api key", "type": "invalid_request_error"}}'
        elif scen == "notfound":
            status, payload = 404, (b'{"error": {"message": "The model does not exist.\\nSee the model list.", '
                                    b'"type": "invalid_request_error", "code": "model_not_found"}}')
        elif scen == "badrequest":
            status, payload = 400, b'{"error": {"message": "unsupported parameter", "type": "invalid_request_error"}}'
        elif scen == "forbidden":
            status, payload = 403, b'{"error": {"message": "not allowed", "type": "permission_error"}}'
        elif scen == "unprocessable":
            status, payload = 422, b'{"error": {"message": "unprocessable request", "type": "invalid_request_error"}}'
        with self._lock:
            self.hits.append((sha, scen, status))
        if sleep:
            time.sleep(sleep)
        if payload is None:
            payload = self._completion(body, prompt, scen)
            if scen == "echokey":  # the reply leaks the bearer token the request carried
                out = json.loads(payload)
                key = h.headers.get("Authorization", "").removeprefix("Bearer ")
                out["choices"][0]["message"]["content"] = f"Debug: you called me with {key}.\n" + \
                    out["choices"][0]["message"]["content"]
                payload = json.dumps(out).encode()
        self._send(h, status, payload, headers)

    def _completion(self, body: dict, prompt: str, scen: str) -> bytes:
        a = re.search(r"\[Answer A\]\n(.*?)\n\[End of Answer A\]", prompt, re.S)
        good = "A" if a and "GOOD" in a.group(1) else "B"
        bad = "B" if good == "A" else "A"
        text = json.dumps({"rationale": f"Answer {good} has the GOOD content.", "winner": good})
        if scen == "malformed":
            text = '{"rationale": "cut off in the middle, "winner": '
        elif scen == "empty":
            text = ""
        elif scen == "fenced":
            text = f"Here is my verdict.\n```json\n{text}\n```\nThanks."
        elif scen == "conflict":
            text = f"At first glance [[{bad}]]. On reflection: {text}"
        elif scen in ("rewrite", "losenot"):
            src = re.search(r"\[Text\]\n(.*?)\n\[End of Text\]", prompt, re.S).group(1)
            f = re.search(r"about ([0-9.]+) times", prompt)
            text = (src + " " + src[: int(len(src) * (float(f.group(1)) - 1))]) if f else "Formally, " + src
            if scen == "losenot":
                text = text.replace(" not ", " ")
        out = {"id": "cmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}}
        return json.dumps(out).encode()
