"""Per-token and per-encounter data of the `sr5` rule system, as stored in the encounter file.

Kept in its own module (pydantic only, no engine imports) so that `engine.model` can embed it
under the token key `"sr5"` and the encounter key `"sr5"` without import cycles.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Sheet(BaseModel):
    """A token's sr5 character data. Filled in by the sr5 rule system."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


class Settings(BaseModel):
    """The encounter's sr5 settings and saved combat state."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)
