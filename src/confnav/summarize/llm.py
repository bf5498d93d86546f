"""Optional LLM backend: any OpenAI-compatible chat-completions endpoint, never required.

Configured by CONFNAV_LLM_URL (base URL, e.g. http://127.0.0.1:8080/v1),
CONFNAV_LLM_MODEL and CONFNAV_LLM_API_KEY, or an `[llm]` table (url, model,
api_key_env) in the file named by CONFNAV_CONFIG. Every answer is checked — it
must be JSON, cite only the papers it was given, stay within 30 words and use
only numbers it was given — and otherwise the extractive text is used and the
reason logged.
"""

from __future__ import annotations

import json
import logging
import re
import ssl
from dataclasses import dataclass
from functools import cache

import httpx

from confnav.errors import ConfnavError
from confnav.model import Paper
from confnav.settings import Settings
from confnav.store.protocols import CacheStore
from confnav.summarize.base import SUMMARIZERS, Summarizer
from confnav.summarize.stored import venue_summarizer
from confnav.summarize.tldr import ExtractiveSummarizer, Tldr, is_self_contained

log = logging.getLogger("confnav.llm")


class LLMError(ConfnavError):
    """The endpoint was unreachable, too slow, or answered something unusable."""


class LLMUnreachable(LLMError):
    """The endpoint cannot be reached or refuses every request (a wrong address, key or model): said once, and
    the client asks it nothing more."""


@dataclass(frozen=True)
class LLMConfig:
    url: str
    model: str
    api_key: str | None = None
    timeout: float = 20.0

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMConfig | None:
        """The configured endpoint, or None when no LLM is configured (the offline default)."""
        if not settings.llm_url:
            return None
        return cls(settings.llm_url, settings.llm_model, settings.llm_api_key, settings.llm_timeout)


class ChatClient:
    """A chat-completions client over httpx; the key goes only into the request's header, never into an error."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.down: str | None = None  # why the endpoint cannot be reached, once it could not

    def _unreachable(self, why: str) -> LLMUnreachable:
        """Remember that the endpoint cannot be reached, say so once, and the error to raise."""
        if self.down is None:
            log.warning("%s; what the model would write is extractive", why)
        self.down = why
        return LLMUnreachable(why)

    def complete(self, system: str, user: str, max_tokens: int | None = None) -> str:
        """The model's answer to one system and one user message, at temperature 0."""
        body: dict[str, object] = {
            "model": self.config.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        if max_tokens:
            body["max_tokens"] = max_tokens
        headers = {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
        where = self.config.url
        if self.down is not None:
            raise LLMUnreachable(self.down)
        try:
            response = httpx.post(
                f"{where}/chat/completions", json=body, headers=headers, timeout=self.config.timeout, verify=_tls()
            )
        except httpx.TimeoutException:
            raise LLMError(f"{where}: no answer within {self.config.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise self._unreachable(f"{where}: unreachable ({type(exc).__name__})") from None
        if 400 <= response.status_code < 500 and response.status_code not in (408, 429):  # the address, key or model
            raise self._unreachable(f"{where}: HTTP {response.status_code}")
        if response.status_code >= 400:  # the server's trouble with this request: the next may pass
            raise LLMError(f"{where}: HTTP {response.status_code}")
        try:
            payload = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise LLMError(f"{where}: the answer is not JSON") from None
        try:
            return str(payload["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{where}: the answer has no choices[0].message.content") from None


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every request: each built its own before, reading the CA bundle (15–45 ms a call)."""
    return httpx.create_ssl_context()


def parse_json_answer(text: str) -> dict[str, object]:
    """The JSON object in a model's answer (code fences allowed)."""
    match = re.search(r"\{.*\}", text, re.S)
    try:
        value = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise LLMError("the answer is not a JSON object")
    return value


TLDR_PROMPT = (
    "You write one-sentence TL;DRs of research papers. Use only the abstract given. At most 30 words, "
    'self-contained, no citations, no LaTeX. Answer with JSON only: {"id": "<paper id>", "tldr": "<sentence>"}.'
)


class LLMSummarizer:
    """TL;DRs from an LLM, checked; the extractive TL;DR stands in for any answer that fails a check."""

    def __init__(self, client: ChatClient, fallback: ExtractiveSummarizer | None = None) -> None:
        self.client = client
        self.fallback = fallback or ExtractiveSummarizer()
        self.failures: list[str] = []

    def tldr(self, paper: Paper) -> Tldr:
        if paper.tldr or not paper.abstract:
            return self.fallback.tldr(paper)
        try:
            answer = parse_json_answer(
                self.client.complete(
                    TLDR_PROMPT, f"Paper id: {paper.id}\nTitle: {paper.title}\nAbstract: {paper.abstract}", 120
                )
            )
            if answer.get("id") != paper.id:
                raise LLMError(f"the answer names paper {answer.get('id')!r}, not {paper.id!r}")
            text = " ".join(str(answer.get("tldr") or "").split())
            if not text or not is_self_contained(text):
                raise LLMError("the TL;DR is empty, longer than 30 words, or not self-contained")
            if numbers(text) - numbers(paper.abstract) - numbers(paper.title):
                raise LLMError("the TL;DR has numbers the abstract does not")
            return Tldr(paper.id, text, "llm")
        except LLMUnreachable:
            return self.fallback.tldr(paper)  # said once by the client, and in the report's notes
        except LLMError as exc:
            reason = f"{paper.id}: {exc}; using the extractive TL;DR"
            log.warning(reason)
            self.failures.append(reason)
            return self.fallback.tldr(paper)


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[\"“(])")


def model_sentences(text: str) -> list[str]:
    """A model's prose split into sentences (after . ! or ?, before a capital, a citation or a quote), with its
    whitespace collapsed: what every check of generated text reads one by one."""
    return _SENTENCE_BREAK.split(" ".join(text.split()))


def numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


SUMMARIZERS.register("llm", lambda config: LLMSummarizer(ChatClient(config)))


def make_summarizer(settings: Settings | None = None) -> Summarizer:
    """The summarizer the settings choose (`steps.summarizer`; a plugged `module:Class` is called without
    arguments); by default the LLM one when an endpoint is configured, else the offline extractive one.
    Without settings: the defaults (offline), never the environment's."""
    settings = settings or Settings()
    config = LLMConfig.from_settings(settings)
    name = settings.steps.summarizer or ("llm" if config else "extractive")
    if name != "llm":
        return SUMMARIZERS.create(name)
    if config is None:
        raise ConfnavError("steps.summarizer is 'llm' but no LLM is configured: set [llm] url or $CONFNAV_LLM_URL")
    return SUMMARIZERS.create("llm", config=config)


def summarizer_for(store: CacheStore, venue: str) -> Summarizer:
    """A report's summarizer when none is given: the one the store's settings choose (`steps.summarizer`), else
    the extractive one answering from the venue's kept TL;DRs."""
    if store.settings.steps.summarizer not in (None, "extractive"):
        return make_summarizer(store.settings)
    return venue_summarizer(store, venue)
