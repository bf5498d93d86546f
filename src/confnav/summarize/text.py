"""Abstract text as a reader sees it, in sentences: citations, footnote marks and enumerations removed, LaTeX
shown as symbols ("\\Omega(d^2)" → "Ω(d^2)"), split without breaking at "e.g.", "et al." or decimals."""

from __future__ import annotations

import re

_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|et al|vs|cf|fig|eq|resp|approx|w\.r\.t|etc|a\.k\.a)\.", re.I)
_SENTENCE_END = re.compile(  # also "…data.We", "…(DATTI).Specifically"
    r"(?<=[.!?])(?:\s+(?=[A-Z0-9\"'(])|(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])|(?<=\)[.!?])(?=[A-Z][a-z]))"
)


def clean(text: str) -> str:
    """Remove citations, LaTeX, footnote marks and odd quotes; collapse spaces."""
    text = re.sub(r"\\cite[tp]?\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\[\]]*(\d{2}|et al)[^\[\]]*\]", "", text)  # [Smith'20], [12], [Smith et al., 2019]
    text = re.sub(r"\(([A-Z][A-Za-z-]+( et al\.?)?( and [A-Z][a-z]+)?,? (19|20)\d\d[a-z]?;? ?)+\)", "", text)
    text = re.sub(r"\$+([^$]*)\$+", lambda m: _strip_latex(m.group(1)), text)
    text = _strip_latex(text)
    text = text.replace("``", '"').replace("''", '"').replace("`", "'").replace("~", " ")
    text = re.sub(r'"{2,}', '"', text)  # ``"dot-product attention": one quote mark
    text = re.sub(r"(?<![^\s,;:])\(?([1-9]|i{1,3}|iv|[a-d])\)\s", "", text)  # enumerations: "1) …, 2) …", "(i) …"
    text = re.sub(r"\s+([,.;:])", r"\1", text)
    return " ".join(text.split())


_GREEK = (  # in Unicode order from α (U+03B1) and Α (U+0391); "" for final sigma, which has no LaTeX name
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
)
# LaTeX symbols as the reader would see them ("\Omega(d^2)" → "Ω(d^2)", "\mathbb{R}^d\times\{\pm 1\}" → "R^d×±1").
_LATEX_SYMBOLS = {
    "times": "×",
    "pm": "±",
    "cdot": "·",
    "otimes": "⊗",
    "infty": "∞",
    "sqrt": "√",
    "sim": "~",
    "approx": "≈",
    "in": "∈",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "ll": "≪",
    "gg": "≫",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "propto": "∝",
    "nabla": "∇",
    "partial": "∂",
    "ell": "ℓ",
    "prime": "′",
    "ldots": "…",
    "cdots": "…",
    "dots": "…",
    "ast": "*",
    "mid": "|",
    "epsilon": "ε",
    "varepsilon": "ε",
    **{name: chr(code) for name, code in zip(_GREEK, range(0x3B1, 0x3CA), strict=True) if name},
    **{name.capitalize(): chr(code) for name, code in zip(_GREEK, range(0x391, 0x3AA), strict=True) if name},
}


def _strip_latex(text: str) -> str:
    text = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
    text = re.sub(r"\\([A-Za-z]+)(?![A-Za-z])", lambda m: _LATEX_SYMBOLS.get(m[1], m[0]), text)  # \in\mathbb{R}: ∈
    text = re.sub(r"\\[A-Za-z]+\{([^{}]*)\}", r"\1", text)  # \emph{X}, \underline{c}omposite: the words
    text = re.sub(  # {\it X}, \mathbf x
        r"\\(it|bf|em|sc|tt|rm|sl|sf|small|large|Large|footnotesize|normalsize|math(bf|bb|cal|rm|it|sf)|boldsymbol|bm)"
        r"\b\s*",
        "",
        text,
    )
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)
    return text.replace("{", "").replace("}", "").replace("\\", "").replace("$", "")


def sentences(text: str) -> list[str]:
    """Split into sentences without breaking at e.g., i.e., et al. or decimals."""
    protected = _ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "\0"), text)
    return [s.replace("\0", ".").strip() for s in _SENTENCE_END.split(protected) if s.strip()]
