"""The optional LLM backend against a real local server speaking the same API; every failure falls back."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.store import open_store
from confnav.summarize.llm import ChatClient, LLMConfig, LLMSummarizer, LLMUnreachable
from tests.llm_server import fake_llm

PERFORMERS = "Ua6zuk0WRH"


def paper(db: Path):  # type: ignore[no-untyped-def]
    with open_store(db, create=True) as store:
        return store.get_paper(PERFORMERS)


def test_llm_tldr_is_used_when_it_passes_the_checks(iclr2021_db: Path) -> None:
    with fake_llm() as (url, state):
        summarizer = LLMSummarizer(ChatClient(LLMConfig(url, "test-model", "secret")))
        result = summarizer.tldr(paper(iclr2021_db))
    assert result.source == "llm" and result.tldr == "A linear-time attention approximates softmax attention."
    assert state.requests[0]["model"] == "test-model" and not summarizer.failures


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("wrong-id", "names paper 'B1e-kxSKDH'"),
        ("long", "longer than 30 words"),
        ("invented-number", "numbers the abstract does not"),
        ("malformed", "not a JSON object"),
        ("no-choices", "no choices[0].message.content"),
        ("http-500", "HTTP 500"),
        ("slow", "no answer within 0.5 s"),
    ],
)
def test_llm_failures_fall_back_to_extractive(iclr2021_db: Path, mode: str, reason: str) -> None:
    with fake_llm() as (url, state):
        state.mode = mode
        timeout = 0.5 if mode == "slow" else 60  # the fake's "slow" waits 1.5 s; the others answer at once
        summarizer = LLMSummarizer(ChatClient(LLMConfig(url, "m", timeout=timeout)))
        result = summarizer.tldr(paper(iclr2021_db))
    assert result.source == "extractive" and result.tldr
    assert len(summarizer.failures) == 1 and reason in summarizer.failures[0]


def test_unreachable_endpoint_falls_back(iclr2021_db: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ChatClient(LLMConfig(f"http://127.0.0.1:{port}/v1", "m", timeout=1))
    summarizer = LLMSummarizer(client)
    result = summarizer.tldr(paper(iclr2021_db))
    assert result.source == "extractive" and client.down and "unreachable" in client.down
    assert not summarizer.failures  # no answer failed a check: none came
    with pytest.raises(LLMUnreachable):  # and the client asks nothing more of it
        client.complete("system", "user")


def test_cli_uses_the_configured_endpoint(iclr2021_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_llm() as (url, _):
        monkeypatch.setenv("CONFNAV_LLM_URL", url)
        result = CliRunner().invoke(cli, ["tldr", "--db", str(iclr2021_db), PERFORMERS, "--json"])
    assert json.loads(result.stdout)["source"] == "llm"
    monkeypatch.delenv("CONFNAV_LLM_URL")
    offline = json.loads(CliRunner().invoke(cli, ["tldr", "--db", str(iclr2021_db), PERFORMERS, "--json"]).stdout)
    assert offline["source"] == "extractive" and offline["id"] == PERFORMERS
