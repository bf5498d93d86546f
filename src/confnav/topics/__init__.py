"""Topics: themes with labels and sub-themes, a 2D map, theme facts and year-over-year trends."""

from confnav.topics.build import TopicBuild, TopicBuilder
from confnav.topics.centroid import CentroidLabeler
from confnav.topics.cluster import CLUSTERERS
from confnav.topics.facts import ThemeFacts, ensure_topics, get_theme, theme_facts
from confnav.topics.label import LABELERS
from confnav.topics.layout import LAYOUTS
from confnav.topics.trends import Trends, trends

__all__ = [
    "CLUSTERERS",
    "LABELERS",
    "LAYOUTS",
    "CentroidLabeler",
    "ThemeFacts",
    "TopicBuild",
    "TopicBuilder",
    "Trends",
    "ensure_topics",
    "get_theme",
    "theme_facts",
    "trends",
]
