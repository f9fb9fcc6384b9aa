"""Per-token and per-encounter data of the `static_veil` rule system, as stored in the encounter file.

Kept in its own module (pydantic only, no engine imports) so that `engine.model` can embed it
under the token key `"static_veil"` and the encounter key `"static_veil"` without import cycles.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Sheet(BaseModel):
    """A token's static_veil character data. Filled in by the static_veil rule system."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


class Settings(BaseModel):
    """The encounter's static_veil settings and saved combat state."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)
