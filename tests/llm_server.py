"""A real local HTTP server speaking the OpenAI chat-completions API, with scripted behaviours for tests."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from tests.local_http import local_server


class FakeChat:
    """`mode` decides the answer: good, wrong-id, long, malformed, no-choices, slow, http-500."""

    def __init__(self) -> None:
        self.mode = "good"
        self.paragraph: str | None = None  # an overview paragraph's answer, as given (None: the scripted one)
        self.requests: list[dict[str, object]] = []


def _handler(state: FakeChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            user = body["messages"][-1]["content"]
            if user.startswith("Section:"):
                self._reply(state.paragraph if state.paragraph is not None else self._paragraph(user))
                return
            if user.startswith("Question:"):
                self._reply(self._answer(user))
                return
            if user.startswith("Reviews of one paper."):  # what reviewers agreed on: one sentence of each fault
                self._reply(
                    "The reviewers agree that the paper is clearly written [R1, R2]. Some find the experiments"
                    " convincing and others do not [R1][R3]. Reviewer 9 found 42 flaws [R9]. It is a good paper."
                )
                return
            paper_id = re.search(r"Paper id: (\S+)", user).group(1)  # type: ignore[union-attr]
            if state.mode == "http-500":
                self.send_error(500)
                return
            if state.mode == "slow":
                time.sleep(1.5)
            good = "A linear-time attention approximates softmax attention."
            invented = "Runs 1234 times faster than softmax attention."
            content = {
                "good": json.dumps({"id": paper_id, "tldr": good}),
                "wrong-id": json.dumps({"id": "B1e-kxSKDH", "tldr": "Another paper entirely."}),
                "long": json.dumps({"id": paper_id, "tldr": " ".join(["word"] * 40)}),
                "invented-number": json.dumps({"id": paper_id, "tldr": invented}),
                "malformed": "Sure! Here is the TL;DR: {not json",
            }.get(state.mode, "")
            self._reply(content, state.mode == "no-choices")

        def _paragraph(self, user: str) -> str:
            """An overview paragraph over what it was given: a sentence citing the first paper, one stating the
            paragraph's first number as given, one citing a paper it was not given, one with a number nobody
            gave, one resting on nothing."""
            ids = re.findall(r"^\[([^\]]+)\]", user, re.M)
            year = r"(?:19|20)\d\d\b"
            given = re.search(rf"^Paragraph: .*?((?<!\d)(?!{year})\d[\d,]*(?:\.\d+)?%?)", user, re.M)
            said = [f"Readers should start with the paper the ranking puts first [{ids[0]}]."] if ids else []
            said += [f"The section rests on {given.group(1)} of the store's records."] if given else []
            said += ["Reformer belongs here too [B1e-kxSKDH]."]
            said += [f"The next paper cuts memory by 97.25% [{ids[1]}]."] if len(ids) > 1 else []
            return " ".join([*said, "Overall this is an active area."])

        def _answer(self, user: str) -> str:
            """Prose over the papers given: one sentence citing the first, one citing a paper it was not given,
            one with a number no paper states, one citing nothing."""
            first, second = re.findall(r"^\[([^\]]+)\]", user, re.M)[:2]
            return (
                f"Several papers make attention cheaper [{first}]. "
                f"Reformer also does this [B1e-kxSKDH]. "
                f"It cuts memory by 97.25% [{second}]. "
                "Overall this is an active area."
            )

        def _reply(self, content: str, broken: bool = False) -> None:
            payload = {"choices": [{"message": {"role": "assistant", "content": content}}]}
            if broken:
                payload = {"error": "nothing"}
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def fake_llm() -> Iterator[tuple[str, FakeChat]]:
    """Serve on 127.0.0.1 on a free port; yields the base URL and the controllable state."""
    state = FakeChat()
    with local_server(_handler(state)) as url:
        yield f"{url}/v1", state
