"""A seat on the ``anthropic`` library: ``messages.create`` with adaptive thinking at the seat's
effort (vendors.md). The reply is the text blocks joined; the model is the one the API reports.
Registered with the extra of the same name (pyproject.toml), which the plugin loader names when the library is
missing; so the library is imported with this module."""

from __future__ import annotations

from typing import Any

import anthropic

from league_agents.base import Ask
from league_agents.sdk_seat import SdkAnswer, SdkSeat, dump


class AnthropicSeat(SdkSeat):
    key_vars = ("ANTHROPIC_API_KEY",)

    def make_client(self) -> Any:
        return anthropic.Anthropic(
            api_key=self.api_key(), base_url=self.base_url, max_retries=0, timeout=self.spec.timeout_s
        )

    def call(self, ask: Ask) -> SdkAnswer:
        msg = self.client.messages.create(
            model=self.spec.model,
            max_tokens=int(self.spec.options.get("max_tokens", 32000)),
            thinking={"type": "adaptive"},
            output_config={"effort": self.effort},
            messages=[{"role": "user", "content": ask.text}],
        )
        text = "".join(block.text for block in msg.content if getattr(block, "type", "") == "text")
        usage = dump(msg.usage)
        usage["stop_reason"] = msg.stop_reason
        return SdkAnswer(text=text, model=str(msg.model), usage=usage)
