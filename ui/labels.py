"""How the app names the model and the knowledge a run will use, once: the sidebar and the Evaluate page both say it.

Decided from the settings alone (never by building a provider); the knowledge label asks the remembered reachability
probe, so while Wikipedia cannot be reached it says that the offline pack stands in, not "live".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from react_core import ConfigError, provider_class
from react_core import knowledge_reach as reach


def model_label(s: dict[str, Any]) -> str:
    cls = provider_class(s["provider"])
    if "model_path" in cls.options and s.get("model_path"):
        return Path(s["model_path"]).name
    if "model" in cls.options and s.get("model"):
        return s["model"]
    return cls.default_model or "provider default"


def knowledge_label(s: dict[str, Any]) -> str:
    knowledge = s.get("knowledge", "")
    if knowledge != "wikipedia":
        return f"offline pack {Path(knowledge[5:]).name}"
    try:
        endpoint = reach.endpoint_for(s.get("wiki_url") or None, s.get("wiki_language") or None)
    except ConfigError:
        return "Wikipedia (live)"  # the run will say what is wrong with the URL
    # The probe is brief and remembered (the Chat page's examples use the same): while Wikipedia cannot be reached,
    # the offline pack stands in, and no page may say "live".
    return "Wikipedia unreachable: offline pack" if reach.probe(endpoint) is False else "Wikipedia (live)"
