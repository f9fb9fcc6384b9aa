"""Change records: what an applied sr5 action changed, so the GUI can refresh and log it.

Every ``apply_*`` function of the sr5 rules returns ``(new_encounter, change)``. A
:class:`Change` holds the tokens it touched as they were before and after, the zones it moved
(a blast that scattered), the sr5 settings before and after, the log lines it added and the
prompts it raises (a suppressive-fire test that is now due ...). :meth:`Change.revert` puts
the ``before`` values back into any later encounter (only those tokens, zones and the
settings), :meth:`Change.reapply` puts ``after`` back (redo). Encounters are frozen, so holding the before/after values costs little.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.model import Encounter, Token, Zone
from engine.sr5.sheet import LogEntry, Settings, Sheet

#: The key of the sr5 data under ``Token.rules`` and ``Encounter.rules``.
RULESET = "sr5"


@dataclass(frozen=True)
class Change:
    """What one applied action changed (see module docstring)."""

    label: str
    tokens_before: tuple[Token, ...] = ()
    tokens_after: tuple[Token, ...] = ()
    settings_before: Settings | None = None
    settings_after: Settings | None = None
    log: tuple[LogEntry, ...] = ()
    prompts: tuple[str, ...] = ()  # things the GM must now do (a test that is due ...)
    details: dict = field(default_factory=dict, compare=False)
    zones_before: tuple[Zone, ...] = ()
    zones_after: tuple[Zone, ...] = ()

    @property
    def token_ids(self) -> tuple[str, ...]:
        """Ids of the tokens this change touched."""
        return tuple(t.id for t in self.tokens_after)

    @property
    def zone_ids(self) -> tuple[str, ...]:
        """Ids of the zones this change moved or reshaped."""
        return tuple(z.id for z in self.zones_after)


#: The default sheet and settings, made once: both are frozen values, and building them
#: deep-copies every default field (a 500-token tracker refresh asked for ~500 of each).
_DEFAULT_SHEET = Sheet()
_DEFAULT_SETTINGS = Settings()


def sheet_of(token: Token) -> Sheet:
    """The token's sr5 sheet, or the default one (all attributes 3) when it has none."""
    s = token.rules.get(RULESET)
    return s if s is not None else _DEFAULT_SHEET


def settings_of(encounter: Encounter) -> Settings:
    """The encounter's sr5 settings, or the defaults."""
    s = encounter.rules.get(RULESET)
    return s if s is not None else _DEFAULT_SETTINGS


class Edit:
    """Collects the edits of one action on an encounter, then makes the new encounter and
    its :class:`Change`. Internal helper of the sr5 rules."""

    def __init__(self, encounter: Encounter) -> None:
        self.before = encounter
        self._tokens: dict[str, Token] = {}
        self._zones: dict[str, Zone] = {}
        self._settings: Settings = settings_of(encounter)
        self._log: list[LogEntry] = []
        self.prompts: list[str] = []
        self.details: dict = {}

    # tokens -----------------------------------------------------------------------------------
    def token(self, ident: str) -> Token:
        return self._tokens.get(ident) or self.before.token(ident)

    def sheet(self, ident: str) -> Sheet:
        return sheet_of(self.token(ident))

    def set_token(self, token: Token) -> None:
        self._tokens[token.id] = token

    def set_sheet(self, ident: str, sheet: Sheet) -> None:
        self.set_token(self.token(ident).with_rules(RULESET, sheet))

    def update_sheet(self, ident: str, **changes) -> Sheet:
        new = self.sheet(ident).model_copy(update=changes)
        self.set_sheet(ident, new)
        return new

    # zones ------------------------------------------------------------------------------------
    def zone(self, ident: str) -> Zone:
        return self._zones.get(ident) or self.before.zone(ident)

    def set_zone(self, zone: Zone) -> None:
        self._zones[zone.id] = zone

    # settings ---------------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self._settings

    def update_settings(self, **changes) -> Settings:
        self._settings = self._settings.model_copy(update=changes)
        return self._settings

    def log(self, entry: LogEntry) -> None:
        self._log.append(entry)

    # result -----------------------------------------------------------------------------------
    def finish(self, label: str) -> tuple[Encounter, Change]:
        """The new encounter (log lines appended to the settings) and the change record."""
        settings = self._settings
        if self._log:
            settings = settings.model_copy(update={"log": settings.log + tuple(self._log)})
        changed = [t for t in self._tokens.values() if t != self.before.token(t.id)]
        before_tokens = tuple(self.before.token(t.id) for t in changed)
        new_tokens = tuple(self._tokens.get(t.id, t) for t in self.before.tokens)
        old_settings = self.before.rules.get(RULESET)
        new_settings = settings if (settings != settings_of(self.before) or old_settings is not None) else old_settings
        update: dict = {"tokens": new_tokens}
        moved = [z for z in self._zones.values() if z != self.before.zone(z.id)]
        if moved:
            update["zones"] = tuple(self._zones.get(z.id, z) for z in self.before.zones)
        after = self.before.model_copy(update=update).with_rules(RULESET, new_settings)
        change = Change(
            label,
            before_tokens,
            tuple(changed),
            old_settings,
            new_settings,
            tuple(self._log),
            tuple(self.prompts),
            dict(self.details),
            tuple(self.before.zone(z.id) for z in moved),
            tuple(moved),
        )
        return after, change
