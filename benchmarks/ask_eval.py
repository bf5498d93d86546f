"""`confnav ask` on the real ICLR 2021 data: does the answer cite the paper a question was written from, are its
citations about the question, does it show anything the store does not say, and how fast is it.

Questions are written from the papers by a method, never by hand: for each paper of a seeded sample of ICLR 2021
(with an abstract and keywords), its keywords that share no word stem with its title, the first three of them,
make the question "Which papers study K1, K2 and K3?" (papers with fewer than two such keywords are left out). A
researcher who read the paper would ask this without knowing its title.

Measured, offline (the default extractive answer):
  (a) recall: the paper the question was written from is among the answer's citations;
  (b) precision: the cited papers resolve to the store and are about the question, judged by the retrieval's
      relevance in meaning: among the POOL papers of the venue closest to the question by the semantic model
      (an independent judge of the lexical relevance `ask` cites by);
  (c) unsupported citations and numbers: failures of the answer's check against the store (must be 0);
with `--llm URL` (an OpenAI-compatible endpoint) or `--local-llm` (SmolLM2-135M on llama.cpp's server, the
`llm-local` extra), the same on the model's prose for the first `--llm-questions`, and the share of the model's
sentences the checks dropped or replaced; and the speed of `ask`, warm and offline, on a store of `--size`
papers (ICLR 2021 and 2020, then copies of ICLR 2021 with perturbed text in synthetic venues; goal <= 1 s).

Run: python benchmarks/ask_eval.py [--db ICLR.db] [--questions 100] [--local-llm] [--size 10000]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _util import machine, median, prepare_store
from confnav.answer import ask
from confnav.answer.check import verify_answer
from confnav.answer.compose import SHOWN
from confnav.model import Paper
from confnav.search.engine import Searcher
from confnav.search.text import terms
from confnav.store import PaperFilter, open_store
from confnav.summarize.llm import ChatClient, LLMConfig
from scale import fill, seed

POOL = 50  # the papers closest in meaning to a question that count as about it
SPEED_GOAL = 1.0


def questions(papers: list[Paper], count: int, seed_value: int = 7) -> list[tuple[str, str]]:
    """(paper id, question) for up to `count` papers of a seeded sample: see the module's docstring."""
    rng = random.Random(seed_value)
    pool = [p for p in papers if p.abstract and len(p.keywords) >= 2 and not p.placeholder]
    rng.shuffle(pool)
    made = []
    for paper in pool:
        title = set(terms(paper.title))
        outside = [k.strip() for k in paper.keywords if k.strip() and terms(k) and not set(terms(k)) & title]
        outside = list(dict.fromkeys(outside))[:3]
        if len(outside) < 2:
            continue
        listed = ", ".join(outside[:-1]) + f" and {outside[-1]}"
        made.append((paper.id, f"Which papers study {listed}?"))
        if len(made) == count:
            break
    return made


def evaluate(searcher: Searcher, asked: list[tuple[str, str]], client: ChatClient | None) -> dict[str, float]:
    """Recall, precision, unsupported items and (with a model) the share of its sentences dropped or replaced."""
    found = cited = precise = failures = answered = generated = removed = 0
    for paper_id, question in asked:
        answer = ask(searcher, question, venue="iclr2021", client=client)
        ids = list(dict.fromkeys(c for s in answer.sentences for c in s.cites))
        near = searcher.search(question, mode="semantic", where=PaperFilter(venue="iclr2021"), limit=POOL)
        about = {h.paper.id for h in near.hits}
        answered += answer.unanswered is None
        found += paper_id in ids
        cited += len(ids)
        precise += sum(i in about for i in ids)
        failures += len(verify_answer(searcher, answer))
        generated += answer.generated
        removed += answer.dropped + answer.replaced
    n = len(asked) or 1
    return {
        "questions": len(asked),
        "answered": answered / n,
        "recall": found / n,
        "precision": precise / (cited or 1),
        "citations per answer": cited / n,
        "unsupported": failures,
        "generated": generated,
        "dropped share": removed / (generated or 1),
    }


def baseline(searcher: Searcher, asked: list[tuple[str, str]]) -> dict[str, float]:
    """The same-run baseline: the hybrid search of the whole question, its first SHOWN hits taken as citations."""
    found = precise = cited = 0
    for paper_id, question in asked:
        where = PaperFilter(venue="iclr2021")
        ids = [h.paper.id for h in searcher.search(question, where=where, limit=SHOWN).hits]
        about = {h.paper.id for h in searcher.search(question, mode="semantic", where=where, limit=POOL).hits}
        found += paper_id in ids
        precise += sum(i in about for i in ids)
        cited += len(ids)
    n = len(asked) or 1
    return {"recall": found / n, "precision": precise / (cited or 1), "citations per answer": cited / n}


def speed(db: Path, folder: Path, size: int, asked: list[tuple[str, str]]) -> dict[str, float]:
    """`ask` warm and offline on a store of `size` papers: seconds per question (median, slowest)."""
    large = folder / "large.db"
    shutil.copy(db, large)
    papers, vectors, model = seed(db)
    with open_store(large) as store:
        missing = size - store.count_papers()
        if missing > 0:
            fill(store, papers, vectors, model, missing)
        total = store.count_papers()
        searcher = Searcher(store)
        ask(searcher, asked[0][1])  # warm: the corpus, vectors and model loaded once, as a server holds them
        times = []
        for _, question in asked:
            start = time.perf_counter()
            ask(searcher, question)
            times.append(time.perf_counter() - start)
    return {"papers": total, "median s": median(times), "slowest s": max(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, help="an ICLR store to copy (indexed here when it is not)")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--llm", help="an OpenAI-compatible base URL (…/v1) to evaluate the written answers")
    parser.add_argument("--local-llm", action="store_true", help="serve SmolLM2-135M locally (the llm-local extra)")
    parser.add_argument("--llm-questions", type=int, default=30)
    parser.add_argument("--size", type=int, default=10_000, help="papers in the store ask is timed on (0: skip)")
    args = parser.parse_args()
    print(f"# ask_eval on {machine()}")
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        folder = Path(tmp)
        db = prepare_store(folder, args.db)
        with open_store(db) as store:
            asked = questions(store.papers(PaperFilter(venue="iclr2021")), args.questions)
            searcher = Searcher(store)
            print("baseline (hybrid search, first hits):", _shown(baseline(searcher, asked)))
            offline = evaluate(searcher, asked, None)
            print("offline (extractive):", _shown(offline))
            url = args.llm
            if args.local_llm:
                from tests.local_llm import local_llm_server

                url = stack.enter_context(local_llm_server(folder / "llm.log"))
            if url:
                client = ChatClient(LLMConfig(url, "local", timeout=120))
                written = evaluate(searcher, asked[: args.llm_questions], client)
                print("with the LLM:", _shown(written))
        if args.size:
            timed = speed(db, folder, args.size, asked[:20])
            verdict = "meets" if timed["slowest s"] <= SPEED_GOAL else "misses"
            print(f"speed, warm offline: {_shown(timed)} ({verdict} the {SPEED_GOAL:g} s goal)")


def _shown(figures: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())


if __name__ == "__main__":
    main()
