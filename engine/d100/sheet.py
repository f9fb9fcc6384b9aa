"""Per-token and per-encounter data of the `d100` rule system, as stored in the encounter file.

Kept in its own module (pydantic only, no engine imports) so that `engine.model` can embed it
under the token key `"d100"` and the encounter key `"d100"` without import cycles.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Sheet(BaseModel):
    """A token's d100 character data. Filled in by the d100 rule system."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


class Settings(BaseModel):
    """The encounter's d100 settings and saved combat state."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)
