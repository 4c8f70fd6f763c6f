"""A tiny OpenAI-compatible server on 127.0.0.1 for the evaluate tests.

``POST /v1/chat/completions``: the judge prefers the SHORTER of the two answers of the
pairwise or choice prompt (a rule the tests recompute from the texts). With
``logprobs`` in the request it answers one token with ``top_logprobs``: log 0.8 for
the shorter answer's letter and log 0.2 for the other. Usage: 100 prompt and 10
completion tokens per call.
"""

from __future__ import annotations

import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def section(text: str, name: str) -> str:
    m = re.search(r"\[" + re.escape(name) + r"\]\n(.*?)\n\[End of " + re.escape(name) + r"\]", text, re.S)
    return m.group(1).strip() if m else ""


def shorter(prompt: str) -> str:
    a, b = section(prompt, "Answer A"), section(prompt, "Answer B")
    return "A" if len(a) < len(b) else "B" if len(b) < len(a) else "A"


class TinyServer:
    def __init__(self) -> None:
        self.calls = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.calls += 1
                prompt = body["messages"][-1]["content"]
                win = shorter(prompt)
                choice = {"index": 0, "finish_reason": "stop"}
                if body.get("logprobs"):
                    other = "B" if win == "A" else "A"
                    tops = [{"token": win, "logprob": math.log(0.8), "bytes": None},
                            {"token": other, "logprob": math.log(0.2), "bytes": None}]
                    choice["message"] = {"role": "assistant", "content": win}
                    choice["logprobs"] = {"content": [{"token": win, "logprob": math.log(0.8), "bytes": None,
                                                       "top_logprobs": tops}]}
                else:
                    text = json.dumps({"rationale": f"Answer {win} is shorter.", "winner": win})
                    choice["message"] = {"role": "assistant", "content": text}
                payload = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                      "choices": [choice],
                                      "usage": {"prompt_tokens": 100, "completion_tokens": 10,
                                                "total_tokens": 110}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
