"""A seat on the ``openai`` library: ``responses.create`` with ``reasoning.effort`` (vendors.md).
``options.base_url`` makes any Responses-compatible HTTP endpoint a seat.
Registered with the extra of the same name (pyproject.toml), which the plugin loader names when the library is
missing; so the library is imported with this module."""

from __future__ import annotations

from typing import Any

import openai

from league_agents.base import Ask
from league_agents.sdk_seat import SdkAnswer, SdkSeat, dump


class OpenAISeat(SdkSeat):
    key_vars = ("OPENAI_API_KEY",)

    def make_client(self) -> Any:
        return openai.OpenAI(api_key=self.api_key(), base_url=self.base_url, max_retries=0, timeout=self.spec.timeout_s)

    def call(self, ask: Ask) -> SdkAnswer:
        resp = self.client.responses.create(model=self.spec.model, reasoning={"effort": self.effort}, input=ask.text)
        return SdkAnswer(text=str(resp.output_text), model=str(resp.model), usage=dump(resp.usage))
