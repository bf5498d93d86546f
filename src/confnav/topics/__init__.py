"""Topics: themes with labels and sub-themes, a 2D map, theme facts and year-over-year trends."""

from confnav.topics.build import TopicBuild, TopicBuilder
from confnav.topics.facts import ThemeFacts, ensure_topics, get_theme, theme_facts
from confnav.topics.trends import Trends, trends

__all__ = ["ThemeFacts", "TopicBuild", "TopicBuilder", "Trends", "ensure_topics", "get_theme", "theme_facts", "trends"]
