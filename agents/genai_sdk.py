"""A seat on the ``google-genai`` library: ``models.generate_content`` with a thinking level
(vendors.md); the model reported is ``model_version``.
Registered with the extra of the same name (pyproject.toml), which the plugin loader names when the library is
missing; so the library is imported with this module."""

from __future__ import annotations

from typing import Any

from google import genai
from google.genai import types

from league_agents.base import Ask
from league_agents.sdk_seat import SdkAnswer, SdkSeat, dump

_LEVELS = {"max": "HIGH", "xhigh": "XHIGH", "high": "HIGH", "medium": "MEDIUM", "low": "LOW", "minimal": "MINIMAL"}


class GenAISeat(SdkSeat):
    key_vars = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

    def make_client(self) -> Any:
        opts = types.HttpOptions(base_url=self.base_url, timeout=int(self.spec.timeout_s * 1000))
        opts.retry_options = types.HttpRetryOptions(attempts=1)
        return genai.Client(api_key=self.api_key(), http_options=opts)

    def call(self, ask: Ask) -> SdkAnswer:
        level = types.ThinkingLevel(_LEVELS.get(self.effort.lower(), self.effort.upper()))
        config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_level=level))
        resp = self.client.models.generate_content(model=self.spec.model, contents=ask.text, config=config)
        return SdkAnswer(
            text=str(resp.text or ""), model=str(resp.model_version or ""), usage=dump(resp.usage_metadata)
        )
