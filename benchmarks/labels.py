"""Topic labels from author keywords, after the public "ICLR dataset" benchmark.

González-Márquez & Kobak (2024), "Learning representations of learning
representations": 45 classes, each a set of exact (lower-cased) keywords; a
paper takes the class of its matched keyword that is rarest in their corpus
(the frequency after each keyword); papers with no matching keyword are unlabelled.
"""

from __future__ import annotations

CLASSES: dict[str, dict[str, int]] = {
    "adversarial": {
        "adversarial": 60,
        "adversarial attack": 121,
        "adversarial attacks": 106,
        "adversarial defense": 50,
        "adversarial examples": 196,
        "adversarial learning": 93,
        "adversarial machine learning": 54,
        "adversarial robustness": 241,
        "adversarial training": 217,
    },
    "transformers": {
        "attention": 183,
        "attention mechanism": 53,
        "transformer": 340,
        "transformers": 261,
        "self-attention": 73,
    },
    "autoencoders": {
        "autoencoder": 63,
        "autoencoders": 52,
        "vae": 71,
        "variational autoencoder": 93,
        "variational autoencoders": 83,
    },
    "anomaly detection": {"anomaly detection": 109},
    "causality": {"causal discovery": 53, "causal inference": 104, "causality": 80},
    "clustering": {"clustering": 116},
    "compression": {"compression": 121, "model compression": 135},
    "object detection": {"object detection": 125},
    "contrastive learning": {"contrastive learning": 344},
    "CNNs": {"convolutional neural network": 76, "convolutional neural networks": 130, "cnn": 88},
    "diffusion models": {"diffusion": 69, "diffusion model": 167, "diffusion models": 280},
    "explainability": {"explainability": 131, "explainable ai": 92},
    "interpretability": {"interpretability": 356},
    "fairness": {"fairness": 182},
    "federated learning": {"federated learning": 485},
    "GANs": {"generative adversarial network": 70, "generative adversarial networks": 190, "gan": 168, "gans": 91},
    "graphs": {
        "graph": 48,
        "graph neural network": 230,
        "graph neural networks": 563,
        "graph representation learning": 85,
        "gnn": 64,
    },
    "LLMs": {"llm": 80, "large language model": 210, "large language models": 447, "prompting": 48},
    "knowledge distillation": {"knowledge distillation": 211},
    "language models": {
        "natural language processing": 433,
        "nlp": 166,
        "language model": 105,
        "language models": 151,
        "language modeling": 85,
        "machine translation": 91,
        "question answering": 59,
        "reasoning": 85,
    },
    "meta learning": {"meta learning": 121, "meta-learning": 301},
    "pruning": {"network pruning": 48, "pruning": 140},
    "neural architecture search": {"neural architecture search": 180},
    "optimal transport": {"optimal transport": 165},
    "optimization": {
        "stochastic gradient descent": 77,
        "stochastic optimization": 56,
        "sgd": 86,
        "optimization": 410,
        "non-convex optimization": 66,
        "convex optimization": 57,
        "gradient descent": 86,
        "combinatorial optimization": 69,
        "bayesian optimization": 64,
    },
    "out-of-distribution": {
        "out-of-distribution": 53,
        "out-of-distribution detection": 92,
        "out-of-distribution generalization": 59,
        "distribution shift": 96,
    },
    "privacy": {"differential privacy": 154, "privacy": 99},
    "RNNs": {"rnn": 65, "recurrent neural network": 48, "recurrent neural networks": 114, "lstm": 66},
    "RL": {"reinforcement learning": 1608, "deep reinforcement learning": 298},
    "active learning": {"active learning": 131},
    "model-based RL": {"model-based reinforcement learning": 111},
    "multi-agent RL": {"multi-agent reinforcement learning": 162},
    "multi-task learning": {"multi-task learning": 141},
    "imitation learning": {"imitation learning": 171},
    "offline RL": {"offline reinforcement learning": 150, "offline rl": 55},
    "continual learning": {"continual learning": 339, "lifelong learning": 82},
    "in-context learning": {"in-context learning": 105},
    "few-shot learning": {"few-shot learning": 218},
    "robustness": {"robustness": 411},
    "self-supervised learning": {"self-supervised learning": 473},
    "semi-supervised learning": {"semi-supervised learning": 253},
    "time series": {"time series": 129, "time series forecasting": 54},
    "transfer learning": {"transfer learning": 388, "domain adaptation": 176, "domain generalization": 124},
    "ViTs": {"vision transformer": 98, "vision transformers": 51},
    "vision-language models": {"vision-language models": 48, "clip": 70},
}

_KEYWORD_CLASS = {kw: (freq, label) for label, kws in CLASSES.items() for kw, freq in kws.items()}


def keyword_label(keywords: list[str]) -> str | None:
    """The class of the rarest matching keyword (first in the paper's order on ties), or None."""
    best: tuple[int, str] | None = None
    for keyword in keywords:
        match = _KEYWORD_CLASS.get(keyword.strip().lower())
        if match and (best is None or match[0] < best[0]):
            best = match
    return best[1] if best else None
